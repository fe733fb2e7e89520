"""twin.py — level3/32_ConvolutionalVisionTransformer as a PyTorch module (KernelBench's Model
at HEAD: batch_first encoder layers)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_classes, embed_dim=512, num_heads=8, num_layers=6, mlp_ratio=4.0,
                 patch_size=4, in_channels=3, image_size=32):
        super().__init__()
        self.patch_size = patch_size
        self.image_size = image_size
        self.embed_dim = embed_dim
        self.conv1 = nn.Conv2d(in_channels, embed_dim, kernel_size=patch_size, stride=patch_size)
        num_patches = (image_size // patch_size) ** 2
        self.linear_proj = nn.Linear(embed_dim * num_patches, embed_dim)
        self.transformer_layers = nn.ModuleList([
            nn.TransformerEncoderLayer(d_model=embed_dim, nhead=num_heads,
                                       dim_feedforward=int(embed_dim * mlp_ratio), dropout=0.0,
                                       batch_first=True)
            for _ in range(num_layers)])
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.fc_out = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        B = x.size(0)
        x = self.conv1(x)
        x = x.flatten(start_dim=1)
        x = self.linear_proj(x)
        cls_tokens = self.cls_token.expand(B, -1, -1)
        x = torch.cat((cls_tokens, x.unsqueeze(1)), dim=1)
        for layer in self.transformer_layers:
            x = layer(x)
        return self.fc_out(x[:, 0])


def make(dims: dict, attrs: dict) -> nn.Module:
    d = dims
    return Model(d["num_classes"], d["embed_dim"], d["num_heads"], d["num_layers"],
                 d["mlp_dim"] / d["embed_dim"], d["patch_size"], d["in_channels"], d["image_size"])
