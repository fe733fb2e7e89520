"""twin.py — level3/9_ResNet18 as a PyTorch module (KernelBench's Model, same state_dict names):
ResNet-18 with basic blocks [2, 2, 2, 2]; BatchNorm on batch statistics (track_running_stats=
False: KernelBench's training-mode output, no running buffers)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = bn(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = bn(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                            bn(cout))

    def forward(self, x):
        out = self.bn2(self.conv2(self.bn1(self.conv1(x)).relu()))
        return (out + (self.downsample(x) if self.downsample is not None else x)).relu()


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = bn(64)
        cin = 64
        for i, (cout, stride) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)]):
            setattr(self, f"layer{i + 1}", nn.Sequential(Block(cin, cout, stride),
                                                         Block(cout, cout, 1)))
            cin = cout
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = F.max_pool2d(self.bn1(self.conv1(x)).relu(), 3, 2, 1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
