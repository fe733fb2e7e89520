"""twin.py — level2/97_Matmul_BatchNorm_BiasAdd_Divide_Swish as a PyTorch module (KernelBench's
Model, training mode). track_running_stats=False gives the training-mode output (batch
statistics) in any mode and leaves the running buffers out of the state_dict."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, bn_eps, divide_value):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, track_running_stats=False)
        self.bias = nn.Parameter(torch.randn(1))
        self.divide_value = divide_value

    def forward(self, x):
        x = self.matmul(x)
        x = self.bn(x)
        x = x + self.bias
        x = x / self.divide_value
        return x * torch.sigmoid(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"], float(attrs["bn_eps"]),
                 float(attrs["divide_value"]))
