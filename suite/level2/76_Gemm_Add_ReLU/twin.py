"""twin.py — level2/76_Gemm_Add_ReLU as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        x = self.gemm(x)
        x = x + self.bias
        return torch.relu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"])
