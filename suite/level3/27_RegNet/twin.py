"""twin.py — level3/27_RegNet as a PyTorch module (KernelBench's Model; state_dict keys as
KernelBench names them: feature_extractor.<stage>.<index in its Sequential>). BatchNorm layers
use track_running_stats=False: KernelBench runs them in training mode (batch statistics) and the
running buffers never affect the output."""
import torch
import torch.nn as nn

WIDTHS = [64, 128, 256]


def stage(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout, track_running_stats=False),
        nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout, track_running_stats=False),
        nn.ReLU(), nn.MaxPool2d(2, stride=2))


class Model(nn.Module):
    def __init__(self, input_channels, output_classes):
        super().__init__()
        chans = [input_channels] + WIDTHS
        self.feature_extractor = nn.Sequential(
            *[stage(chans[i], chans[i + 1]) for i in range(len(WIDTHS))])
        self.fc = nn.Linear(WIDTHS[-1], output_classes)

    def forward(self, x):
        return self.fc(torch.mean(self.feature_extractor(x), dim=[2, 3]))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["input_channels"]), int(dims["output_classes"]))
