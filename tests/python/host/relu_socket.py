# opens a socket at import (the sandbox refuses it: the import fails, its own fault)
import socket
import torch
import torch.nn as nn

socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(("127.0.0.1", 9))


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
