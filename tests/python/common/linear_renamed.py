# its own parameter names (w, b): mapped from the task's by order and shape
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.w = nn.Parameter(torch.empty(out_features, in_features))
        self.b = nn.Parameter(torch.empty(out_features))
        self.scale = scale

    def forward(self, x):
        return torch.relu(x @ self.w.t() + self.b) * self.scale
