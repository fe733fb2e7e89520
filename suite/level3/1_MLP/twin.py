"""twin.py — level3/1_MLP as a PyTorch module (KernelBench's Model): Linear+ReLU per hidden
layer, then a final Linear, in one nn.Sequential named `network`."""
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, layer_sizes, output_size):
        super().__init__()
        layers, cur = [], input_size
        for size in layer_sizes:
            layers += [nn.Linear(cur, size), nn.ReLU()]
            cur = size
        layers.append(nn.Linear(cur, output_size))
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["input_size"]), [int(dims["layer1"]), int(dims["layer2"])],
                 int(dims["output_size"]))
