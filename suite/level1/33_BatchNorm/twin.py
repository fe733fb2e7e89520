"""twin.py — level1/33_BatchNorm as a PyTorch module (KernelBench's Model, training mode).

KernelBench's BatchNorm2d keeps running statistics and runs in training mode, so its output
uses the batch statistics. track_running_stats=False gives exactly that output in any mode
(twin checks call eval()) and leaves the running buffers, which never affect the output, out of
the state_dict."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, eps: float):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features, eps=eps, track_running_stats=False)

    def forward(self, x):
        return self.bn(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["features"]), float(attrs["eps"]))
