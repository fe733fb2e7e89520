"""twin.py — level3/23_EfficientNetB1 as a PyTorch module (KernelBench's Model; state_dict keys
as KernelBench names them: mbconvN.<index in its Sequential>). BatchNorm layers use
track_running_stats=False: KernelBench runs them in training mode (batch statistics) and the
running buffers never affect the output."""
import torch.nn as nn
import torch.nn.functional as F

# (in, out, stride, expand) of mbconv1..7; every block has the 1x1 expand conv (even at
# expand 1), a 3x3 depthwise conv and no residual
BLOCKS = [(32, 16, 1, 1), (16, 24, 2, 6), (24, 40, 2, 6), (40, 80, 2, 6), (80, 112, 1, 6),
          (112, 192, 2, 6), (192, 320, 1, 6)]


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


def mbconv(cin, cout, stride, expand):
    hid = round(cin * expand)
    return nn.Sequential(
        nn.Conv2d(cin, hid, 1, bias=False), bn(hid), nn.ReLU6(),
        nn.Conv2d(hid, hid, 3, stride=stride, padding=1, groups=hid, bias=False), bn(hid),
        nn.ReLU6(),
        nn.Conv2d(hid, cout, 1, bias=False), bn(cout))


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False)
        self.bn1 = bn(32)
        for i, b in enumerate(BLOCKS):
            setattr(self, f"mbconv{i + 1}", mbconv(*b))
        self.conv2 = nn.Conv2d(320, 1280, 1, bias=False)
        self.bn2 = bn(1280)
        self.fc = nn.Linear(1280, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        for i in range(len(BLOCKS)):
            x = getattr(self, f"mbconv{i + 1}")(x)
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.fc(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
