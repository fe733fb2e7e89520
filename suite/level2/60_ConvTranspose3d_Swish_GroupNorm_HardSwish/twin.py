"""twin.py — level2/60_ConvTranspose3d_Swish_GroupNorm_HardSwish as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, groups, eps,
                 bias=True):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding, bias=bias)
        self.group_norm = nn.GroupNorm(num_groups=groups, num_channels=out_channels, eps=eps)

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.sigmoid(x) * x
        x = self.group_norm(x)
        return F.hardswish(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = attrs
    return Model(int(a["in_channels"]), int(a["out_channels"]), int(a["kernel_size"]),
                 int(a["stride"]), int(a["padding"]), int(a["groups"]), a["eps"])
