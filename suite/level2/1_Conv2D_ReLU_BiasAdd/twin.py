"""twin.py — level2/1_Conv2D_ReLU_BiasAdd as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                              padding=padding, dilation=dilation, groups=groups)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))

    def forward(self, x):
        x = self.conv(x)
        x = torch.relu(x)
        return x + self.bias


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(v) for k, v in attrs.items()}
    return Model(a["in_channels"], a["out_channels"], a["kernel_size"], a["stride"],
                 a["padding"], a["dilation"], a["groups"])
