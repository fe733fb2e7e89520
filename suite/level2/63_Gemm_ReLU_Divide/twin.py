"""twin.py — level2/63_Gemm_ReLU_Divide as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, divisor):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.divisor = divisor

    def forward(self, x):
        x = self.linear(x)
        x = torch.relu(x)
        return x / self.divisor


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_features"]), int(attrs["out_features"]), float(attrs["divisor"]))
