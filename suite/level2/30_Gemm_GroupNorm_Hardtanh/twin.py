"""twin.py — level2/30_Gemm_GroupNorm_Hardtanh as a PyTorch module (KernelBench's Model)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups, hardtanh_min, hardtanh_max, eps):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features, eps=eps)
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        return self.hardtanh(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"], int(attrs["num_groups"]),
                 float(attrs["hardtanh_min"]), float(attrs["hardtanh_max"]), float(attrs["eps"]))
