"""twin.py — level1/100_HingeLoss as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0)).reshape(1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model()
