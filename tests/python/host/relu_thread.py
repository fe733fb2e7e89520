# #2: finishes the output on a thread after returning (the sandbox refuses the thread)
import threading
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        threading.Thread(target=lambda: out.copy_(torch.relu(x))).start()
        return out
