"""twin.py — level2/96_ConvTranspose3d_Multiply_Max_GlobalAvgPool_Clamp as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scale,
                 maxpool_kernel_size):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.scale = scale
        self.maxpool = nn.MaxPool3d(kernel_size=maxpool_kernel_size)
        self.global_avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))

    def forward(self, x):
        x = self.conv_transpose(x)
        x = x * self.scale
        x = self.maxpool(x)
        x = self.global_avg_pool(x)
        return torch.clamp(x, min=0, max=1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 int(attrs["stride"]), int(attrs["padding"]), float(attrs["scale"]),
                 int(attrs["maxpool_kernel_size"]))
