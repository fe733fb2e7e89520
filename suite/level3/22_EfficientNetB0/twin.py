"""twin.py — level3/22_EfficientNetB0 as a PyTorch module (KernelBench's Model; state_dict keys
as KernelBench names them). BatchNorm layers use track_running_stats=False: KernelBench runs them
in training mode (batch statistics) and the running buffers never affect the output."""
import torch.nn as nn
import torch.nn.functional as F

# (in, out, kernel, stride, expand) per MBConv block, KernelBench's table
BLOCKS = [(32, 16, 3, 1, 1), (16, 24, 3, 2, 6), (24, 24, 3, 1, 6), (24, 40, 5, 2, 6),
          (40, 40, 5, 1, 6), (40, 80, 3, 2, 6), (80, 80, 3, 1, 6), (80, 112, 5, 1, 6),
          (112, 112, 5, 1, 6), (112, 192, 5, 2, 6), (192, 192, 5, 1, 6), (192, 192, 5, 1, 6),
          (192, 320, 3, 1, 6)]


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


class MBConv(nn.Module):
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


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False)
        self.bn1 = bn(32)
        self.blocks = nn.Sequential(*[MBConv(*b) for b in BLOCKS])
        self.conv2 = nn.Conv2d(320, 1280, 1, bias=False)
        self.bn2 = bn(1280)
        self.fc = nn.Linear(1280, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.blocks(x)
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.fc(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
