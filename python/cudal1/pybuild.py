"""pybuild.py — the build step of a Python solution: `python3 -m cudal1.pybuild MODULE EXT_DIR
CLASS`, run by the judge (src/eval/pybuild.c) confined by `cudal1-worker --confine-build`.

Importing the module runs its top level, and with it every load_inline: here the compiler may run
(the sandboxed worker may not exec anything), and each extension is built into EXT_DIR/<key>,
where the worker's own import finds it (pysol.install_ext_hooks). A module that does not import —
a syntax error, a missing package, a kernel that does not compile — stops here: exit 1 with the
reason as the last line of stderr, which the judge reports as the candidate's compile_error.

Then the class is constructed once, with the module's own get_init_inputs() when it has one,
because many solutions call load_inline from __init__ (CUDA-L1's released kernels do: the first
H100 audit, 2026-12-06, found their extensions never built, their ModelNew silently falling back
to PyTorch). What fails there is left for the sandboxed run to report.

Some call load_inline only inside forward(), on the first call, and many only for CUDA inputs.
When the source names load_inline more often than import and construction built extensions,
the object is called once as the evaluation will call it (probe_calls: on the CUDA backend on the
GPU, with the module's get_inputs() moved there; a native task's inputs when it has none) on a
thread: the build waits while a load_inline runs and otherwise at most PROBE_GRACE_S for the
call, then leaves it (its result and errors are nobody's: only the extensions it built count).

A Triton module (one that imports triton) compiles its kernels at their first call, with ptxas and
a C compiler the sandboxed worker may not exec. On the CUDA backend (CUDAL1_BUILD_BACKEND) the
build step therefore calls the object once more, on the GPU, with the module's get_inputs() moved
there, and, given $CUDAL1_WARM (the judge's: a native task's constructor arguments and inputs at
the evaluation's shapes), a second object built as the worker will build it, with random inputs
of those shapes; it waits up to TRITON_GRACE_S. Triton's JIT specialises a kernel on its
arguments (an integer's divisibility by 16, say), so the shapes matter. The kernels land in
$TRITON_CACHE_DIR (the folder's triton/), where the worker, pointed at that folder, finds them
(pysol.prepare). A kernel the calls did not compile still fails in the sandbox, as the
candidate's crash."""
import json
import os
import re
import sys
import threading
import time
import traceback

PROBE_GRACE_S = 5.0
TRITON_GRACE_S = 120.0


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: python3 -m cudal1.pybuild MODULE EXT_DIR CLASS\n")
        return 2
    path, ext_dir, cls = argv[1], argv[2], argv[3]
    os.makedirs(ext_dir, exist_ok=True)
    os.environ.setdefault("MAX_JOBS", "2")
    # torch and cudal1 first: a failure there is the harness's (exit 3), not the candidate's
    try:
        import torch  # noqa: F401
        from cudal1 import pysol
    except BaseException:
        traceback.print_exc()
        return 3
    pysol.install_ext_hooks(ext_dir, build=True)
    try:
        mod = pysol.import_file(path)
    except SyntaxError as e:
        sys.stderr.write(f"syntax error: line {e.lineno}: {e.msg}\n")
        return 1
    except BaseException as e:
        tb = traceback.format_exc(limit=8)
        sys.stderr.write(tb)
        sys.stderr.write(f"the module did not import: {type(e).__name__}: {e}\n")
        return 1
    if cls != "-" and not isinstance(getattr(mod, cls, None), type):
        sys.stderr.write(f"the module defines no class {cls}\n")
        return 1
    # "-": the judge's build, which does not know the class: a candidate's is ModelNew
    obj = construct(mod, "ModelNew" if cls == "-" else cls)
    probe = None
    if obj is not None and pysol.BUILDS["done"] < load_inline_sites(path):
        probe = probe_forward(mod, obj, pysol.BUILDS)
    if obj is not None and uses_triton(path) and os.environ.get("CUDAL1_BUILD_BACKEND") == "cuda":
        if probe is None or not probe.is_alive():
            probe = warm_triton(mod, obj)
    print(f"built: {len(os.listdir(ext_dir))} extension(s)", flush=True)
    if probe is not None and probe.is_alive():  # a forward left running: not worth waiting for
        sys.stderr.flush()
        os._exit(0)
    return 0


def load_inline_sites(path):
    """How many times the source calls load_inline (a static count: a call in a loop is one)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return len(re.findall(r"\bload_inline\s*\(", f.read()))
    except OSError:
        return 0


def uses_triton(path):
    """Whether the module imports Triton (its JIT then compiles at the first call)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return re.search(r"^\s*(import\s+triton\b|from\s+triton\b)", f.read(), re.M) is not None
    except OSError:
        return False


