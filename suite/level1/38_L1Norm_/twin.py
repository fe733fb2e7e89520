"""twin.py — level1/38_L1Norm_ as a PyTorch module (KernelBench HEAD's Model: mean, not sum)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x / torch.mean(torch.abs(x), dim=1, keepdim=True)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model()
