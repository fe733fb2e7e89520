"""twin.py — level3/20_MobileNetV2 as a PyTorch module (KernelBench's Model). As in
KernelBench, the inverted-residual blocks are plain nn.Sequential chains: the model builds
use_res_connect but appends only the block, so no residual add is ever applied. BatchNorm2d
with track_running_stats=False (training-mode batch statistics, no running buffers)."""
import torch.nn as nn

# t, c, n, s (every c is already a multiple of 8, so _make_divisible leaves it unchanged)
SETTING = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
           (6, 160, 3, 2), (6, 320, 1, 1)]


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


def block(inp, oup, stride, t):
    hid = inp * t
    layers = []
    if t != 1:
        layers += [nn.Conv2d(inp, hid, 1, 1, 0, bias=False), bn(hid), nn.ReLU6(inplace=True)]
    layers += [nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False), bn(hid),
               nn.ReLU6(inplace=True),
               nn.Conv2d(hid, oup, 1, 1, 0, bias=False), bn(oup)]
    return nn.Sequential(*layers)


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        feats = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), bn(32), nn.ReLU6(inplace=True)]
        cin = 32
        for t, c, n, s in SETTING:
            for i in range(n):
                feats.append(block(cin, c, s if i == 0 else 1, t))
                cin = c
        feats += [nn.Conv2d(cin, 1280, 1, 1, 0, bias=False), bn(1280), nn.ReLU6(inplace=True),
                  nn.AdaptiveAvgPool2d((1, 1))]
        self.features = nn.Sequential(*feats)
        self.classifier = nn.Sequential(nn.Dropout(0.0), nn.Linear(1280, num_classes))

    def forward(self, x):
        x = self.features(x)
        return self.classifier(x.view(x.size(0), -1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
