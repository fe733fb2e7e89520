"""twin.py — level2/79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, eps, clamp_min, clamp_max):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.multiplier = nn.Parameter(torch.randn(out_channels, 1, 1, 1))
        self.instance_norm = nn.InstanceNorm3d(out_channels, eps=eps)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        x = self.conv(x)
        x = x * self.multiplier
        x = self.instance_norm(x)
        x = torch.clamp(x, self.clamp_min, self.clamp_max)
        x = x * self.multiplier
        return torch.max(x, dim=1)[0]


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_channels"], dims["out_channels"], dims["kernel_size"],
                 float(attrs["eps"]), float(attrs["clamp_min"]), float(attrs["clamp_max"]))
