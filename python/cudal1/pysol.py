"""pysol.py — the Python side of a worker that runs a PyTorch module (a KernelBench `Model` as a
task's reference, or a `ModelNew` as a candidate) through cudal1's C ABI.

The worker stays the C program (src/worker/): it generates inputs and params from seeds, checksums
them, times the call from outside, copies outputs to the judge after a device-wide sync and
sandboxes the process. libcl1py (src/pysol/) embeds CPython in it and calls the four functions
below. Candidate Python shares this interpreter, so nothing here is trusted for a verdict: the
figures the verdict depends on are taken by the C worker around the call. What this file reports
(numerics flags, custom-extension calls) is informational.

Tensors arrive as (address, dtype, shape) triples and are wrapped without copies: host memory
through the buffer protocol, device memory through __cuda_array_interface__. Outputs are copied
into the harness's buffers inside the call (a lazily computed or aliased result is materialised
there, in the timed interval)."""
import contextlib
import ctypes
import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback

import torch

from cudal1 import pyinit

_DT = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
       "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8, "bool": torch.bool}
_CAI = {"f32": "<f4", "f16": "<f2", "bf16": "<V2", "f64": "<f8", "i32": "<i4", "i64": "<i8",
        "u8": "|u1", "bool": "|b1"}

_S = {"spec": None, "cls": None, "model": None, "views": {}, "flags0": None, "changed": set(),
      "ext_calls": 0, "exts": 0, "ext_errors": [], "error": "", "ref_cls": None, "pseed": None,
      "pvariant": ""}


# -- numerics flags ---------------------------------------------------------------------------
def _numerics():
    """The global settings a candidate could flip to trade precision for speed."""
    b = torch.backends
    return {"matmul.allow_tf32": b.cuda.matmul.allow_tf32,
            "cudnn.allow_tf32": b.cudnn.allow_tf32,
            "cudnn.benchmark": b.cudnn.benchmark,
            "cudnn.deterministic": b.cudnn.deterministic,
            "float32_matmul_precision": torch.get_float32_matmul_precision(),
            "matmul.allow_fp16_reduced_precision_reduction":
                b.cuda.matmul.allow_fp16_reduced_precision_reduction,
            "default_dtype": str(torch.get_default_dtype()),
            "autocast": torch.is_autocast_enabled()}


def _pin_numerics():
    """PyTorch's defaults, as KernelBench's reference runs under (set in both workers)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = False
    torch.set_float32_matmul_precision("highest")
    torch.set_default_dtype(torch.float32)


def _note_numerics():
    now = _numerics()
    for k, v in now.items():
        if _S["flags0"] is not None and _S["flags0"].get(k) != v:
            _S["changed"].add(k)


# -- extensions: load_inline built outside the sandbox, loaded from the cache inside ----------
def ext_key(args):
    """The cache key of a load_inline call: every argument but where and how loudly it builds."""
    a = {k: v for k, v in args.items() if k not in ("build_directory", "verbose")}
    return hashlib.sha256(json.dumps(a, sort_keys=True, default=repr).encode()).hexdigest()[:24]


def _bind(fn, args, kwargs):
    ba = inspect.signature(fn).bind(*args, **kwargs)
    ba.apply_defaults()
    return dict(ba.arguments)


def _count_calls(mod):
    """Wraps the extension's functions so calls made in forward are counted (reported only)."""
    for name in dir(mod):
        f = getattr(mod, name)
        if name.startswith("_") or not callable(f):
            continue

        def wrapped(*a, _f=f, **k):
            _S["ext_calls"] += 1
            return _f(*a, **k)
        try:
            setattr(mod, name, wrapped)
        except (AttributeError, TypeError):
            pass
    return mod


BUILD_ERROR = "cl1_build_error.txt"  # in an extension's folder: why the build step's build failed


