"""twin.py — level1/95_CrossEntropyLoss as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, predictions, targets):
        # the checker hands every input over as float; the task's targets are int64 indices
        return (torch.nn.functional.cross_entropy(predictions, targets.long())).reshape(1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model()
