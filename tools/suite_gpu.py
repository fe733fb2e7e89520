#!/usr/bin/env python3
"""suite_gpu.py — the suite's GPU checks and the reference-fidelity benchmark, in one process.

For every task (or each --task) it drives the C reference through build/libcudal1.so
(src/eval/embed.h, ctypes) on memory it allocates with PyTorch, so nothing goes through .npy
files (large shape sets hold up to 16 GB per task):

  test   the CUDA reference vs the host reference (C loops, double accumulation) on the same
         generated inputs, with the task's tolerance;
  small, large
         the CUDA reference vs the PyTorch twin on CUDA in float32 with PyTorch's defaults
         (matmul TF32 off, cuDNN TF32 on), the same generated inputs and params;
         --time: both timed with the evaluator's protocol (warm-up; reference and twin
         interleaved; L2 flushed by writing 2x its size before every call; CUDA events on one
         stream; median of >= 30 trials, stopping at a 1% CI or the time budget). The ratio
         reference / eager is the fidelity figure of bench/ref_fidelity.
         --profile: each side's top CUDA kernels by device time per call (torch.profiler,
         which sees the C reference's kernels too: same process), to say why a ratio is off,
         and kernel_ratio: the reference's device time per call over eager's, launch and
         dispatch time left out (at small shapes eager's wall time is mostly Python dispatch).
         Not together with --time: once the profiler has run, eager's dispatch is slower.

Tolerance test as everywhere in cudal1: |ref - twin| <= atol + rtol * |twin|. Tasks run in a
child process that the parent restarts after a crash or a sticky CUDA error, so one broken task
cannot hide the rest. Writes one JSON document (--out) with a row per task and a summary.
"""
import argparse
import ctypes
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = {}


def find_tasks(suite, levels=None):
    out = []
    for level in sorted(os.listdir(suite)):
        if levels and level not in levels:
            continue
        ldir = os.path.join(suite, level)
        if not os.path.isdir(ldir):
            continue
        for name in sorted(os.listdir(ldir), key=lambda n: (int(n.split("_")[0]) if n.split("_")[0].isdigit() else 0, n)):
            if os.path.isfile(os.path.join(ldir, name, "task.json")):
                out.append(f"{level}/{name}")
    return out


class Embed:
    """One task instance behind src/eval/embed.h."""

    def __init__(self, lib, task, shapes, backend):
        self.lib = lib
        err = ctypes.create_string_buffer(2048)
        self.h = lib.cl1_embed_open(task.encode(), shapes.encode(), backend.encode(), err, 2048)
        if not self.h:
            raise RuntimeError(err.value.decode(errors="replace"))
        self.meta = json.loads(lib.cl1_embed_describe(self.h).decode())
        self.bound = None

    def setup(self, pars, outs, stream):
        """Binds the reference to params pars and output buffers outs. The instance keeps them
        until it is bound again or closed: every later forward writes outs, and a freed buffer
        would be handed to another tensor or unmapped (a graph capture empties the cache)."""
        self.bound = (pars, outs)
        self.check(self.lib.cl1_embed_setup(self.h, ptrs(pars), ptrs(outs), stream), "setup")

    def error(self):
        return self.lib.cl1_embed_error(self.h).decode(errors="replace")

    def check(self, rc, what):
        if rc:
            raise RuntimeError(f"{what}: {self.error()}")

    def close(self):
        if self.h:
            self.lib.cl1_embed_close(self.h)
            self.h = None
            self.bound = None


def load_lib(build):
    lib = ctypes.CDLL(os.path.join(build, "libcudal1.so"))
    vp, cp = ctypes.c_void_p, ctypes.c_char_p
    lib.cl1_embed_open.restype = vp
    lib.cl1_embed_open.argtypes = [cp, cp, cp, ctypes.c_char_p, ctypes.c_size_t]
    lib.cl1_embed_describe.restype = cp
    lib.cl1_embed_describe.argtypes = [vp]
    lib.cl1_embed_error.restype = cp
    lib.cl1_embed_error.argtypes = [vp]
    lib.cl1_embed_gen.argtypes = [vp, ctypes.c_int, ctypes.c_int, vp, ctypes.c_uint64]
    lib.cl1_embed_setup.argtypes = [vp, ctypes.POINTER(vp), ctypes.POINTER(vp), vp]
    lib.cl1_embed_forward.argtypes = [vp, ctypes.POINTER(vp)]
    lib.cl1_embed_sync.argtypes = [vp]
    lib.cl1_embed_close.argtypes = [vp]
    return lib


