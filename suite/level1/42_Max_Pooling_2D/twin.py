"""twin.py — level1/42_Max_Pooling_2D as a PyTorch module (KernelBench's Model: nn.MaxPool2d)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size, stride, padding, dilation, ceil_mode=False):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding,
                                 dilation=dilation, return_indices=False, ceil_mode=ceil_mode)

    def forward(self, x):
        return self.pool(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(v) for k, v in attrs.items()}
    return Model(a["kernel_size"], a["stride"], a["padding"], a["dilation"], bool(a["ceil_mode"]))
