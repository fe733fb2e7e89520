"""twin.py — level2/10_ConvTranspose2d_MaxPool_Hardtanh_Mean_Tanh as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, maxpool_kernel_size,
                 maxpool_stride, hardtanh_min, hardtanh_max):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.maxpool = nn.MaxPool2d(kernel_size=maxpool_kernel_size, stride=maxpool_stride)
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)

    def forward(self, x):
        x = self.conv_transpose(x)
        x = self.maxpool(x)
        x = self.hardtanh(x)
        x = torch.mean(x, dim=(2, 3), keepdim=True)
        return torch.tanh(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = attrs
    return Model(int(a["in_channels"]), int(a["out_channels"]), int(a["kernel_size"]),
                 int(a["stride"]), int(a["padding"]), int(a["maxpool_kernel_size"]),
                 int(a["maxpool_stride"]), float(a["hardtanh_min"]), float(a["hardtanh_max"]))
