"""twin.py — level1/34_InstanceNorm as a PyTorch module (KernelBench's Model)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, eps: float):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features=num_features, eps=eps)

    def forward(self, x):
        return self.inorm(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["features"]), float(attrs["eps"]))
