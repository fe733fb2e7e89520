"""twin.py — level1/53_Min_reduction_over_a_dimension as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.min(x, dim=self.dim)[0]


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["dim"]))
