"""twin.py — level2/3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 sum_weight, norm_shape, pool_kernel_size, eps):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.sum_weight = nn.Parameter(torch.tensor(sum_weight))
        self.norm = nn.LayerNorm(norm_shape, eps=eps)
        self.avg_pool = nn.AvgPool3d(kernel_size=pool_kernel_size)
        self.gelu = nn.GELU()

    def forward(self, x):
        x = self.conv_transpose(x)
        x = x + self.sum_weight
        x = self.norm(x)
        x = self.avg_pool(x)
        return self.gelu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = attrs
    c = int(a["out_channels"])
    return Model(int(a["in_channels"]), c, int(a["kernel_size"]), int(a["stride"]),
                 int(a["padding"]), int(a["output_padding"]), 1.0, (c,),
                 int(a["pool_kernel_size"]), float(a["eps"]))