def ptrs(ts):
    arr = (ctypes.c_void_p * max(1, len(ts)))()
    for i, t in enumerate(ts):
        arr[i] = t.data_ptr() if t.numel() else None
    return arr


def alloc(torch, specs, dev):
    return [torch.empty(s["shape"], dtype=DTYPES[s["dtype"]], device=dev) for s in specs]


def generate(torch, e, dev, seed):
    """Inputs and params of instance e from seed, in memory on dev (torch tensors)."""
    ins, pars = alloc(torch, e.meta["inputs"], dev), alloc(torch, e.meta["params"], dev)
    for g, ts in ((0, ins), (1, pars)):
        for i, t in enumerate(ts):
            if t.numel():
                e.check(e.lib.cl1_embed_gen(e.h, g, i, t.data_ptr(), seed), f"generating {'input' if g == 0 else 'param'} {i}")
    return ins, pars


def run_ref(torch, e, dev, ins, pars, stream=None):
    outs = alloc(torch, e.meta["outputs"], dev)
    e.setup(pars, outs, stream)
    e.check(e.lib.cl1_embed_forward(e.h, ptrs(ins)), "forward")
    e.check(e.lib.cl1_embed_sync(e.h), "sync")
    return outs


def compare(torch, got, want, atol, rtol):
    """Worst abs/rel error and the first out-of-tolerance description (chunked, float64)."""
    worst = {"max_abs": 0.0, "max_rel": 0.0}
    for k, (g, w) in enumerate(zip(got, want)):
        if tuple(g.shape) != tuple(w.shape):
            return f"output {k}: shape {tuple(g.shape)} != twin's {tuple(w.shape)}", worst
        g, w = g.reshape(-1), w.reshape(-1)
        step = 1 << 26
        nbad = 0
        for s in range(0, g.numel(), step):
            a = g[s:s + step].to(torch.float64)
            b = w[s:s + step].to(a.device, torch.float64)
            fa, fb = torch.isfinite(a), torch.isfinite(b)
            if not bool(torch.equal(fa, fb)):
                return f"output {k}: non-finite values differ from the twin's", worst
            err = torch.where(fa, (a - b).abs(), torch.zeros_like(a))
            if err.numel():
                worst["max_abs"] = max(worst["max_abs"], float(err.max()))
                worst["max_rel"] = max(worst["max_rel"], float((err / b.abs().clamp_min(1e-30)).max()))
            nbad += int((err > atol + rtol * b.abs()).sum())
        if nbad:
            return f"output {k}: {nbad} of {g.numel()} elements out of tolerance (atol {atol:g} rtol {rtol:g})", worst
    return "", worst


def check_test(torch, lib, tid, seed):
    """test shapes: CUDA reference vs host reference."""
    ec, eh = Embed(lib, tid, "test", "cuda"), Embed(lib, tid, "test", "host")
    try:
        ic, pc = generate(torch, ec, "cuda", seed)
        ih, ph = generate(torch, eh, "cpu", seed)
        for a, b in zip(ic + pc, ih + ph):  # the generator must agree across backends
            if a.dtype.is_floating_point and not torch.allclose(a.cpu().double(), b.double(), rtol=1e-6, atol=1e-6):
                return {"pass": False, "reason": "generated values differ between host and CUDA"}
        oc = run_ref(torch, ec, "cuda", ic, pc)
        oh = run_ref(torch, eh, "cpu", ih, ph)
        why, worst = compare(torch, [o.cpu() for o in oc], oh, ec.meta["atol"], ec.meta["rtol"])
        return {"pass": not why, "reason": why, **worst}
    finally:
        ec.close()
        eh.close()


