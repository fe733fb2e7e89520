"""twin.py — level1/88_MinGPTNewGelu as a PyTorch module (KernelBench's Model)."""
import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model()
