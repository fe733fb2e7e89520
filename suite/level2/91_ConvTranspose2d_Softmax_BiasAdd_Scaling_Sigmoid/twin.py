"""twin.py — level2/91_ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 bias_shape, scaling_factor):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.softmax(x, dim=1)
        x = x + self.bias
        x = x * self.scaling_factor
        x = torch.sigmoid(x)
        return x


def make(dims: dict, attrs: dict) -> nn.Module:
    a = attrs
    c = int(a["out_channels"])
    return Model(int(a["in_channels"]), c, int(a["kernel_size"]), int(a["stride"]),
                 int(a["padding"]), int(a["output_padding"]), (c, 1, 1), float(a["scaling_factor"]))
