"""twin.py — level2/70_Gemm_Sigmoid_Scaling_ResidualAdd as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.gemm = nn.Linear(input_size, hidden_size)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.gemm(x)
        original_x = x
        x = torch.sigmoid(x)
        x = x * self.scaling_factor
        return x + original_x


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["input_size"]), int(attrs["hidden_size"]), float(attrs["scaling_factor"]))
