"""twin.py — level1/99_TripletMarginLoss as a PyTorch module (KernelBench's Model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, margin: float):
        super().__init__()
        self.loss_fn = torch.nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor, positive, negative):
        return (self.loss_fn(anchor, positive, negative)).reshape(1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(float(attrs["margin"]))
