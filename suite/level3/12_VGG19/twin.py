"""twin.py — level3/12_VGG19 as a PyTorch module (KernelBench's Model): `features` (3x3 convs
with ReLU, 2x2 maxpools) and `classifier` (Linear+ReLU+Dropout(0) twice, then Linear) as
nn.Sequential, so the state_dict keys match. The classifier's in-features are the dim fc_in
(512*7*7 for 224x224 images; 512*(H/32)*(W/32) in general)."""
import torch
import torch.nn as nn

CFG = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
       512, 512, 512, 512, "M"]


def features(cfg):
    layers, cin = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [nn.Conv2d(cin, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
            cin = v
    return nn.Sequential(*layers)


class Model(nn.Module):
    def __init__(self, num_classes, fc_in, cfg=CFG):
        super().__init__()
        self.features = features(cfg)
        self.classifier = nn.Sequential(
            nn.Linear(fc_in, 4096), nn.ReLU(inplace=True), nn.Dropout(p=0.0),
            nn.Linear(4096, 4096), nn.ReLU(inplace=True), nn.Dropout(p=0.0),
            nn.Linear(4096, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]), int(dims["fc_in"]))
