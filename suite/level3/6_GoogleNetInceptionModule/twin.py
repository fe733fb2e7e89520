"""twin.py — level3/6_GoogleNetInceptionModule as a PyTorch module (KernelBench's Model): four
branches (1x1; 1x1 then 3x3; 1x1 then 5x5; 3x3/1 maxpool then 1x1) concatenated on channels."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_1x1, reduce_3x3, out_3x3, reduce_5x5, out_5x5, pool_proj):
        super().__init__()
        self.branch1x1 = nn.Conv2d(in_channels, out_1x1, kernel_size=1)
        self.branch3x3 = nn.Sequential(nn.Conv2d(in_channels, reduce_3x3, kernel_size=1),
                                       nn.Conv2d(reduce_3x3, out_3x3, kernel_size=3, padding=1))
        self.branch5x5 = nn.Sequential(nn.Conv2d(in_channels, reduce_5x5, kernel_size=1),
                                       nn.Conv2d(reduce_5x5, out_5x5, kernel_size=5, padding=2))
        self.branch_pool = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1),
                                         nn.Conv2d(in_channels, pool_proj, kernel_size=1))

    def forward(self, x):
        return torch.cat([self.branch1x1(x), self.branch3x3(x), self.branch5x5(x),
                          self.branch_pool(x)], 1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(*(int(dims[k]) for k in ("in_channels", "out_1x1", "reduce_3x3", "out_3x3",
                                          "reduce_5x5", "out_5x5", "pool_proj")))