def twin_model(torch, tid, meta, pars):
    import importlib.util
    path = os.path.join(ROOT, "suite", tid, "twin.py")
    spec = importlib.util.spec_from_file_location("twin_" + str(abs(hash(path))), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    model = mod.make(meta["dims"], meta["attrs"]).to("cuda")
    sd = model.state_dict()
    names = [p["name"] for p in meta["params"]]
    if sorted(sd) != sorted(names):
        raise RuntimeError(f"state_dict mismatch: missing {[k for k in sd if k not in names]} "
                           f"unexpected {[k for k in names if k not in sd]}")
    model.load_state_dict(dict(zip(names, pars)), strict=True)
    model.eval()
    return model


MIN_TRIALS = 30


def timed(torch, fns, flush, budget_s, max_trials=1000):
    """Median ms of each fn, interleaved, L2 flushed before every call, CUDA events."""
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in fns]
    for f in fns:  # warm-up: lazy init, cuDNN plans, allocator
        for _ in range(3):
            f()
    torch.cuda.synchronize()
    ms = [[] for _ in fns]
    t0 = time.time()
    for i in range(max_trials):
        for k, f in enumerate(fns):
            flush.zero_()
            ev[k][0].record()  # on the current stream: the caller's
            f()
            ev[k][1].record()
            ev[k][1].synchronize()
            ms[k].append(ev[k][0].elapsed_time(ev[k][1]))
        n = i + 1
        if n >= MIN_TRIALS:
            if all(ci_rel(m) <= 0.01 for m in ms) or time.time() - t0 > budget_s:
                break
    return [median(m) for m in ms], [ci_rel(m) for m in ms], len(ms[0])


def median(x):
    s = sorted(x)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def ci_rel(x):
    s = sorted(x)
    n = len(s)
    h = 1.96 * math.sqrt(n) / 2
    lo, hi = max(0, int(math.floor(n / 2 - h))), min(n - 1, int(math.ceil(n / 2 + h)))
    m = median(s)
    return (s[hi] - s[lo]) / m if m > 0 else float("inf")


def kernel_table(torch, fn, reps=3, top=12):
    """The CUDA kernels (and copies) fn launches: {"device_us": all of them per call, "top": the
    first `top` by device time per call as [[name, us, n]]}. CUPTI through torch.profiler sees
    every kernel of the process, the C reference's too. device_us leaves out the host's launch
    and dispatch time, which at small shapes is most of eager's wall time."""
    from torch.profiler import profile, ProfilerActivity
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    rows = []
    for a in prof.key_averages():
        us = getattr(a, "device_time_total", None)
        if us is None:
            us = getattr(a, "cuda_time_total", 0)
        if us > 0:
            rows.append([a.key[:90], round(us / reps, 2), round(a.count / reps, 2)])
    rows.sort(key=lambda r: -r[1])
    return {"device_us": round(sum(r[1] for r in rows), 2), "top": rows[:top]}


def check_twin(torch, lib, tid, shapes, seed, do_time, budget_s, do_profile=False):
    """small/large: CUDA reference vs twin on CUDA; optionally both timed."""
    e = Embed(lib, tid, shapes, "cuda")
    # a task whose reference runs its convolutions in full FP32 (attr conv_tf32 = 0) has a twin
    # checked and timed the same way
    torch.backends.cudnn.allow_tf32 = e.meta["attrs"].get("conv_tf32", 1) != 0
    try:
        ins, pars = generate(torch, e, "cuda", seed)
        # One non-default stream for the reference, the twin and the events: the legacy default
        # stream (torch's current one) would leave the reference on the embed's own stream.
        st = torch.cuda.Stream()
        with torch.cuda.stream(st):
            outs = run_ref(torch, e, "cuda", ins, pars, st.cuda_stream)
            model = twin_model(torch, tid, e.meta, pars)
            with torch.no_grad():
                res = model(*ins)
        st.synchronize()
        if not isinstance(res, (tuple, list)):
            res = (res,)
        if len(res) != len(outs):
            return {"pass": False, "reason": f"twin returned {len(res)} outputs, task has {len(outs)}"}
        why, worst = compare(torch, outs, list(res), e.meta["atol"], e.meta["rtol"])
        row = {"pass": not why, "reason": why, **worst}
        del res
        inp = ptrs(ins)

        def ref():
            e.check(e.lib.cl1_embed_forward(e.h, inp), "forward")

        def twin():
            with torch.no_grad():
                model(*ins)
        if do_time:
            flush = torch.empty(max(2 * int(e.meta["l2_bytes"]), 1 << 20), dtype=torch.uint8, device="cuda")
            with torch.cuda.stream(st):
                (rm, tm), (rc, tc), n = timed(torch, [ref, twin], flush, budget_s)
            row.update({"ref_ms": rm, "eager_ms": tm, "ratio": rm / tm if tm > 0 else None,
                        "ref_ci_rel": rc, "eager_ci_rel": tc, "trials": n})
        if do_profile:
            with torch.cuda.stream(st):
                prof = {"ref": kernel_table(torch, ref), "eager": kernel_table(torch, twin)}
                row["profile"] = prof
                de = prof["eager"]["device_us"]
                row["kernel_ratio"] = prof["ref"]["device_us"] / de if de > 0 else None
        return row
    finally:
        torch.backends.cudnn.allow_tf32 = True
        e.close()