def to_cuda(x):
    """get_inputs()'s values on the GPU (tensors, and tensors inside lists and tuples)."""
    import torch
    if isinstance(x, torch.Tensor):
        return x.cuda()
    if isinstance(x, (list, tuple)):
        return type(x)(to_cuda(v) for v in x)
    return x


def warm_triton(mod, obj, grace_s=TRITON_GRACE_S):
    """obj on the GPU called once with get_inputs() on the GPU, on a daemon thread, waited for up
    to grace_s: Triton's JIT compiles the kernels of those shapes into $TRITON_CACHE_DIR. Returns
    the thread (None: nothing to call it with)."""
    get = getattr(mod, "get_inputs", None)
    if not callable(get):
        sys.stderr.write("note: a Triton module without get_inputs(): its kernels cannot be "
                         "compiled ahead, and the sandboxed worker may not compile them\n")
        return None

    def call():
        import torch
        calls = [lambda: ((obj.cuda() if hasattr(obj, "cuda") else obj), to_cuda(list(get())))]
        spec = os.environ.get("CUDAL1_WARM")
        if spec:
            calls.append(lambda: warm_call(type(obj), json.loads(spec), "cuda"))
        for make in calls:
            try:
                model, inputs = make()
                with torch.no_grad():
                    model(*inputs)
                torch.cuda.synchronize()
            except BaseException as e:  # noqa: BLE001 — the candidate's code; its run reports
                sys.stderr.write(f"note: the Triton warm-up: {type(e).__name__}: {str(e)[:200]}\n")

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(grace_s)
    return t


def warm_call(cls, spec, device):
    """(model, inputs) for CUDAL1_WARM's call: cls constructed with the task's arguments (its
    twin's make, as pysol builds it) and random inputs of the spec's dtypes and shapes."""
    import torch
    from cudal1 import pysol
    args, kwargs = pysol._init_args(spec)
    model = cls(*args, **kwargs)
    if hasattr(model, "to"):
        model = model.to(device)
    inputs = []
    for dt, shape in spec.get("inputs", []):
        t = pysol._DT[dt]
        x = torch.randn(shape, dtype=t) if t.is_floating_point else torch.zeros(shape, dtype=t)
        inputs.append(x.to(device))
    return model, inputs


def probe_calls(mod, obj):
    """The calls that reach a load_inline made on the first forward, as the evaluation will make
    them: on the CUDA backend the object and get_inputs() on the GPU (a lazy extension is often
    built only for CUDA inputs: 45 of CUDA-L1's passing kernels with load_inline, audited on
    2026-12-07, took their PyTorch fallback because the probe called them on CPU tensors), and
    a native task's inputs at the evaluation's shapes ($CUDAL1_WARM) when the module has no
    get_inputs(). Each entry makes (model, inputs)."""
    dev = "cuda" if os.environ.get("CUDAL1_BUILD_BACKEND") == "cuda" else "cpu"
    get = getattr(mod, "get_inputs", None)
    calls = []
    if callable(get):
        if dev == "cuda":
            calls.append(lambda: ((obj.cuda() if hasattr(obj, "cuda") else obj), to_cuda(list(get()))))
        else:
            calls.append(lambda: (obj, list(get())))
    spec = os.environ.get("CUDAL1_WARM")
    if spec and not callable(get):
        calls.append(lambda: warm_call(type(obj), json.loads(spec), dev))
    return calls


def probe_forward(mod, obj, builds, grace_s=PROBE_GRACE_S):
    """The object called once (probe_calls) on a daemon thread, for a load_inline made on the
    first call; waits while a build runs, else at most grace_s. Returns the thread (None:
    nothing to call it with)."""
    calls = probe_calls(mod, obj)
    if not calls:
        return None

    def call():
        import torch
        for make in calls:
            try:
                model, inputs = make()
                with torch.no_grad():
                    model(*inputs)
            except BaseException as e:  # noqa: BLE001 — the candidate's code; its run reports
                sys.stderr.write(f"note: the forward probe: {type(e).__name__}: {str(e)[:200]}\n")

    t = threading.Thread(target=call, daemon=True)
    t0 = time.monotonic()
    t.start()
    while t.is_alive() and (builds["running"] or time.monotonic() - t0 < grace_s):
        t.join(0.05)
    return t


def construct(mod, cls):
    """cls(*get_init_inputs()) (or cls()), for the load_inline calls its __init__ makes; any
    failure is reported by the sandboxed run, with the task's own arguments. The object, or None."""
    if not isinstance(getattr(mod, cls, None), type):
        return None
    try:
        get = getattr(mod, "get_init_inputs", None)
        args = list(get()) if callable(get) else []
        return getattr(mod, cls)(*args)
    except BaseException as e:  # noqa: BLE001 — the candidate's code; its run says what went wrong
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        sys.stderr.write(f"note: {cls}(...) in the build step: {type(e).__name__}: {e}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
