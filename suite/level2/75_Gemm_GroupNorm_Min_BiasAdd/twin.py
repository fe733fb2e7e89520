"""twin.py — level2/75_Gemm_GroupNorm_Min_BiasAdd as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups, bias_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        x = torch.min(x, dim=1, keepdim=True)[0]
        x = x + self.bias
        return x


def make(dims: dict, attrs: dict) -> nn.Module:
    n = dims["out_features"]
    return Model(dims["in_features"], n, int(attrs["num_groups"]), (1, n, 1, 1))
