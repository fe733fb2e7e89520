"""twin.py — level3/40_GRUHidden as a PyTorch module (KernelBench's Model at HEAD): nn.GRU
(seq-first, bias) from h0; returns h_n."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, True, False, dropout=0,
                          bidirectional=False)

    def forward(self, x, h0):
        output, h_n = self.gru(x, h0)
        return h_n


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["input_size"]), int(dims["hidden_size"]), int(dims["num_layers"]))
