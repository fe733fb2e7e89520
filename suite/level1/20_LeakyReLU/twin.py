"""twin.py — level1/20_LeakyReLU as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, negative_slope: float):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(float(attrs["negative_slope"]))
