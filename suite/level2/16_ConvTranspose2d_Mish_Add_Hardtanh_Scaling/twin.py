"""twin.py — level2/16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 add_value, scale):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride,
                                                 padding, output_padding)
        self.add_value = add_value
        self.scale = scale

    def forward(self, x):
        x = self.conv_transpose(x)
        x = torch.nn.functional.mish(x)
        x = x + self.add_value
        x = torch.nn.functional.hardtanh(x, min_val=-1, max_val=1)
        return x * self.scale


def make(dims: dict, attrs: dict) -> nn.Module:
    a = {k: int(attrs[k]) for k in ("in_channels", "out_channels", "kernel_size", "stride",
                                    "padding", "output_padding")}
    return Model(a["in_channels"], a["out_channels"], a["kernel_size"], a["stride"], a["padding"],
                 a["output_padding"], float(attrs["add_value"]), float(attrs["scale"]))
