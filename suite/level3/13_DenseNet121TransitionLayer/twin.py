"""twin.py — level3/13_DenseNet121TransitionLayer as a PyTorch module (KernelBench's Model):
BatchNorm (batch statistics, track_running_stats=False), ReLU, 1x1 conv without bias, 2x2 average
pool with stride 2."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.transition = nn.Sequential(
            nn.BatchNorm2d(cin, track_running_stats=False), nn.ReLU(),
            nn.Conv2d(cin, cout, 1, bias=False), nn.AvgPool2d(2, 2))

    def forward(self, x):
        return self.transition(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_input_features"]), int(dims["num_output_features"]))
