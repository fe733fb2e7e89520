"""twin.py — level1/70_conv_transposed_3D__asymmetric_input__square_kernel as a PyTorch
module (KernelBench's Model: nn.ConvTranspose3d with bias=False, held as self.conv_transpose3d)."""
import torch.nn as nn

AXES = ['d', 'h', 'w']


def axis_attr(attrs, base, i):
    """attr base_<axis> for spatial axis i, else base (as the C reference reads them)."""
    return int(attrs.get(f"{base}_{AXES[i]}", attrs.get(base)))


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel, stride, padding, output_padding,
                 dilation, groups):
        super().__init__()
        self.conv_transpose3d = nn.ConvTranspose3d(
            in_channels, out_channels, kernel, stride=stride, padding=padding,
            output_padding=output_padding, dilation=dilation, groups=groups, bias=False)

    def forward(self, x):
        return self.conv_transpose3d(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    nd = len(AXES)
    per = {b: tuple(axis_attr(attrs, b, i) for i in range(nd))
           for b in ("kernel", "stride", "padding", "output_padding", "dilation")}
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), per["kernel"],
                 per["stride"], per["padding"], per["output_padding"], per["dilation"],
                 int(attrs["groups"]))
