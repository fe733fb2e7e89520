"""twin.py — level3/45_UNetSoftmax as a PyTorch module (KernelBench's Model; state_dict keys as
KernelBench names them: encoderN.double_conv.<index>, upconvN, decoderN, final_conv).
BatchNorm layers use track_running_stats=False: KernelBench runs them in training mode (batch
statistics) and the running buffers never affect the output."""
import torch
import torch.nn as nn


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout, track_running_stats=False),
            nn.Softmax(dim=-1),
            nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout, track_running_stats=False),
            nn.Softmax(dim=-1))

    def forward(self, x):
        return self.double_conv(x)


class Model(nn.Module):
    def __init__(self, cin, cout, f):
        super().__init__()
        self.encoder1 = DoubleConv(cin, f)
        self.encoder2 = DoubleConv(f, 2 * f)
        self.encoder3 = DoubleConv(2 * f, 4 * f)
        self.encoder4 = DoubleConv(4 * f, 8 * f)
        self.pool = nn.MaxPool2d(2, 2)  # KernelBench's pool1..4 are identical and parameterless
        self.bottleneck = DoubleConv(8 * f, 16 * f)
        self.upconv4 = nn.ConvTranspose2d(16 * f, 8 * f, 2, stride=2)
        self.decoder4 = DoubleConv(16 * f, 8 * f)
        self.upconv3 = nn.ConvTranspose2d(8 * f, 4 * f, 2, stride=2)
        self.decoder3 = DoubleConv(8 * f, 4 * f)
        self.upconv2 = nn.ConvTranspose2d(4 * f, 2 * f, 2, stride=2)
        self.decoder2 = DoubleConv(4 * f, 2 * f)
        self.upconv1 = nn.ConvTranspose2d(2 * f, f, 2, stride=2)
        self.decoder1 = DoubleConv(2 * f, f)
        self.final_conv = nn.Conv2d(f, cout, 1)

    def forward(self, x):
        enc1 = self.encoder1(x)
        enc2 = self.encoder2(self.pool(enc1))
        enc3 = self.encoder3(self.pool(enc2))
        enc4 = self.encoder4(self.pool(enc3))
        b = self.bottleneck(self.pool(enc4))
        d4 = self.decoder4(torch.cat((self.upconv4(b), enc4), dim=1))
        d3 = self.decoder3(torch.cat((self.upconv3(d4), enc3), dim=1))
        d2 = self.decoder2(torch.cat((self.upconv2(d3), enc2), dim=1))
        d1 = self.decoder1(torch.cat((self.upconv1(d2), enc1), dim=1))
        return self.final_conv(d1)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["in_channels"]), int(dims["out_channels"]), int(dims["features"]))
