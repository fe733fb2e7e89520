import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer scaled per output by a learned scale that starts at ones, then a ReLU."""
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.ones(out_features))

    def forward(self, x):
        return torch.relu(self.fc(x) * self.scale)


batch_size = 16
in_features = 64
out_features = 32


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
