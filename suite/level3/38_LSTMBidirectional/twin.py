"""twin.py — level3/38_LSTMBidirectional as a PyTorch module (KernelBench's Model at HEAD): nn.LSTM
(batch_first, bidirectional) from (h0, c0), fc on the last time step; returns fc's output."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, dropout=0.0,
                            bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, output_size)

    def forward(self, x, h0, c0):
        out, state = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])
        return out


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["input_size"]), int(dims["hidden_size"]), int(dims["num_layers"]),
                 int(dims["output_size"]))
