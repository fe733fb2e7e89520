"""twin.py — level3/8_ResNetBasicBlock as a PyTorch module (KernelBench's Model): a ResNet basic
block whose shortcut is always a 1x1 conv + BatchNorm projection. BatchNorm runs on batch
statistics (track_running_stats=False: KernelBench's training-mode output, no running buffers)."""
import torch.nn as nn


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


class Model(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = bn(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = bn(cout)
        self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                        bn(cout))

    def forward(self, x):
        out = self.bn1(self.conv1(x)).relu()
        out = self.bn2(self.conv2(out))
        return (out + self.downsample(x)).relu()


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["in_channels"]), int(dims["out_channels"]), int(attrs["stride"]))
