"""twin.py — level2/21_Conv2d_Add_Scale_Sigmoid_GroupNorm as a PyTorch module (KernelBench's
Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups, eps):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))
        self.scale = nn.Parameter(torch.randn(out_channels, 1, 1))
        self.group_norm = nn.GroupNorm(num_groups, out_channels, eps=eps)

    def forward(self, x):
        x = self.conv(x)
        x = x + self.bias
        x = x * self.scale
        x = torch.sigmoid(x)
        return self.group_norm(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 int(attrs["num_groups"]), float(attrs["eps"]))
