"""twin.py — level3/15_DenseNet121 as a PyTorch module (KernelBench's Model, same state_dict
names): DenseNet-121, growth rate 32, dense blocks [6, 12, 24, 16] of BatchNorm -> ReLU -> 3x3
conv layers on the running concatenation, transitions BatchNorm -> ReLU -> 1x1 conv (half the
channels) -> avg_pool(2, 2). BatchNorm on batch statistics (track_running_stats=False:
KernelBench's training-mode output, no running buffers); Dropout(0.0) is a no-op and left out."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BLOCKS = [6, 12, 24, 16]


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


class DenseBlock(nn.Module):
    def __init__(self, num_layers, c0, growth):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(bn(c0 + i * growth), nn.ReLU(),
                          nn.Conv2d(c0 + i * growth, growth, 3, padding=1, bias=False))
            for i in range(num_layers))

    def forward(self, x):
        feats = [x]
        for layer in self.layers:
            feats.append(layer(x))
            x = torch.cat(feats, 1)
        return x


class Transition(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.transition = nn.Sequential(bn(cin), nn.ReLU(), nn.Conv2d(cin, cout, 1, bias=False),
                                        nn.AvgPool2d(2, 2))

    def forward(self, x):
        return self.transition(x)


class Model(nn.Module):
    def __init__(self, growth, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), bn(64),
                                      nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.dense_blocks = nn.ModuleList()
        self.transition_layers = nn.ModuleList()
        c = 64
        for i, n in enumerate(BLOCKS):
            self.dense_blocks.append(DenseBlock(n, c, growth))
            c += n * growth
            if i < len(BLOCKS) - 1:
                self.transition_layers.append(Transition(c, c // 2))
                c //= 2
        self.final_bn = bn(c)
        self.classifier = nn.Linear(c, num_classes)

    def forward(self, x):
        x = self.features(x)
        for i, block in enumerate(self.dense_blocks):
            x = block(x)
            if i < len(self.transition_layers):
                x = self.transition_layers[i](x)
        x = F.adaptive_avg_pool2d(self.final_bn(x).relu(), 1)
        return self.classifier(torch.flatten(x, 1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(32, int(dims["num_classes"]))
