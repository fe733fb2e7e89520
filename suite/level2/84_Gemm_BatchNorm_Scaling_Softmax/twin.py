"""twin.py — level2/84_Gemm_BatchNorm_Scaling_Softmax as a PyTorch module (KernelBench's Model).
BatchNorm1d without running statistics: they never affect the training-mode output, and this way
the batch statistics are used under eval() too."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, bn_eps, bn_momentum):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, momentum=bn_momentum,
                                 track_running_stats=False)
        self.scale = nn.Parameter(torch.ones(1))
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = self.gemm(x)
        x = self.bn(x)
        x = self.scale * x
        return self.softmax(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"], float(attrs["bn_eps"]),
                 float(attrs["bn_momentum"]))
