"""twin.py — level2/45_Gemm_Sigmoid_LogSumExp as a PyTorch module (KernelBench HEAD's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.linear1 = nn.Linear(input_size, hidden_size)
        self.linear2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = self.linear1(x)
        x = torch.sigmoid(x)
        x = self.linear2(x)
        return torch.logsumexp(x, dim=1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["input_size"], dims["hidden_size"], dims["output_size"])
