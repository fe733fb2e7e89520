"""twin.py — level2/59_Matmul_Swish_Scaling as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.matmul(x)
        x = x * torch.sigmoid(x)
        return x * self.scaling_factor


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_features"]), int(attrs["out_features"]), attrs["scaling_factor"])
