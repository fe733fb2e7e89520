"""twin.py — level2/100_ConvTranspose3d_Clamp_Min_Divide as a PyTorch module (KernelBench's
Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, min_value,
                 divisor):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.min_value = min_value
        self.divisor = divisor

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.clamp(x, min=self.min_value)
        return x / self.divisor


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 int(attrs["stride"]), int(attrs["padding"]), float(attrs["min_value"]),
                 float(attrs["divisor"]))
