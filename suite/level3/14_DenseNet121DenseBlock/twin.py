"""twin.py — level3/14_DenseNet121DenseBlock as a PyTorch module (KernelBench's Model): each
layer is BatchNorm (batch statistics, track_running_stats=False), ReLU, 3x3 conv without bias
(Dropout(0.0), a no-op, is left out: it has no state) on the concatenation of the block input
and every earlier layer's output."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_layers, c0, growth):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(nn.BatchNorm2d(c0 + i * growth, track_running_stats=False), nn.ReLU(),
                          nn.Conv2d(c0 + i * growth, growth, 3, padding=1, bias=False))
            for i in range(num_layers))

    def forward(self, x):
        feats = [x]
        for layer in self.layers:
            feats.append(layer(x))
            x = torch.cat(feats, 1)
        return x


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(attrs["num_layers"]), int(dims["num_input_features"]),
                 int(dims["growth_rate"]))
