"""twin.py — level2/90_Conv3d_LeakyReLU_Sum_Clamp_GELU as a PyTorch module (KernelBench's
Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.sum_tensor = nn.Parameter(torch.randn(out_channels, 1, 1, 1))

    def forward(self, x):
        x = self.conv(x)
        x = torch.nn.functional.leaky_relu(x, negative_slope=0.2)
        x = x + self.sum_tensor
        x = torch.clamp(x, min=-1.0, max=1.0)
        return torch.nn.functional.gelu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]))
