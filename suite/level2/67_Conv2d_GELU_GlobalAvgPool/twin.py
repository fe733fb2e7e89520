"""twin.py — level2/67_Conv2d_GELU_GlobalAvgPool as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        x = self.conv(x)
        x = F.gelu(x)
        x = F.adaptive_avg_pool2d(x, 1)
        return x.squeeze(-1).squeeze(-1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]))