def build_error_text(e):
    """The lines of a failed load_inline that say why (the compiler's "error:" lines, folders
    dropped, else the exception's last line), at most 400 characters: torch's message holds the
    whole ninja log."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    errs = [re.sub(r"\S*/", "", ln) for ln in lines if "error:" in ln]
    if not errs:
        errs = lines[-1:] or [type(e).__name__]
    return " | ".join(dict.fromkeys(errs))[:400]


def _ext_error(name, why):
    """An extension the module asked for and did not get, kept for the judge (report): a module
    that swallows the error and falls back to PyTorch otherwise passes as if its kernel ran."""
    msg = f"load_inline('{name}') {why}"
    if len(_S["ext_errors"]) < 4 and msg not in _S["ext_errors"]:
        _S["ext_errors"].append(msg)


def _load_built(name, args, ext_root):
    d = os.path.join(ext_root, ext_key(args))
    so = os.path.join(d, name + ".so")
    if not os.path.exists(so):
        failed = os.path.join(d, BUILD_ERROR)
        if os.path.exists(failed):
            with open(failed, encoding="utf-8", errors="replace") as f:
                why = f"did not build ({f.read().strip()})"
        else:
            why = ("was not built (the build step never made this call; extensions are built "
                   "before the sandboxed run)")
        _ext_error(name, why)
        raise RuntimeError(f"load_inline('{name}') {why}")
    if not args.get("is_python_module", True):
        torch.ops.load_library(so)
        return so
    loader = importlib.machinery.ExtensionFileLoader(name, so)
    spec = importlib.util.spec_from_file_location(name, so, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    _S["exts"] += 1
    return _count_calls(mod)


# the build step's load_inline calls: running now (a probe waits for them) and finished
BUILDS = {"running": 0, "done": 0}


def install_ext_hooks(ext_root, build):
    """load_inline redirected into ext_root/<key>: built there by the build step (build=True),
    only loaded from there in the worker, which may not run a compiler."""
    import torch.utils.cpp_extension as ce
    orig = getattr(ce, "_cl1_orig_load_inline", ce.load_inline)
    ce._cl1_orig_load_inline = orig

    def load_inline(*args, **kwargs):
        a = _bind(orig, args, kwargs)
        if not build:
            return _load_built(a["name"], a, ext_root)
        d = os.path.join(ext_root, ext_key(a))
        os.makedirs(d, exist_ok=True)
        kw = dict(a)
        kw["build_directory"] = d
        kw["verbose"] = False
        BUILDS["running"] += 1
        try:
            return orig(**kw)
        except BaseException as e:
            # the worker says why (_load_built), even when the module swallows the error
            with open(os.path.join(d, BUILD_ERROR), "w", encoding="utf-8") as f:
                f.write(build_error_text(e) + "\n")
            raise
        finally:
            BUILDS["running"] -= 1
            BUILDS["done"] += 1

    def load(*args, **kwargs):
        raise RuntimeError("torch.utils.cpp_extension.load (sources from files) is not supported: "
                           "put the sources inline with load_inline")
    ce.load_inline = load_inline
    ce.load = load


def import_file(path, modname="cl1_solution"):
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None:
        raise RuntimeError(f"{path}: not a Python module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


# -- init arguments ---------------------------------------------------------------------------
def _twin_init(spec):
    """A native task's constructor arguments: its twin's make(dims, attrs) builds Model(...); the
    call is recorded instead of made, so ModelNew gets the same arguments."""
    twin = import_file(spec["twin"], "cl1_twin")
    seen = {}

    class Recorder:
        def __init__(self, *a, **k):
            seen["args"], seen["kwargs"] = a, k
    twin.Model = Recorder
    twin.make(spec.get("dims", {}), spec.get("attrs", {}))
    if "args" not in seen:
        raise RuntimeError(f"{spec['twin']}: make() did not construct Model")
    return list(seen["args"]), dict(seen["kwargs"])


def _init_args(spec):
    if "init" in spec:
        return list(spec["init"]), dict(spec.get("init_kwargs", {}))
    if "twin" in spec:
        return _twin_init(spec)
    return [], {}


# -- the four entry points (src/pysol/pysol_rt.c) ---------------------------------------------
def load(spec_json):
    """Imports the module (its top-level code, load_inline included, runs here) and finds the
    class. Returns "" or an error text."""
    try:
        spec = json.loads(spec_json)
        _S["spec"] = spec
        _pin_numerics()
        _S["flags0"] = _numerics()
        install_ext_hooks(spec.get("ext_dir", ""), build=False)
        mod = import_file(spec["file"])
        cls = getattr(mod, spec.get("class", "ModelNew"), None)
        if cls is None:
            return f"{os.path.basename(spec['file'])} defines no class {spec.get('class', 'ModelNew')}"
        _S["cls"] = cls
        _note_numerics()
        return ""
    except BaseException:  # the candidate's import: any failure is its own
        return _fail("importing the module")


def _fail(what):
    tb = traceback.format_exc(limit=6)
    sys.stderr.write(tb)
    sys.stderr.flush()
    last = tb.strip().splitlines()[-1] if tb.strip() else "unknown error"
    _S["error"] = f"{what}: {last}"
    return _S["error"]


def _map_params(model, params, names):
    """A native task's generated params into the module's state: by name, else by order and shape
    (pyinit.mapping); refused with both lists when neither fits."""
    sd = model.state_dict()
    keys = pyinit.mapping(sd, names, [tuple(p.shape) for p in params])
    if keys is None:
        raise RuntimeError("cannot map the task's params " +
                           str([f"{n}{list(p.shape)}" for n, p in zip(names, params)]) +
                           " onto the module's state " +
                           str([f"{k}{list(v.shape)}" for k, v in sd.items()]))
    with torch.no_grad():
        for k, p in zip(keys, params):
            sd[k].copy_(p)


def _view(t):
    """A tensor over harness memory (address, dtype, shape), cached per triple: the same buffers
    come back every call."""
    v = _S["views"].get(t)
    if v is not None:
        return v
    addr, dt, shape = t
    n = 1
    for s in shape:
        n *= s
    if _S["spec"].get("device") == "cuda":
        class Cai:
            __cuda_array_interface__ = {"shape": tuple(shape), "typestr": _CAI[dt],
                                        "data": (addr, False), "version": 2, "strides": None}
        v = torch.as_tensor(Cai(), device="cuda")
        if dt == "bf16":
            v = v.view(torch.bfloat16)
    else:
        size = n * torch.empty((), dtype=_DT[dt]).element_size()
        buf = (ctypes.c_char * max(size, 1)).from_address(addr)
        v = torch.frombuffer(buf, dtype=_DT[dt], count=n).view(tuple(shape))
    _S["views"][t] = v
    return v


def _stream(ptr):
    """The harness's stream as torch's current one (CUDA): the module's launches queue behind the
    hold and are timed like a C solution's; a no-op context on the host."""
    if _S["spec"].get("device") != "cuda" or not ptr:
        return contextlib.nullcontext()
    s = _S.get("stream")
    if s is None or s.cuda_stream != ptr:
        s = _S["stream"] = torch.cuda.ExternalStream(ptr)
    return torch.cuda.stream(s)


