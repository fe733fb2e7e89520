"""twin.py — level1/84_conv_depthwise_2D_asymmetric_input_square_kernel as a PyTorch module
(KernelBench's Model: nn.Conv2d with bias=False, attribute `conv2d`)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                                padding=padding, dilation=dilation, groups=groups, bias=False)

    def forward(self, x):
        return self.conv2d(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(v) for k, v in attrs.items()}
    return Model(a["in_channels"], a["out_channels"], (a["kernel_size"], a["kernel_size"]),
                 (a["stride"], a["stride"]), (a["padding"], a["padding"]), (a["dilation"], a["dilation"]), a["groups"])
