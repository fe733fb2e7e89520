"""twin.py — level2/66_Matmul_Dropout_Softmax as a PyTorch module (KernelBench HEAD's Model);
checked in eval mode, where Dropout is the identity."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, dropout_p):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        x = self.matmul(x)
        x = self.dropout(x)
        x = torch.softmax(x, dim=1)
        return x


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(dims["in_features"], dims["out_features"], float(attrs["dropout_p"])).eval()
