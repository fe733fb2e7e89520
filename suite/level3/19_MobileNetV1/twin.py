"""twin.py — level3/19_MobileNetV1 as a PyTorch module (KernelBench's Model, alpha = 1.0):
conv_bn, 13 depthwise-separable blocks, AvgPool2d(avgpool_kernel) (7 for 224x224 images:
the final map is (H/32, W/32)), then fc. BatchNorm2d with track_running_stats=False: the batch
statistics KernelBench's training-mode module uses, and no running buffers in the state_dict."""
import torch.nn as nn

# (in, out, stride) of the 13 conv_dw blocks
DW = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2),
      (512, 512, 1), (512, 512, 1), (512, 512, 1), (512, 512, 1), (512, 512, 1),
      (512, 1024, 2), (1024, 1024, 1)]


def bn(c):
    return nn.BatchNorm2d(c, track_running_stats=False)


def conv_bn(inp, oup, stride):
    return nn.Sequential(nn.Conv2d(inp, oup, 3, stride, 1, bias=False), bn(oup),
                         nn.ReLU(inplace=True))


def conv_dw(inp, oup, stride):
    return nn.Sequential(nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False), bn(inp),
                         nn.ReLU(inplace=True),
                         nn.Conv2d(inp, oup, 1, 1, 0, bias=False), bn(oup),
                         nn.ReLU(inplace=True))


class Model(nn.Module):
    def __init__(self, num_classes, input_channels, avgpool_kernel):
        super().__init__()
        self.model = nn.Sequential(conv_bn(input_channels, 32, 2),
                                   *(conv_dw(i, o, s) for i, o, s in DW),
                                   nn.AvgPool2d(avgpool_kernel))
        self.fc = nn.Linear(1024, num_classes)

    def forward(self, x):
        x = self.model(x)
        return self.fc(x.view(x.size(0), -1))


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["num_classes"]), int(dims["input_channels"]),
                 int(dims["avgpool_kernel"]))
