"""bench/load_inline.py — the comparison figure for bench/eval_latency: how long a
KernelBench-style evaluation takes to build an equivalent trivial kernel with PyTorch's
torch.utils.cpp_extension.load_inline (cold: fresh build folder), and to import it again
(warm: same folder). Prints one JSON object. Runs on the GPU machine with its PyTorch."""
import json, os, shutil, sys, tempfile, time

CUDA_SRC = r"""
#include <torch/extension.h>
__global__ void relu_k(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}
torch::Tensor relu(torch::Tensor x) {
  auto y = torch::empty_like(x);
  long n = x.numel();
  relu_k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""
CPP_SRC = "torch::Tensor relu(torch::Tensor x);"


def build(folder, name):
    from torch.utils.cpp_extension import load_inline
    t0 = time.perf_counter()
    mod = load_inline(name=name, cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["relu"],
                      build_directory=folder, verbose=False,
                      extra_cuda_cflags=["-O3", "-gencode=arch=compute_90,code=sm_90"])
    return mod, time.perf_counter() - t0


def main():
    t_import = time.perf_counter()
    import torch
    t_import = time.perf_counter() - t_import
    folder = tempfile.mkdtemp(prefix="cl1-load-inline-")
    try:
        mod, cold = build(folder, "cl1_relu_cold")
        x = torch.randn(1 << 20, device="cuda")
        ok = bool(torch.equal(mod.relu(x), torch.relu(x)))
        print(json.dumps({"torch": torch.__version__, "import_torch_s": t_import,
                          "load_inline_cold_s": cold, "correct": ok}))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
