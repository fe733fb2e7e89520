"""twin.py — level1/93_masked_cumsum as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x, mask):
        # the checker hands every input over as float; the task's mask is bool
        return torch.cumsum(x * mask.to(torch.bool), dim=self.dim)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["dim"]))
