"""twin.py — level1/5_Matrix_scalar_multiplication as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, s: float):
        super().__init__()
        self.s = s

    def forward(self, A):
        return A * self.s


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(float(attrs["s"]))
