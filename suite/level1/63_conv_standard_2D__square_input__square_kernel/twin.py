"""twin.py — level1/63_conv_standard_2D__square_input__square_kernel as a PyTorch module
(KernelBench's Model: nn.Conv2d with bias=False)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, (kernel_size, kernel_size),
                                stride=stride, padding=padding, dilation=dilation, groups=groups,
                                bias=False)

    def forward(self, x):
        return self.conv2d(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(v) for k, v in attrs.items()}
    return Model(a["in_channels"], a["out_channels"], a["kernel_size"], a["stride"],
                 a["padding"], a["dilation"], a["groups"])
