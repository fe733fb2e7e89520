# its process's first call does slow lazy work (as cuDNN's benchmark mode tunes every convolution
# once per process): 4 s, past a 2 s call limit, within a Python module's first-call allowance
import time

import torch
import torch.nn as nn

_TUNED = False


class ModelNew(nn.Module):
    def forward(self, x):
        global _TUNED
        if not _TUNED:
            time.sleep(4.0)
            _TUNED = True
        return torch.relu(x)
