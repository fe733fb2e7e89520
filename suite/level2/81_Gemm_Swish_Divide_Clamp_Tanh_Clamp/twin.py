"""twin.py — level2/81_Gemm_Swish_Divide_Clamp_Tanh_Clamp as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = self.gemm(x)
        x = x * torch.sigmoid(x)
        x = x / 2.0
        x = torch.clamp(x, min=-1.0, max=1.0)
        x = torch.tanh(x)
        return torch.clamp(x, min=-1.0, max=1.0)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"])
