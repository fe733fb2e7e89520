"""twin.py — level2/2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 scaling_factor):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.conv_transpose(x)
        x = x + self.bias
        x = torch.clamp(x, min=0.0, max=1.0)
        x = x * self.scaling_factor
        x = torch.clamp(x, min=0.0, max=1.0)
        return x / self.scaling_factor


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(attrs[k]) for k in ("in_channels", "out_channels", "kernel_size", "stride",
                                    "padding", "output_padding")}
    return Model(a["in_channels"], a["out_channels"], a["kernel_size"], a["stride"], a["padding"],
                 a["output_padding"], float(attrs["scaling_factor"]))
