# CUDA-L1's commonest shape: the extension built lazily on the first forward, in a build folder
# next to the module, any failure swallowed and PyTorch used instead
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_ext = None


def _get_extension():
    global _ext
    if _ext is None:
        src = """
        #include <torch/extension.h>
        torch::Tensor relu_fwd(torch::Tensor x) { return torch::clamp_min(x, 0); }
        PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("relu_fwd", &relu_fwd, "relu"); }
        """
        try:
            build_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "build_relu_lazy")
            os.makedirs(build_dir, exist_ok=True)
            _ext = load_inline(name="relu_lazy_ext", cpp_sources=src, build_directory=build_dir,
                               verbose=False)
        except Exception:
            _ext = False
    return _ext


class ModelNew(nn.Module):
    def forward(self, x):
        ext = _get_extension()
        if ext:
            try:
                return ext.relu_fwd(x)
            except Exception:
                pass
        return torch.relu(x)
