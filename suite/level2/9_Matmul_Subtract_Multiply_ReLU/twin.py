"""twin.py — level2/9_Matmul_Subtract_Multiply_ReLU as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x):
        x = self.linear(x)
        x = x - self.subtract_value
        x = x * self.multiply_value
        return torch.relu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_features"]), int(attrs["out_features"]),
                 float(attrs["subtract_value"]), float(attrs["multiply_value"]))
