"""twin.py — level3/25_ShuffleNetUnit as a PyTorch module (KernelBench's Model; state_dict keys
as KernelBench names them). BatchNorm layers use track_running_stats=False: KernelBench runs them
in training mode (batch statistics) and the running buffers never affect the output."""
import torch.nn as nn
import torch.nn.functional as F


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


def channel_shuffle(x, g):
    n, c, h, w = x.shape
    return x.view(n, g, c // g, h, w).transpose(1, 2).reshape(n, c, h, w)


class Model(nn.Module):
    def __init__(self, cin, cout, groups):
        super().__init__()
        mid = cout // 4
        self.groups = groups
        self.conv1 = nn.Conv2d(cin, mid, 1, groups=groups, bias=False)
        self.bn1 = bn(mid)
        self.conv2 = nn.Conv2d(mid, mid, 3, padding=1, groups=mid, bias=False)
        self.bn2 = bn(mid)
        self.conv3 = nn.Conv2d(mid, cout, 1, groups=groups, bias=False)
        self.bn3 = bn(cout)
        self.shortcut = (nn.Sequential() if cin == cout else
                         nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), bn(cout)))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = channel_shuffle(self.bn2(self.conv2(y)), self.groups)
        y = F.relu(self.bn3(self.conv3(y)))
        return y + self.shortcut(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["in_channels"]), int(dims["out_channels"]), int(dims["groups"]))
