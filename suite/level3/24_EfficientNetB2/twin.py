"""twin.py — level3/24_EfficientNetB2 as a PyTorch module (KernelBench's Model; state_dict keys
as KernelBench names them: mbconvN.<index in its Sequential>). BatchNorm layers use
track_running_stats=False: KernelBench runs them in training mode (batch statistics) and the
running buffers never affect the output."""
import torch.nn as nn
import torch.nn.functional as F

# (in, out, stride, expand) of mbconv1..5; every block has the 1x1 expand conv (expand != 1),
# a 3x3 depthwise conv, KernelBench's "squeeze and excitation" (pool, two 1x1 convs, sigmoid;
# its result is never multiplied back, so the block continues from 1x1) and the 1x1 project
BLOCKS = [(32, 96, 1, 3), (96, 144, 2, 6), (144, 192, 2, 6), (192, 288, 2, 6), (288, 384, 1, 6)]


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


def mbconv(cin, cout, stride, expand):
    hid = cin * expand
    return nn.Sequential(
        nn.Conv2d(cin, hid, 1, bias=False), bn(hid), nn.ReLU(),
        nn.Conv2d(hid, hid, 3, stride=stride, padding=1, groups=hid, bias=False), bn(hid),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d((1, 1)),
        nn.Conv2d(hid, hid // 4, 1, bias=False), nn.ReLU(),
        nn.Conv2d(hid // 4, hid, 1, bias=False), nn.Sigmoid(),
        nn.Conv2d(hid, cout, 1, bias=False), bn(cout))


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False)
        self.bn1 = bn(32)
        for i, b in enumerate(BLOCKS):
            setattr(self, f"mbconv{i + 1}", mbconv(*b))
        self.conv_final = nn.Conv2d(384, 1408, 1, bias=False)
        self.bn_final = bn(1408)
        self.fc = nn.Linear(1408, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        for i in range(len(BLOCKS)):
            x = getattr(self, f"mbconv{i + 1}")(x)
        x = F.relu(self.bn_final(self.conv_final(x)))
        x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.fc(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