def params(seed, variant):
    """The params set's seed and variant (the worker's PARAMS, before setup): a KernelBench-format
    task's module is constructed under them (pyinit.py)."""
    _S["pseed"], _S["pvariant"] = seed, variant
    return ""


def _constructed(spec, args, kwargs, dev):
    """A KernelBench-format task's module under the set's seed; a candidate's ModelNew also gets
    the reference Model's values where its state maps onto them (pyinit.py says why)."""
    seed = _S["pseed"] if _S["pseed"] is not None else int(spec.get("seed", 0))
    off = _S["pvariant"] == "off_default"
    train = spec.get("train_mode", False)
    model = pyinit.construct(_S["cls"], args, kwargs, seed, off, dev, train)
    if _S["ref_cls"] is not None:
        # on the CPU: its values are only compared and copied, and the GPU holds one model
        ref = pyinit.construct(_S["ref_cls"], args, kwargs, seed, off, "cpu", train)
        pyinit.align(model, ref, spec.get("params", []))
        del ref
    return model


def setup(params, stream=0):
    """Builds the module for one params set (a new one per set, as cl1_setup is called)."""
    try:
        spec = _S["spec"]
        args, kwargs = _init_args(spec)
        dev = "cuda" if spec.get("device") == "cuda" else "cpu"
        if spec.get("construct"):
            with _stream(stream):
                model = _constructed(spec, args, kwargs, dev)
        else:
            torch.manual_seed(int(spec.get("seed", 0)))
            model = _S["cls"](*args, **kwargs).to(dev)
            if not spec.get("train_mode", False):
                model.eval()
            with _stream(stream):
                _map_params(model, [_view(p) for p in params], spec.get("params", []))
        _S["model"] = model
        _note_numerics()
        return ""
    except BaseException:
        return _fail("constructing the module")


