"""twin.py — level2/55_Matmul_MaxPool_Sum_Scale as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, kernel_size, scale_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.max_pool = nn.MaxPool1d(kernel_size=kernel_size)
        self.scale_factor = scale_factor

    def forward(self, x):
        x = self.matmul(x)
        x = self.max_pool(x.unsqueeze(1)).squeeze(1)
        x = torch.sum(x, dim=1)
        return x * self.scale_factor


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_features"]), int(attrs["out_features"]), int(attrs["kernel_size"]),
                 attrs["scale_factor"])
