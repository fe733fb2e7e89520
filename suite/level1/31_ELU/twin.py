"""twin.py — level1/31_ELU as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return torch.nn.functional.elu(x, alpha=self.alpha)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(float(attrs["alpha"]))
