import torch
import torch.nn as nn


class Model(nn.Module):
    """A convolution followed by BatchNorm (KernelBench's harness runs it in training mode)."""
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return self.bn(self.conv(x))


batch_size = 4
in_channels = 3
out_channels = 8
size = 16


def get_inputs():
    return [torch.randn(batch_size, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels]
