"""twin.py — level2/26_ConvTranspose3d_Add_HardSwish as a PyTorch module (KernelBench's Model;
its `bias` parameter is unused by forward but kept so the state_dict matches)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1, 1, 1))

    def forward(self, x, add_input):
        x = self.conv_transpose(x)
        x = x + add_input
        return x * torch.nn.functional.hardswish(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(v) for k, v in attrs.items()}
    return Model(a["in_channels"], a["out_channels"], a["kernel_size"], a["stride"], a["padding"],
                 a["output_padding"])
