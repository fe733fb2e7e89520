"""twin.py — level2/19_ConvTranspose2d_GELU_GroupNorm as a PyTorch module (KernelBench's Model;
its `groups` argument is unused there: the transposed conv has groups 1)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, num_groups, eps):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride)
        self.group_norm = nn.GroupNorm(num_groups=num_groups, num_channels=out_channels, eps=eps)

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.nn.functional.gelu(x)
        return self.group_norm(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 int(attrs["stride"]), int(attrs["num_groups"]), float(attrs["eps"]))
