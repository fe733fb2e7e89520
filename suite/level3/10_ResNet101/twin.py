"""twin.py — level3/10_ResNet101 as a PyTorch module (KernelBench's Model, same state_dict names):
ResNet-101 with bottleneck blocks [3, 4, 23, 3] (expansion 4, stride on the 3x3 conv);
BatchNorm on batch statistics (track_running_stats=False: KernelBench's training-mode output,
no running buffers)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = bn(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = bn(width)
        self.conv3 = nn.Conv2d(width, 4 * width, 1, bias=False)
        self.bn3 = bn(4 * width)
        self.downsample = None
        if stride != 1 or cin != 4 * width:
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, 4 * width, 1, stride=stride, bias=False), bn(4 * width))

    def forward(self, x):
        out = self.bn1(self.conv1(x)).relu()
        out = self.bn2(self.conv2(out)).relu()
        out = self.bn3(self.conv3(out))
        return (out + (self.downsample(x) if self.downsample is not None else x)).relu()


class Model(nn.Module):
    def __init__(self, layers, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = bn(64)
        cin = 64
        for i, (blocks, width) in enumerate(zip(layers, [64, 128, 256, 512])):
            mods = []
            for j in range(blocks):
                mods.append(Bottleneck(cin, width, 2 if i > 0 and j == 0 else 1))
                cin = 4 * width
            setattr(self, f"layer{i + 1}", nn.Sequential(*mods))
        self.fc = nn.Linear(2048, num_classes)

    def forward(self, x):
        x = F.max_pool2d(self.bn1(self.conv1(x)).relu(), 3, 2, 1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model([3, 4, 23, 3], int(dims["num_classes"]))
