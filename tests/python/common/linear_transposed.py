# keeps the weight transposed and never initialises it: no mapping of the task's params fits, so it
# keeps what its own construction gave (torch.empty) and its outputs are wrong
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
