"""twin.py — level2/95_Matmul_Add_Swish_Tanh_GELU_Hardtanh as a PyTorch module (KernelBench's
Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.add_value = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        x = self.matmul(x)
        x = x + self.add_value
        x = torch.sigmoid(x) * x
        x = torch.tanh(x)
        x = torch.nn.functional.gelu(x)
        return torch.nn.functional.hardtanh(x, min_val=-1, max_val=1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"])
