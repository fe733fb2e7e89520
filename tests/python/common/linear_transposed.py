# keeps the weight transposed: no mapping of the task's params fits, refused with both lists
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.wt = nn.Parameter(torch.empty(in_features, out_features))
        self.b = nn.Parameter(torch.empty(out_features))
        self.scale = scale

    def forward(self, x):
        return torch.relu(x @ self.wt + self.b) * self.scale
