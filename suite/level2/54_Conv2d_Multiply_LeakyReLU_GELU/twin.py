"""twin.py — level2/54_Conv2d_Multiply_LeakyReLU_GELU as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, multiplier_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.multiplier = nn.Parameter(torch.randn(multiplier_shape))
        self.leaky_relu = nn.LeakyReLU()

    def forward(self, x):
        x = self.conv(x)
        x = x * self.multiplier
        x = self.leaky_relu(x)
        return F.gelu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    c = int(attrs["out_channels"])
    return Model(int(attrs["in_channels"]), c, int(attrs["kernel_size"]), (c, 1, 1))
