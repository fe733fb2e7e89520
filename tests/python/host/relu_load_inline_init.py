# load_inline called from ModelNew.__init__ (as CUDA-L1's released kernels do): the build step
# constructs the class once so the extension is built there; the sandboxed run only loads it
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
        self.ext = load_inline(name="cl1_test_relu_init", cpp_sources=src, functions=["relu_fwd"],
                               extra_cflags=["-O2"])

    def forward(self, x):
        return self.ext.relu_fwd(x.contiguous())


def get_init_inputs():
    return []
