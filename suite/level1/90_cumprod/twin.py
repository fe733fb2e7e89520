"""twin.py — level1/90_cumprod as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumprod(x, dim=self.dim)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["dim"]))
