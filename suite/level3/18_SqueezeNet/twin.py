"""twin.py — level3/18_SqueezeNet as a PyTorch module (KernelBench's Model, same state_dict
names): SqueezeNet 1.0 — conv 7x7/2, ReLU, max_pool(3, 2, ceil_mode), eight fire modules with
two more ceil-mode pools, then the classifier conv 1x1 + ReLU + global average; Dropout(0.0) is
a no-op and left out (the classifier conv keeps its Sequential index 1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Fire(nn.Module):
    def __init__(self, cin, squeeze, e1, e3):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, 1)
        self.expand1x1 = nn.Conv2d(squeeze, e1, 1)
        self.expand3x3 = nn.Conv2d(squeeze, e3, 3, padding=1)

    def forward(self, x):
        x = self.squeeze(x).relu()
        return torch.cat([self.expand1x1(x).relu(), self.expand3x3(x).relu()], 1)


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        pool = lambda: nn.MaxPool2d(3, 2, ceil_mode=True)
        self.features = nn.Sequential(
            nn.Conv2d(3, 96, 7, stride=2), nn.ReLU(), pool(),
            Fire(96, 16, 64, 64), Fire(128, 16, 64, 64), Fire(128, 32, 128, 128), pool(),
            Fire(256, 32, 128, 128), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
            Fire(384, 64, 256, 256), pool(), Fire(512, 64, 256, 256))
        self.classifier = nn.Sequential(nn.Identity(), nn.Conv2d(512, num_classes, 1), nn.ReLU())

    def forward(self, x):
        x = self.classifier(self.features(x))
        return torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]))
