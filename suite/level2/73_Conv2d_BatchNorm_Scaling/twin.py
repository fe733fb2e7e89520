"""twin.py — level2/73_Conv2d_BatchNorm_Scaling as a PyTorch module (KernelBench's Model).

KernelBench's BatchNorm2d runs in training mode, so its output uses the batch statistics;
track_running_stats=False gives that output in any mode (twin checks call eval()) and leaves the
running buffers, which never affect the output, out of the state_dict."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, eps, scaling_factor):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps, track_running_stats=False)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return x * self.scaling_factor


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 float(attrs["eps"]), float(attrs["scaling_factor"]))
