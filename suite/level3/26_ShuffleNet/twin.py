"""twin.py — level3/26_ShuffleNet as a PyTorch module (KernelBench's Model; state_dict keys as
KernelBench names them: stageN.<unit>.*). BatchNorm layers use track_running_stats=False:
KernelBench runs them in training mode (batch statistics) and the running buffers never affect
the output."""
import torch.nn as nn
import torch.nn.functional as F

REPEATS = [3, 7, 3]
WIDTHS = [24, 240, 480, 960]
GROUPS = 3


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


class ShuffleNetUnit(nn.Module):
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
        y = self.bn2(self.conv2(y))
        n, c, h, w = y.shape
        y = y.view(n, self.groups, c // self.groups, h, w).transpose(1, 2).reshape(n, c, h, w)
        y = F.relu(self.bn3(self.conv3(y)))
        return y + self.shortcut(x)


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, WIDTHS[0], 3, stride=2, padding=1, bias=False)
        self.bn1 = bn(WIDTHS[0])
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        for s, reps in enumerate(REPEATS):
            cin, cout = WIDTHS[s], WIDTHS[s + 1]
            units = [ShuffleNetUnit(cin if i == 0 else cout, cout, GROUPS) for i in range(reps)]
            setattr(self, f"stage{s + 2}", nn.Sequential(*units))
        self.conv5 = nn.Conv2d(WIDTHS[-1], 1024, 1, bias=False)
        self.bn5 = bn(1024)
        self.fc = nn.Linear(1024, num_classes)

    def forward(self, x):
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.stage4(self.stage3(self.stage2(x)))
        x = F.relu(self.bn5(self.conv5(x)))
        return self.fc(F.adaptive_avg_pool2d(x, (1, 1)).flatten(1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
