"""twin.py — level2/7_Conv3d_ReLU_LeakyReLU_GELU_Sigmoid_BiasAdd as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, negative_slope):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1, 1))
        self.negative_slope = negative_slope

    def forward(self, x):
        x = self.conv(x)
        x = torch.relu(x)
        x = torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)
        x = torch.nn.functional.gelu(x)
        x = torch.sigmoid(x)
        return x + self.bias


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 float(attrs["negative_slope"]))