STICKY_EXIT = 17  # a child whose CUDA context a sticky error poisoned: the parent restarts it


def sticky(text):
    """A CUDA error that leaves the context unusable: the worker must restart after the row."""
    return "CUDA error" in text or "illegal" in text


def init_torch(args):
    """(torch, lib) for a worker process: the dtype table, the trial minimum (args.min_trials)
    and PyTorch's default TF32 settings, stated; the C library from args.build."""
    import torch
    global MIN_TRIALS
    MIN_TRIALS = args.min_trials
    DTYPES.update({"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                   "f64": torch.float64, "i32": torch.int32, "i64": torch.int64,
                   "u8": torch.uint8, "bool": torch.bool})
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    return torch, load_lib(args.build)


def worker(args):
    torch, lib = init_torch(args)
    for tid in args.task:
        row = {"task": tid}
        for shapes in args.shapes:
            t0 = time.time()
            try:
                if shapes == "test":
                    r = check_test(torch, lib, tid, args.seed)
                else:
                    r = check_twin(torch, lib, tid, shapes, args.seed, args.time, args.budget,
                                   args.profile)
            except Exception as ex:  # a broken task is a failed check, not a crashed run
                r = {"pass": False, "reason": f"{type(ex).__name__}: {ex}"}
            r["wall_s"] = round(time.time() - t0, 3)
            row[shapes] = r
            torch.cuda.empty_cache()
            if sticky(r.get("reason", "")):
                print(json.dumps(row), flush=True)
                os._exit(STICKY_EXIT)
        print(json.dumps(row), flush=True)
    return 0


def lines_of(p, timeout_s):
    """Lines of p's stdout; None when none arrives within timeout_s."""
    import select
    fd, buf = p.stdout.fileno(), b""
    while True:
        r, _, _ = select.select([fd], [], [], timeout_s)
        if not r:
            yield None
            return
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode(errors="replace")


DEADLINE_EXIT = 75  # a child that stops before its next task because its --deadline has passed


def drive(cmd, tasks, task_timeout, on_row, on_fail, rows):
    """Runs `cmd --task T...` as a child that prints one JSON row per task, restarting it after
    a crash, a sticky CUDA error (exit 17) or a task that hangs past task_timeout: the task it
    died in gets on_fail(task, why)'s row and the rest go on. Fills rows ({task: row})."""
    todo, barren = list(tasks), 0
    while todo and barren < 3:  # three starts in a row without a row: the tool itself is broken
        p = subprocess.Popen(cmd + [a for t in todo for a in ("--task", t)], stdout=subprocess.PIPE)
        hung = False
        for line in lines_of(p, task_timeout):
            if line is None:  # no row within the limit: the current task hangs
                hung = True
                p.kill()
                break
            try:
                r = json.loads(line)
            except ValueError:
                continue
            rows[r["task"]] = r
            on_row(r)
        p.wait()
        if p.returncode == DEADLINE_EXIT:  # the child's time is up: the rest waits for another run
            return
        done = [t for t in todo if t in rows]
        barren = 0 if done else barren + 1
        rest = [t for t in todo if t not in rows]
        if p.returncode not in (0, STICKY_EXIT) and rest:  # died inside rest[0]: record it, go on
            why = (f"no result within {task_timeout:g} s (hung; killed)" if hung
                   else f"worker died (exit {p.returncode})")
            rows[rest[0]] = on_fail(rest[0], why)
            rest = rest[1:]
        todo = rest if (done or p.returncode != 0) else []


