"""twin.py — level2/99_Matmul_GELU_Softmax as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = self.linear(x)
        x = torch.nn.functional.gelu(x)
        return torch.softmax(x, dim=1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"])
