"""twin.py — level1/17_Matmul_with_transposed_B as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B.T)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model()
