"""pyinit.py — how a module gets its parameters on a KernelBench-format task: constructed under
the params set's seed, as KernelBench constructs Model and ModelNew under one seed.

Why not the harness's generated params, as on a native task: a ModelNew routinely derives state
from its weights in __init__ (a transposed or pre-scaled copy, a BatchNorm folded into a scale
and a shift: 30 of CUDA-L1's 184 audited kernels did). Weights copied in after construction leave
that state computed from other values, and the module, correct under KernelBench's contract, was
judged incorrect or, where its names matched nothing, a crash. Constructed under the seed, its
weights are the reference's wherever it initialises them as the reference does, and its derived
state agrees with them.

Each params set has its own secret seed (the judge's), so every set has new values: a module
cannot keep results across sets. The reference worker constructs Model under it; a candidate's
worker constructs ModelNew under it and, beside it, the task's Model (trusted code, imported
before the sandbox), whose values are copied into ModelNew where its state maps onto Model's
(by name, else by order and shape) — so a ModelNew that declares its weights without
initialising them (torch.empty) still gets the reference's. Where nothing maps, ModelNew keeps
what its own construction gave; its outputs then decide, as in KernelBench.

The off-default variant (evaluation.md, class 4/11: params off their constant init) is a
construction too: what torch.nn.init's ones_, zeros_ and constant_ set, a Parameter made from a
constant tensor, and BatchNorm's running statistics get values near their constants instead,
fixed by the seed and the tensor's shape, so Model and a ModelNew that declares the same
parameter get the same values, and a module that assumes the defaults (an identity BatchNorm)
does not."""
import contextlib

import torch


def seed_of(seed):
    """torch.manual_seed takes a signed 64-bit value: the judge's 64-bit seed folded into it."""
    return int(seed) & 0x7FFF_FFFF_FFFF_FFFF


def _near(t, c, seed):
    """t filled in place with values within max(1, |c|) / 2 of c. The values depend on the seed,
    c and t's shape only — no generator state is consumed — so the module's own draws are those
    of a plain construction, and two modules that create the same constant tensor, in whatever
    order, get the same values."""
    h = 0.5 * max(1.0, abs(float(c)))
    key = hash((seed_of(seed), tuple(t.shape), round(float(c), 6))) & 0x7FFF_FFFF_FFFF_FFFF
    g = torch.Generator().manual_seed(key)
    u = torch.rand(tuple(t.shape), generator=g, dtype=torch.float64)
    with torch.no_grad():
        t.copy_((float(c) - h + 2 * h * u).to(t.dtype))
    return t


def _constant(data):
    """The value of a floating-point tensor whose elements are all equal, else None."""
    if data is None or not isinstance(data, torch.Tensor) or not data.is_floating_point() \
            or data.numel() == 0 or data.is_meta:
        return None
    flat = data.detach().reshape(-1)
    c = flat[0]
    return float(c) if bool((flat == c).all()) else None


@contextlib.contextmanager
def off_default_init(on, seed=0):
    """Constant parameters moved off their constants while a module is constructed: what
    torch.nn.init's ones_, zeros_ and constant_ set, a Parameter made from a constant tensor
    (nn.Parameter(torch.ones(n))), and BatchNorm's running statistics."""
    if not on:
        yield
        return
    init = torch.nn.init
    from torch.nn.modules.batchnorm import _NormBase
    saved = {n: getattr(init, n) for n in ("ones_", "zeros_", "constant_")}
    saved_stats = _NormBase.reset_running_stats
    saved_new = torch.nn.Parameter.__dict__["__new__"]
    param_new = torch.nn.Parameter.__new__

    def new(cls, data=None, requires_grad=True):
        c = _constant(data)
        if c is not None:
            _near(data, c, seed)
        return param_new(cls, data, requires_grad)

    def running_stats(self):
        saved_stats(self)
        if self.track_running_stats:
            _near(self.running_mean, 0.0, seed)
            _near(self.running_var, 1.0, seed)  # within [0.5, 1.5]: a variance still

    init.ones_ = lambda t: _near(t, 1.0, seed)
    init.zeros_ = lambda t: _near(t, 0.0, seed)
    init.constant_ = lambda t, val: _near(t, val, seed)
    _NormBase.reset_running_stats = running_stats
    torch.nn.Parameter.__new__ = staticmethod(new)
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(init, n, f)
        _NormBase.reset_running_stats = saved_stats
        torch.nn.Parameter.__new__ = saved_new


def construct(cls, args, kwargs, seed, off_default, device, train_mode):
    """cls(*args, **kwargs) under the seed (on the CPU generator, then moved, as KernelBench
    does), in eval mode unless the task trains."""
    torch.manual_seed(seed_of(seed))
    with off_default_init(off_default, seed):
        m = cls(*args, **kwargs)
    m = m.to(device)
    if not train_mode:
        m.eval()
    return m


def mapping(sd, names, shapes):
    """The module's state keys for the task's params, in order: by name, else by order and shape
    among its floating-point entries; None when neither fits."""
    if all(n in sd and tuple(sd[n].shape) == s for n, s in zip(names, shapes)):
        return list(names)
    keys = [k for k, v in sd.items() if v.is_floating_point()]
    if len(keys) == len(names) and all(tuple(sd[k].shape) == s for k, s in zip(keys, shapes)):
        return keys
    return None


def align(model, ref, names):
    """The reference's values for the task's params copied into model where its state maps onto
    them (a module that did not initialise its weights gets them); returns whether it mapped.
    Values already equal (a ModelNew that initialises as Model does) are left as they are, so
    state derived from them in __init__ stays true."""
    rsd = ref.state_dict()
    names = [n for n in names if n in rsd]
    vals = [rsd[n] for n in names]
    sd = model.state_dict()
    keys = mapping(sd, names, [tuple(v.shape) for v in vals])
    if keys is None:
        return False
    with torch.no_grad():
        for k, v in zip(keys, vals):
            if not torch.equal(sd[k], v.to(sd[k].device, sd[k].dtype)):
                sd[k].copy_(v)
    return True
