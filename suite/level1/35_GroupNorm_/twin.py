"""twin.py — level1/35_GroupNorm_ as a PyTorch module (KernelBench's Model)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, num_groups: int, eps: float):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features, eps=eps)

    def forward(self, x):
        return self.gn(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["features"]), int(attrs["num_groups"]), float(attrs["eps"]))
