"""twin.py — level2/22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish as a PyTorch module
(KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, scale_factor, clamp_min, clamp_max):
        super().__init__()
        self.matmul = nn.Linear(input_size, hidden_size)
        self.scale_factor = scale_factor
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        x = self.matmul(x)
        x = x * self.scale_factor
        x = x + x
        x = torch.clamp(x, self.clamp_min, self.clamp_max)
        x = torch.logsumexp(x, dim=1, keepdim=True)
        x = x * torch.nn.functional.mish(x)
        return x


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["input_size"], dims["hidden_size"], float(attrs["scale_factor"]),
                 float(attrs["clamp_min"]), float(attrs["clamp_max"]))
