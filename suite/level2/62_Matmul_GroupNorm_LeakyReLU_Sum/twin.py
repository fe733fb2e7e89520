"""twin.py — level2/62_Matmul_GroupNorm_LeakyReLU_Sum as a PyTorch module (KernelBench's Model)."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_groups, eps=1e-5, negative_slope=0.01):
        super().__init__()
        self.fc = nn.Linear(input_size, hidden_size)
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=hidden_size, eps=eps)
        self.leaky_relu = nn.LeakyReLU(negative_slope=negative_slope)

    def forward(self, x):
        x = self.fc(x)
        x = self.gn(x)
        x = self.leaky_relu(x)
        return x + x


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["input_size"]), int(attrs["hidden_size"]), int(attrs["num_groups"]),
                 attrs["eps"], attrs["negative_slope"])
