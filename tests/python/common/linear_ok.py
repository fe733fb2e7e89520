# control: the problem's computation, written differently
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        return torch.addmm(self.fc.bias, x, self.fc.weight.t()).clamp_min(0) * self.scale
