# load_inline called lazily from forward() on the first call (8 of CUDA-L1's released rows do):
# the build step calls the object once with get_inputs() so the extension is built there; the
# sandboxed run, which may not run a compiler, only loads it
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = r"""
#include <torch/extension.h>
torch::Tensor relu_fwd(torch::Tensor x) {
  auto y = torch::empty_like(x);
  const float *a = x.data_ptr<float>();
  float *b = y.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); i++) b[i] = a[i] > 0.f ? a[i] : 0.f;
  return y;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = None

    def forward(self, x):
        if self.ext is None:
            self.ext = load_inline(name="cl1_test_relu_forward", cpp_sources=src,
                                   functions=["relu_fwd"], extra_cflags=["-O2"])
        return self.ext.relu_fwd(x.contiguous())


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return []
