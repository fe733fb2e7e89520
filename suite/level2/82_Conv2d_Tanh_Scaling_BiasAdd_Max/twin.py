"""twin.py — level2/82_Conv2d_Tanh_Scaling_BiasAdd_Max as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scaling_factor, pool_kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.scaling_factor = scaling_factor
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))
        self.max_pool = nn.MaxPool2d(pool_kernel_size)

    def forward(self, x):
        x = self.conv(x)
        x = torch.tanh(x)
        x = x * self.scaling_factor
        x = x + self.bias
        return self.max_pool(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_channels"], dims["out_channels"], dims["kernel_size"],
                 float(attrs["scaling_factor"]), int(attrs["pool_kernel_size"]))