def write_doc(args, tasks, rows):
    ordered = [rows[t] for t in tasks if t in rows]
    summary = {}
    for s in args.shapes:
        res = [r[s] for r in ordered if s in r]
        summary[s] = {"passed": sum(1 for x in res if x.get("pass")), "failed": sum(1 for x in res if not x.get("pass"))}
        kr = sorted(x["kernel_ratio"] for x in res if x.get("kernel_ratio"))
        if kr:
            summary[s].update({"kernel_ratio_median": median(kr), "kernel_ratio_max": kr[-1],
                               "kernel_ratio_above_1.5": [r["task"] for r in ordered
                                                          if (r.get(s, {}).get("kernel_ratio") or 0) > 1.5]})
        ratios = sorted(x["ratio"] for x in res if x.get("ratio"))
        if ratios:
            summary[s].update({"ratio_median": median(ratios), "ratio_max": ratios[-1],
                               "ratio_min": ratios[0], "timed": len(ratios),
                               "above_1.5": [r["task"] for r in ordered if (r.get(s, {}).get("ratio") or 0) > 1.5]})
    if args.out:
        doc = {"tool": "tools/suite_gpu.py", "seed": args.seed, "shapes": args.shapes, "timed": args.time,
               "min_trials": args.min_trials, "budget_s": args.budget, "planned": len(tasks),
               "summary": summary, "results": ordered}
        doc.update(ENV)
        with open(args.out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(args.out + ".tmp", args.out)
    return summary


ENV = {}


def report(r, shapes):
    ok = all(r.get(s, {}).get("pass") for s in shapes)
    bits = " ".join(f"{s}:{'ok' if r.get(s, {}).get('pass') else 'FAIL'}" +
                    (f"({r[s]['ratio']:.2f})" if r.get(s, {}).get("ratio") else "") for s in shapes)
    print(f"{'ok' if ok else 'FAIL'} {r['task']} {bits}", flush=True)
    for s in shapes:
        if r.get(s, {}).get("reason"):
            print(f"    {s}: {r[s]['reason'][:300]}", flush=True)
        for side, tab in r.get(s, {}).get("profile", {}).items():
            print(f"    {s} {side:5s} {tab['device_us']:10.1f} us on the device per call", flush=True)
            for name, us, n in tab["top"][:8]:
                print(f"    {s} {side:5s} {us:10.1f} us x{n:<5g} {name[:70]}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--task", action="append", default=[])
    ap.add_argument("--level", action="append", default=[], help="level1|level2|level3")
    ap.add_argument("--shapes", action="append", default=[], choices=["test", "small", "large"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time", action="store_true", help="also time reference and eager twin")
    ap.add_argument("--budget", type=float, default=2.0, help="timing seconds per task and shape set")
    ap.add_argument("--min-trials", type=int, default=30)
    ap.add_argument("--profile", action="store_true",
                    help="also record each side's top CUDA kernels (torch.profiler) per task and shape set")
    ap.add_argument("--out", default=None)
    ap.add_argument("--task-timeout", type=float, default=300.0, help="seconds one task may take")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.shapes = args.shapes or ["test", "small", "large"]
    if args.time and args.profile:
        # measured on the H200: after torch.profiler has run in a process, eager's dispatch there
        # is slower for every later task (small-shape eager times up to 2x), so the ratios lie
        ap.error("--time and --profile in one run: the profiler slows eager's later timings; "
                 "run them separately")
    if args.worker:
        return worker(args)
    tasks = args.task or find_tasks(os.path.join(ROOT, "suite"), args.level or None)
    try:
        import torch
        ENV.update({"torch": torch.__version__,
                    "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""})
    except Exception:
        pass
    ENV["commit"] = os.environ.get("CL1_COMMIT", "")
    ENV["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    rows = {}
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--build", args.build,
           "--seed", str(args.seed), "--budget", str(args.budget),
           "--min-trials", str(args.min_trials)]
    cmd += ["--time"] if args.time else []
    cmd += ["--profile"] if args.profile else []
    for s in args.shapes:
        cmd += ["--shapes", s]

    def on_row(r):
        report(r, args.shapes)
        write_doc(args, tasks, rows)  # after every task: a killed run keeps what it did

    def on_fail(tid, why):
        print(f"FAIL {tid} {why}", flush=True)
        return {"task": tid, **{s: {"pass": False, "reason": why} for s in args.shapes}}
    drive(cmd, tasks, args.task_timeout, on_row, on_fail, rows)
    summary = write_doc(args, tasks, rows)
    for s, v in summary.items():
        print(f"{s}: {v['passed']} passed, {v['failed']} failed" +
              (f"; ratio median {v['ratio_median']:.3f} max {v['ratio_max']:.3f}" if "ratio_median" in v else ""))
    return 0 if all(v["failed"] == 0 for v in summary.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
