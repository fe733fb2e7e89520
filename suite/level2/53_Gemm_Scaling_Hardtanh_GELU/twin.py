"""twin.py — level2/53_Gemm_Scaling_Hardtanh_GELU as a PyTorch module (KernelBench's Model)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor, hardtanh_min, hardtanh_max):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)
        self.gelu = nn.GELU()

    def forward(self, x):
        x = self.gemm(x)
        x = x * self.scaling_factor
        x = self.hardtanh(x)
        return self.gelu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_features"]), int(attrs["out_features"]), attrs["scaling_factor"],
                 attrs["hardtanh_min"], attrs["hardtanh_max"])
