"""twin.py — level1/44_Average_Pooling_1D as a PyTorch module (KernelBench's Model: nn.AvgPool1d)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size, stride, padding, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding,
                                 ceil_mode=ceil_mode, count_include_pad=count_include_pad)

    def forward(self, x):
        return self.pool(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(v) for k, v in attrs.items()}
    return Model(a["kernel_size"], a["stride"], a["padding"], bool(a["ceil_mode"]),
                 bool(a["count_include_pad"]))
