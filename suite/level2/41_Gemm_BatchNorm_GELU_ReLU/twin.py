"""twin.py — level2/41_Gemm_BatchNorm_GELU_ReLU as a PyTorch module (KernelBench's Model).

KernelBench's BatchNorm1d runs in training mode; track_running_stats=False gives that output in
any mode and leaves the running buffers, which never affect the output, out of the state_dict."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, eps):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.batch_norm = nn.BatchNorm1d(out_features, eps=eps, track_running_stats=False)

    def forward(self, x):
        x = self.gemm(x)
        x = self.batch_norm(x)
        x = torch.nn.functional.gelu(x)
        return torch.relu(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["in_features"]), int(attrs["out_features"]), float(attrs["eps"]))
