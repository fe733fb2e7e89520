"""twin.py — level1/76_conv_standard_1D_dilated_strided__ as a PyTorch module
(KernelBench's Model: nn.Conv1d with bias=False, attribute `conv1d`)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv1d = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride,
                                padding=padding, dilation=dilation, groups=groups, bias=False)

    def forward(self, x):
        return self.conv1d(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(v) for k, v in attrs.items()}
    return Model(a["in_channels"], a["out_channels"], (a["kernel_size"],),
                 (a["stride"],), (a["padding"],), (a["dilation"],), a["groups"])
