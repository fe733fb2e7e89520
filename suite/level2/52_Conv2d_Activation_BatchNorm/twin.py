"""twin.py — level2/52_Conv2d_Activation_BatchNorm as a PyTorch module (KernelBench's Model,
training mode). track_running_stats=False gives the batch-statistics output in any mode (twin
checks call eval()) and keeps the running buffers, which never affect the output, out of the
state_dict."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, eps=1e-5, momentum=0.1):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps, momentum=momentum,
                                 track_running_stats=False)

    def forward(self, x):
        x = self.conv(x)
        x = torch.multiply(torch.tanh(torch.nn.functional.softplus(x)), x)
        return self.bn(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_channels"]), int(attrs["out_channels"]), int(attrs["kernel_size"]),
                 attrs["eps"], attrs["momentum"])
