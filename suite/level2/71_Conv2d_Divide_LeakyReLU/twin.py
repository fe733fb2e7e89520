"""twin.py — level2/71_Conv2d_Divide_LeakyReLU as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divisor, negative_slope):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.divisor = divisor
        self.negative_slope = negative_slope

    def forward(self, x):
        x = self.conv(x)
        x = x / self.divisor
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 int(attrs["divisor"]), float(attrs["negative_slope"]))
