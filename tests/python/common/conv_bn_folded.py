# CUDA-L1's commonest level-2/3 shape (18 of its 70 incorrect rows, H100 audit of 2026-12-07):
# BatchNorm folded into the convolution with its running statistics, which is inference. Under
# KernelBench's harness the modules train (BatchNorm on the batch's statistics): incorrect. On a
# task imported with --mode eval: a pass.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        scale = self.bn.weight * torch.rsqrt(self.bn.running_var + self.bn.eps)
        w = self.conv.weight * scale.view(-1, 1, 1, 1)
        b = self.bn.bias - self.bn.running_mean * scale
        return F.conv2d(x, w, b, padding=1)
