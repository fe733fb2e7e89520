# #6: computes in place on its input
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu_()
