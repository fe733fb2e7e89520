"""twin.py — level2/33_Gemm_Scale_BatchNorm as a PyTorch module (KernelBench's Model, training
mode). track_running_stats=False gives the batch-statistics output in any mode (twin checks call
eval()) and keeps the running buffers, which never affect the output, out of the state_dict."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, eps=1e-5):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(out_features))
        self.bn = nn.BatchNorm1d(out_features, eps=eps, track_running_stats=False)

    def forward(self, x):
        x = self.gemm(x)
        x = x * self.scale
        return self.bn(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"], float(attrs["eps"]))
