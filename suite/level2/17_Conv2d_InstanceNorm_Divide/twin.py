"""twin.py — level2/17_Conv2d_InstanceNorm_Divide as a PyTorch module (KernelBench's Model)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divide_by, eps):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.instance_norm = nn.InstanceNorm2d(out_channels, eps=eps)
        self.divide_by = divide_by

    def forward(self, x):
        x = self.conv(x)
        x = self.instance_norm(x)
        return x / self.divide_by


def make(dims: dict, attrs: dict) -> nn.Module:
    assert int(attrs["stride"]) == 1 and int(attrs["padding"]) == 0
    assert int(attrs["dilation"]) == 1 and int(attrs["groups"]) == 1
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 float(attrs["divide_by"]), float(attrs["eps"]))
