"""twin.py — level3/21_EfficientNetMBConv as a PyTorch module (KernelBench's Model: one MBConv
block; state_dict keys as KernelBench names them). BatchNorm layers use
track_running_stats=False: KernelBench runs them in training mode (batch statistics) and the
running buffers never affect the output."""
import torch.nn as nn


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


class Model(nn.Module):
    def __init__(self, cin, cout, k, stride, expand):
        super().__init__()
        hid = cin * expand
        self.use_residual = stride == 1 and cin == cout
        if expand != 1:
            self.expand_conv = nn.Sequential(nn.Conv2d(cin, hid, 1, bias=False), bn(hid),
                                             nn.ReLU6())
        self.depthwise_conv = nn.Sequential(
            nn.Conv2d(hid, hid, k, stride=stride, padding=(k - 1) // 2, groups=hid, bias=False),
            bn(hid), nn.ReLU6())
        self.project_conv = nn.Sequential(nn.Conv2d(hid, cout, 1, bias=False), bn(cout))

    def forward(self, x):
        y = self.expand_conv(x) if hasattr(self, "expand_conv") else x
        y = self.project_conv(self.depthwise_conv(y))
        return y + x if self.use_residual else y


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["in_channels"]), int(dims["out_channels"]), int(dims["kernel_size"]),
                 int(dims["stride"]), int(dims["expand_ratio"]))
