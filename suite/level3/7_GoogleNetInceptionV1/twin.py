"""twin.py — level3/7_GoogleNetInceptionV1 as a PyTorch module (KernelBench's Model, same
state_dict names): GoogLeNet without BatchNorm or auxiliary heads; each inception module
concatenates a 1x1 branch, 1x1 -> 3x3, 1x1 -> 5x5 and maxpool(3, 1, 1) -> 1x1 (no ReLU inside
the modules, as KernelBench); Dropout(0.0) is a no-op and left out."""
import torch
import torch.nn as nn
import torch.nn.functional as F

# in, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool proj
INCEPTION = {
    "3a": (192, 64, 96, 128, 16, 32, 32), "3b": (256, 128, 128, 192, 32, 96, 64),
    "4a": (480, 192, 96, 208, 16, 48, 64), "4b": (512, 160, 112, 224, 24, 64, 64),
    "4c": (512, 128, 128, 256, 24, 64, 64), "4d": (512, 112, 144, 288, 32, 64, 64),
    "4e": (528, 256, 160, 320, 32, 128, 128), "5a": (832, 256, 160, 320, 32, 128, 128),
    "5b": (832, 384, 192, 384, 48, 128, 128),
}


class Inception(nn.Module):
    def __init__(self, cin, c1, r3, c3, r5, c5, cp):
        super().__init__()
        self.branch1x1 = nn.Conv2d(cin, c1, 1)
        self.branch3x3 = nn.Sequential(nn.Conv2d(cin, r3, 1), nn.Conv2d(r3, c3, 3, padding=1))
        self.branch5x5 = nn.Sequential(nn.Conv2d(cin, r5, 1), nn.Conv2d(r5, c5, 5, padding=2))
        self.branch_pool = nn.Sequential(nn.MaxPool2d(3, 1, 1), nn.Conv2d(cin, cp, 1))

    def forward(self, x):
        return torch.cat([self.branch1x1(x), self.branch3x3(x), self.branch5x5(x),
                          self.branch_pool(x)], 1)


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3)
        self.conv2 = nn.Conv2d(64, 64, 1)
        self.conv3 = nn.Conv2d(64, 192, 3, padding=1)
        for k, spec in INCEPTION.items():
            setattr(self, "inception" + k, Inception(*spec))
        self.fc = nn.Linear(1024, num_classes)

    def forward(self, x):
        pool = lambda t: F.max_pool2d(t, 3, 2, 1)
        x = pool(self.conv1(x).relu())
        x = self.conv2(x).relu()
        x = pool(self.conv3(x).relu())
        for k in INCEPTION:
            x = getattr(self, "inception" + k)(x)
            if k in ("3b", "4e"):
                x = pool(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
