# CUDA-L1's commonest fault (its level1/3, H100 audit of 2026-12-07): the source defines
# PYBIND11_MODULE and also names functions=, so load_inline generates a second module definition
# and the extension never compiles; the error is swallowed and PyTorch runs instead. Correct, and
# a pass, but the judge must say the kernel never ran (flag extension_not_built, python.extension_error).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_ext = None

SRC = """
#include <torch/extension.h>
torch::Tensor relu_fwd(torch::Tensor x) { return torch::clamp_min(x, 0); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("relu_fwd", &relu_fwd, "relu"); }
"""


def _get_extension():
    global _ext
    if _ext is None:
        try:
            _ext = load_inline(name="relu_broken_ext", cpp_sources=SRC, functions=["relu_fwd"],
                               verbose=False)
        except Exception:
            _ext = False
    return _ext


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = _get_extension()

    def forward(self, x):
        if self.ext:
            return self.ext.relu_fwd(x)
        return torch.relu(x)
