# a custom C++ kernel through load_inline: built before the sandboxed run, loaded from the cache
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
ext = load_inline(name="cl1_test_relu", cpp_sources=src, functions=["relu_fwd"],
                  extra_cflags=["-O2"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_fwd(x.contiguous())
