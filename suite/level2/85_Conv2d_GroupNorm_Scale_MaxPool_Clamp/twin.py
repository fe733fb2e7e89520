"""twin.py — level2/85_Conv2d_GroupNorm_Scale_MaxPool_Clamp as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups, eps,
                 maxpool_kernel_size, clamp_min, clamp_max):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels, eps=eps)
        self.scale = nn.Parameter(torch.ones(out_channels, 1, 1))
        self.maxpool = nn.MaxPool2d(kernel_size=maxpool_kernel_size)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        x = self.conv(x)
        x = self.group_norm(x)
        x = x * self.scale
        x = self.maxpool(x)
        return torch.clamp(x, self.clamp_min, self.clamp_max)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_channels"], dims["out_channels"], dims["kernel_size"],
                 int(attrs["num_groups"]), float(attrs["eps"]), int(attrs["maxpool_kernel_size"]),
                 float(attrs["clamp_min"]), float(attrs["clamp_max"]))
