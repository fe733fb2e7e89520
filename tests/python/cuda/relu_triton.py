# a Triton kernel: its JIT compiles (ptxas) at the first call, which the sandbox refuses; the build
# step calls it once on the GPU with get_inputs() (level1/19_ReLU's small shapes), so the sandboxed
# run finds the compiled kernel in the folder's Triton cache
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(y_ptr + i, tl.maximum(tl.load(x_ptr + i, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_k[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y


def get_inputs():
    return [torch.randn(16, 16384)]
