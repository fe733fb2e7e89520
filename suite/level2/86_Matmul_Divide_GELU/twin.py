"""twin.py — level2/86_Matmul_Divide_GELU as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, output_size, divisor):
        super().__init__()
        self.linear = nn.Linear(input_size, output_size)
        self.divisor = divisor

    def forward(self, x):
        x = self.linear(x)
        x = x / self.divisor
        return torch.nn.functional.gelu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["input_size"], dims["output_size"], float(attrs["divisor"]))
