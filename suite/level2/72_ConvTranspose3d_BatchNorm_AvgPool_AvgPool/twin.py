"""twin.py — level2/72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool as a PyTorch module
(KernelBench's Model). BatchNorm3d with track_running_stats=False gives the training-mode
output (batch statistics) in any mode and leaves the running buffers out of the state_dict."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 eps, pool_kernel_size):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.batch_norm = nn.BatchNorm3d(out_channels, eps=eps, track_running_stats=False)
        self.avg_pool1 = nn.AvgPool3d(kernel_size=pool_kernel_size)
        self.avg_pool2 = nn.AvgPool3d(kernel_size=pool_kernel_size)

    def forward(self, x):
        x = self.conv_transpose(x)
        x = self.batch_norm(x)
        x = self.avg_pool1(x)
        return self.avg_pool2(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = attrs
    return Model(int(a["in_channels"]), int(a["out_channels"]), int(a["kernel_size"]),
                 int(a["stride"]), int(a["padding"]), int(a["output_padding"]),
                 float(a["eps"]), int(a["pool_kernel_size"]))
