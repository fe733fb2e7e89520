"""twin.py — level2/93_ConvTranspose2d_Add_Min_GELU_Multiply as a PyTorch module (KernelBench's
Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, add_value, multiply_value):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride)
        self.add_value = add_value
        self.multiply_value = multiply_value

    def forward(self, x):
        x = self.conv_transpose(x)
        x = x + self.add_value
        x = torch.min(x, torch.tensor(0.0, device=x.device, dtype=x.dtype))
        x = torch.nn.functional.gelu(x)
        return x * self.multiply_value


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 int(attrs["stride"]), float(attrs["add_value"]), float(attrs["multiply_value"]))
