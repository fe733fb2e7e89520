"""twin.py — level2/11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm as a PyTorch module
(KernelBench's Model, training-mode BatchNorm without running buffers)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, num_groups, eps):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.batch_norm = nn.BatchNorm2d(out_channels, eps=eps, track_running_stats=False)
        self.tanh = nn.Tanh()
        self.max_pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.group_norm = nn.GroupNorm(num_groups=num_groups, num_channels=out_channels, eps=eps)

    def forward(self, x):
        x = self.conv_transpose(x)
        x = self.batch_norm(x)
        x = self.tanh(x)
        x = self.max_pool(x)
        return self.group_norm(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    a = attrs
    return Model(int(a["in_channels"]), int(a["out_channels"]), int(a["kernel_size"]),
                 int(a["stride"]), int(a["padding"]), int(a["num_groups"]), float(a["eps"]))
