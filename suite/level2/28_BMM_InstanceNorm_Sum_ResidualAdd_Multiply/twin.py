"""twin.py — level2/28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply as a PyTorch module
(KernelBench's Model). InstanceNorm2d(out_features) sees a (B, 1, 1, N) input: one channel, so
PyTorch warns about num_features and normalises each row over its N features."""
import warnings

import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.bmm = nn.Linear(in_features, out_features)
        self.instance_norm = nn.InstanceNorm2d(out_features, eps=eps, momentum=momentum)

    def forward(self, x, y):
        x = self.bmm(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = self.instance_norm(x.unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1)
        x = x + y
        return x * y


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"], float(attrs["eps"]))
