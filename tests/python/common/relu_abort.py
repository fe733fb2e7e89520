# kills the interpreter (a write through NULL)
import ctypes
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        ctypes.memset(0, 1, 64)
        return x
