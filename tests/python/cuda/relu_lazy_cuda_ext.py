# CUDA-L1's commonest shape (45 of its passing kernels with load_inline, H100 audit of
# 2026-12-07): the extension built lazily, only for CUDA inputs, any failure swallowed and
# PyTorch used instead. The build step's probe must call it on the GPU, or the kernel never runs.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_ext = None

CUDA_SRC = """
__global__ void relu_k(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_fwd(torch::Tensor x) {
  auto y = torch::empty_like(x);
  long n = x.numel();
  relu_k<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""
CPP_SRC = "torch::Tensor relu_fwd(torch::Tensor x);"


def _get_extension():
    global _ext
    if _ext is None:
        try:
            _ext = load_inline(name="relu_lazy_cuda_ext", cpp_sources=CPP_SRC,
                               cuda_sources="#include <ATen/cuda/CUDAContext.h>\n" + CUDA_SRC,
                               functions=["relu_fwd"], verbose=False)
        except Exception:
            _ext = False
    return _ext


class ModelNew(nn.Module):
    def forward(self, x):
        if x.is_cuda and x.dtype == torch.float32:
            ext = _get_extension()
            if ext:
                try:
                    return ext.relu_fwd(x.contiguous())
                except Exception:
                    pass
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 16384)]  # CPU tensors, as KernelBench's problems make them


def get_init_inputs():
    return []
