"""twin.py — level2/56_Matmul_Sigmoid_Sum as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        x = self.linear(x)
        x = torch.sigmoid(x)
        return torch.sum(x, dim=1, keepdim=True)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["input_size"]), int(attrs["hidden_size"]))
