"""twin.py — level2/4_Conv2d_Mish_Mish as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        x = self.conv(x)
        x = torch.nn.functional.mish(x)
        return torch.nn.functional.mish(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    assert int(attrs["stride"]) == 1 and int(attrs["padding"]) == 0
    assert int(attrs["dilation"]) == 1 and int(attrs["groups"]) == 1
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]))
