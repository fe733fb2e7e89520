"""twin.py — level3/29_SwinMLP as a PyTorch module: the same network as KernelBench's Model
(Swin MLP: windowed token mixing by a grouped 1x1 Conv1d, shifted windows by zero padding,
patch merging), with the same state_dict names, written compactly. Dropout and drop-path are
identities (rates 0 / nn.Identity in KernelBench)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DEPTHS = (2, 2, 6, 2)


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim, res, heads, window, shift, mlp_ratio):
        super().__init__()
        if res <= window:  # a window that covers the whole map, never shifted
            window, shift = res, 0
        self.res, self.heads, self.ws, self.shift = res, heads, window, shift
        self.norm1 = nn.LayerNorm(dim)
        n = heads * window * window
        self.spatial_mlp = nn.Conv1d(n, n, kernel_size=1, groups=heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))

    def forward(self, x):
        B, L, C = x.shape
        H = W = self.res
        ws, nh = self.ws, self.heads
        h = self.norm1(x).view(B, H, W, C)
        if self.shift:
            lo, hi = ws - self.shift, self.shift  # left/top and right/bottom padding
            h = F.pad(h, [0, 0, lo, hi, lo, hi])
        Hp, Wp = h.shape[1], h.shape[2]
        # window partition -> (nW*B, ws*ws, C) -> heads (nW*B, nh*ws*ws, C/nh)
        w = h.view(B, Hp // ws, ws, Wp // ws, ws, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, C)
        w = w.view(-1, ws * ws, nh, C // nh).transpose(1, 2).reshape(-1, nh * ws * ws, C // nh)
        w = self.spatial_mlp(w)
        w = w.view(-1, nh, ws * ws, C // nh).transpose(1, 2).reshape(-1, ws * ws, C)
        # window reverse -> (B, Hp, Wp, C)
        h = w.view(B, Hp // ws, Wp // ws, ws, ws, C).permute(0, 1, 3, 2, 4, 5).reshape(B, Hp, Wp, C)
        if self.shift:
            h = h[:, lo:Hp - hi, lo:Wp - hi, :].contiguous()
        x = x + h.view(B, L, C)
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, res, dim):
        super().__init__()
        self.res = res
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(4 * dim)

    def forward(self, x):
        B, L, C = x.shape
        x = x.view(B, self.res, self.res, C)
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.reduction(self.norm(x.view(B, -1, 4 * C)))


class Stage(nn.Module):
    def __init__(self, dim, res, depth, heads, window, mlp_ratio, merge):
        super().__init__()
        self.blocks = nn.ModuleList(
            [Block(dim, res, heads, window, 0 if i % 2 == 0 else window // 2, mlp_ratio)
             for i in range(depth)])
        self.downsample = PatchMerging(res, dim) if merge else None

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.downsample(x) if self.downsample is not None else x


class PatchEmbed(nn.Module):
    def __init__(self, patch, in_chans, dim):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, dim, kernel_size=patch, stride=patch)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return self.norm(self.proj(x).flatten(2).transpose(1, 2))


class Model(nn.Module):
    def __init__(self, img_size, patch_size, in_chans, num_classes, embed_dim, heads, window_size,
                 mlp_ratio=4.0):
        super().__init__()
        self.patch_embed = PatchEmbed(patch_size, in_chans, embed_dim)
        r = img_size // patch_size
        n = len(DEPTHS)
        self.layers = nn.ModuleList(
            [Stage(embed_dim * 2 ** i, r // 2 ** i, DEPTHS[i], heads[i], window_size, mlp_ratio,
                   i < n - 1) for i in range(n)])
        self.norm = nn.LayerNorm(embed_dim * 2 ** (n - 1))
        self.head = nn.Linear(embed_dim * 2 ** (n - 1), num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        for s in self.layers:
            x = s(x)
        x = self.norm(x).mean(dim=1)  # AdaptiveAvgPool1d(1) over the tokens
        return self.head(x)


def make(dims: dict, attrs: dict) -> nn.Module:
    d = dims
    return Model(d["image_size"], d["patch_size"], d["in_chans"], d["num_classes"], d["embed_dim"],
                 [d["heads0"], d["heads1"], d["heads2"], d["heads3"]], d["window_size"])
