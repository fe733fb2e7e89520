"""twin.py — level3/34_VanillaRNNHidden as a PyTorch module (KernelBench's Model at HEAD): the
vanilla RNN cell run over the sequence from h0, the h2o outputs stacked along dim 0."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.tanh = nn.Tanh()

    def forward(self, x, h0):
        hidden, outputs = h0, []
        for t in range(x.size(0)):
            hidden = self.tanh(self.i2h(torch.cat((x[t], hidden), dim=1)))
            outputs.append(self.h2o(hidden))
        return torch.stack(outputs, dim=0)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["input_size"]), int(dims["hidden_size"]), int(dims["output_size"]))
