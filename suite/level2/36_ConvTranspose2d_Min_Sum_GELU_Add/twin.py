"""twin.py — level2/36_ConvTranspose2d_Min_Sum_GELU_Add as a PyTorch module (KernelBench's Model,
HEAD bias_shape (1, 1, 1))."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride,
                                                 padding, output_padding)
        self.bias = nn.Parameter(torch.randn(1, 1, 1))

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.min(x, dim=1, keepdim=True)[0]
        x = torch.sum(x, dim=2, keepdim=True)
        x = torch.nn.functional.gelu(x)
        return x + self.bias


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 int(attrs["stride"]), int(attrs["padding"]), int(attrs["output_padding"]))
