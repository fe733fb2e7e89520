"""twin.py — level1/18_Matmul_with_transposed_both as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A.T, B.T)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model()
