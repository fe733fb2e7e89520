# changes PyTorch's global numerics settings (allowed, flagged); its outputs still correct
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.benchmark = True

    def forward(self, x):
        return torch.relu(x)
