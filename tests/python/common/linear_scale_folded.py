# CUDA-L1's most common shape (30 of its 184 audited kernels): weights under names of its own,
# initialised as nn.Linear does, and state derived from them in __init__ (the scale folded into a
# transposed weight and the bias). Correct under KernelBench's contract (one seed for Model and
# ModelNew); before the construction contract it was refused (no mapping) or judged incorrect
# (the weights copied in afterwards, the folded copies left stale).
import math

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        bound = 1 / math.sqrt(in_features)
        nn.init.uniform_(self.bias, -bound, bound)
        self.scale = nn.Parameter(torch.ones(out_features))
        with torch.no_grad():
            self.register_buffer("w_t", (self.weight * self.scale[:, None]).t().contiguous())
            self.register_buffer("b_s", self.bias * self.scale)

    def forward(self, x):
        return torch.relu(torch.addmm(self.b_s, x, self.w_t))
