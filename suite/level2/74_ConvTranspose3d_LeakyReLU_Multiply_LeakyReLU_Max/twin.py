"""twin.py — level2/74_ConvTranspose3d_LeakyReLU_Multiply_LeakyReLU_Max as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 negative_slope, pool_kernel_size):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.multiplier = nn.Parameter(torch.randn(out_channels, 1, 1, 1))
        self.leaky_relu = nn.LeakyReLU(negative_slope=negative_slope)
        self.max_pool = nn.MaxPool3d(kernel_size=pool_kernel_size)

    def forward(self, x):
        x = self.conv_transpose(x)
        x = self.leaky_relu(x)
        x = x * self.multiplier
        x = self.leaky_relu(x)
        return self.max_pool(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = attrs
    return Model(int(a["in_channels"]), int(a["out_channels"]), int(a["kernel_size"]),
                 int(a["stride"]), int(a["padding"]), int(a["output_padding"]),
                 float(a["negative_slope"]), int(a["pool_kernel_size"]))
