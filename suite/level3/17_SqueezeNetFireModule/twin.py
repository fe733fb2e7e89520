"""twin.py — level3/17_SqueezeNetFireModule as a PyTorch module (KernelBench's Model): a 1x1
squeeze conv + ReLU, then 1x1 and 3x3 (padding 1) expand convs, each + ReLU, concatenated along
the channels."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, squeeze, e1, e3):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, 1)
        self.expand1x1 = nn.Conv2d(squeeze, e1, 1)
        self.expand3x3 = nn.Conv2d(squeeze, e3, 3, padding=1)

    def forward(self, x):
        x = self.squeeze(x).relu()
        return torch.cat([self.expand1x1(x).relu(), self.expand3x3(x).relu()], 1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["in_channels"]), int(dims["squeeze_channels"]),
                 int(dims["expand1x1_channels"]), int(dims["expand3x3_channels"]))