def forward(inputs, outputs, stream=0):
    """One call: the module on the inputs, its results copied into the harness's outputs."""
    try:
        spec = _S["spec"]
        xs = [_view(t) for t in inputs]
        args = list(xs)
        for pos, val in spec.get("scalars", []):  # non-tensor forward arguments, in place
            args.insert(pos, val)
        with torch.no_grad(), _stream(stream):
            res = _S["model"](*args)
            if not isinstance(res, (tuple, list)):
                res = (res,)
            if len(res) != len(outputs):
                raise RuntimeError(f"forward returned {len(res)} outputs, the task has {len(outputs)}")
            for k, (r, o) in enumerate(zip(res, outputs)):
                out = _view(o)
                if not isinstance(r, torch.Tensor):
                    raise RuntimeError(f"output {k}: a {type(r).__name__}, not a tensor")
                if tuple(r.shape) != tuple(out.shape):
                    raise RuntimeError(f"output {k}: shape {list(r.shape)}, the task's is "
                                       f"{list(out.shape)}")
                if r.dtype != out.dtype:
                    raise RuntimeError(f"output {k}: dtype {r.dtype}, the task's is {out.dtype}")
                out.copy_(r)
        _note_numerics()
        return ""
    except BaseException:
        return _fail("forward")


def teardown():
    _S["model"] = None


def report():
    """What the judge is told (informational): flags changed, extension calls, extensions asked
    for and not had."""
    return json.dumps({"numerics_changed": sorted(_S["changed"]), "ext_calls": _S["ext_calls"],
                       "extensions": _S["exts"], "ext_errors": _S["ext_errors"]})


def _triton_groups_here(td):
    """Triton's cache groups name their files by absolute path, and the build wrote them in its
    temporary folder, renamed since: each group is pointed at the files beside it (atomically;
    twins preparing at once write the same text)."""
    import glob
    for grp in glob.glob(os.path.join(td, "*", "__grp__*.json")):
        with open(grp) as f:
            data = json.load(f)
        paths = data.get("child_paths") or {}
        here = {c: os.path.join(os.path.dirname(grp), os.path.basename(p)) for c, p in paths.items()}
        if here != paths:
            data["child_paths"] = here
            tmp = f"{grp}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump(data, f)
            os.replace(tmp, grp)


def prepare(spec_json):
    """Before the sandbox (the worker's SETUP), for the module the spec names; no candidate code
    runs here. A Triton module's kernels were compiled by the build step's call on the GPU into
    the folder's triton/ ("triton_dir"); Triton is pointed there and its own tools run now, while
    exec is allowed: the cache key asks ptxas for its version and the launcher's libraries ask
    ldconfig where libcuda is (both remembered for the process), and its driver module is loaded.
    In the sandbox a call then finds its kernel in the cache and runs nothing. Returns ""; a
    failure is noted on stderr and left for the candidate's run to meet."""
    try:
        spec = json.loads(spec_json)
        _prepare_reference(spec)
        td = spec.get("triton_dir")
        if spec.get("device") != "cuda" or not td or not os.path.isdir(td):
            return ""
        os.environ["TRITON_CACHE_DIR"] = td
        _triton_groups_here(td)
        from triton.compiler.compiler import make_backend
        from triton.runtime.driver import driver
        active = driver.active
        make_backend(active.get_current_target()).hash()  # ptxas --version, remembered
        active.utils  # noqa: B018 — loads (or builds) Triton's driver module, finding libcuda
    except BaseException as e:  # noqa: BLE001 — Triton's, not the candidate's: noted, left
        sys.stderr.write(f"pysol: preparing Triton: {type(e).__name__}: {str(e)[:300]}\n")
    return ""


def _prepare_reference(spec):
    """A candidate's worker on a KernelBench-format task: the task's Model class (trusted, the
    task's own file), imported before the sandbox and before any candidate code, for the values
    ModelNew's state is aligned to (pyinit.align)."""
    if not spec.get("construct") or not spec.get("ref_file"):
        return
    try:
        mod = import_file(spec["ref_file"], "cl1_reference")
        _S["ref_cls"] = getattr(mod, spec.get("ref_class", "Model"))
    except BaseException as e:  # noqa: BLE001 — noted; ModelNew then keeps its own construction
        sys.stderr.write(f"pysol: the task's reference for aligning ModelNew: "
                         f"{type(e).__name__}: {str(e)[:300]}\n")


def preload(threads=1):
    """Before the sandbox: one intra-op thread (the host sandbox refuses new threads) and the
    libraries imported, so the candidate's import costs only its own module."""
    torch.set_num_threads(threads)
    if os.environ.get("CUDAL1_PY_DEVICE") == "cuda" and torch.cuda.is_available():
        torch.cuda.init()  # its context and threads before the sandbox, as the driver's are
        torch.empty(1, device="cuda")
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    importlib.import_module("torch.utils.cpp_extension")  # its import cost, outside the run
    return ""
