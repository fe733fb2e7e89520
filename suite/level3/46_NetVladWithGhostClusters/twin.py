"""twin.py — NetVLAD aggregation as a PyTorch module (KernelBench's Model for level3/46 and 47,
which differ only in ghost_clusters; state_dict keys as KernelBench names them). The BatchNorm1d
uses track_running_stats=False: KernelBench runs it in training mode (batch statistics) and the
running buffers never affect the output."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, cluster_size, feature_size, ghost_clusters):
        super().__init__()
        self.k, self.d = cluster_size, feature_size
        kg = cluster_size + ghost_clusters
        # values come from the task's params; the shapes are what matter here
        self.clusters = nn.Parameter(torch.empty(feature_size, kg))
        self.batch_norm = nn.BatchNorm1d(kg, track_running_stats=False)
        self.clusters2 = nn.Parameter(torch.empty(1, feature_size, cluster_size))

    def forward(self, x):  # x: (B, N, D)
        b, n, _ = x.shape
        flat = x.reshape(-1, self.d)                                   # (B*N, D)
        assign = F.softmax(self.batch_norm(flat @ self.clusters), dim=1)
        assign = assign[:, :self.k].reshape(b, n, self.k)              # drop ghosts
        a = assign.sum(dim=1, keepdim=True) * self.clusters2           # (B, D, K)
        vlad = torch.matmul(assign.transpose(1, 2), x).transpose(1, 2) - a
        vlad = F.normalize(vlad)                                       # over D
        return F.normalize(vlad.reshape(b, -1))                        # (B, D*K)


def make(dims: dict, attrs: dict) -> nn.Module:
    return Model(int(dims["cluster_size"]), int(dims["feature_size"]),
                 int(dims.get("ghost_clusters", 0)))
