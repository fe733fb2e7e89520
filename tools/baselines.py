#!/usr/bin/env python3
"""baselines.py — CUDA-L1's four PyTorch baselines for every task (issue 6), on the GPU machine.

For each task and shape set (small, large) the PyTorch twin runs on the task's own generated
inputs and params (the evaluator's generator through build/libcudal1.so, so the values are those
of `cudal1 suite export --seed K`) in four modes:

  eager            the twin as it is;
  compile          torch.compile(model) (default mode);
  reduce-overhead  torch.compile(model, mode="reduce-overhead") (CUDA graphs inside);
  graph            the eager twin captured once per input set in a torch.cuda.CUDAGraph over
                   static input buffers and replayed;
  ref-graph        the harness-side CUDA-graph baseline: our C reference's own call captured the
                   same way (what `cudal1 eval --graph` launches);

each mode's outputs are checked against our C reference's with the task's tolerance, then the
mode is timed interleaved with the C reference under the evaluator's protocol: warm-up, the two
input sets rotated, L2 flushed (2x its size written) before every call, CUDA events on one
stream, median of >= 30 trials (stopping at a 1% CI or the time budget), the CI's relative width
as the spread. A mode that fails (compile error, capture not possible, wrong outputs) is recorded
with its reason, not skipped. The C reference's median timed beside each mode is kept with it, so
`cudal1 eval --baseline` and `cudal1 report` take speedups against a baseline through the
reference: two ratios measured side by side.

Writes --out (one shape set per file: bench/results/h200/baselines-<shapes>.json) after every
task, with the torch version, GPU, driver, commit and date of every run that added to it.
`cudal1 baselines import FILE` loads it.

The whole suite is more than one device session's work, so a file fills up cell by cell:
--resume keeps every (task, mode) already in --out and runs only the missing ones (a cell that
died with its worker is tried again), and --deadline stops cleanly before the next task once
the session's time is spent. torch.compile's compilation is most of the time and runs on the CPU:
--precompile N first compiles the pending tasks in N processes at once (no timing: that would
share the GPU), filling Inductor's on-disk caches, so the timed pass that follows, one process
alone on the GPU, loads its graphs from the cache instead of compiling them. The (task, mode)
pairs compiled so are listed inside that cache directory (TORCHINDUCTOR_CACHE_DIR, set here when
unset): a later --precompile on the same machine skips them, and on a fresh machine, whose cache
is empty, the list is gone with it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_gpu as sg  # noqa: E402  (the generator, twin loader, comparison and timing)

MODES = ["eager", "compile", "reduce-overhead", "graph", "ref-graph"]
COMPILED = ("compile", "reduce-overhead")
RETRY = ("task_failed", "cuda_fault")  # statuses of a cell that died with its worker: tried again


def rotating(fns):
    """One callable that calls fns[0], fns[1], ... in turn: the input sets rotate per call."""
    k = [0]

    def f():
        fns[k[0] % len(fns)]()
        k[0] += 1
    return f


def capture(torch, calls, st):
    """One CUDA graph per callable (warmed up first on a side stream), on stream st."""
    side = torch.cuda.Stream()
    side.wait_stream(st)
    with torch.cuda.stream(side):
        for c in calls:
            for _ in range(3):
                c()
    st.wait_stream(side)
    graphs, outs = [], []
    for c in calls:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=st):
            outs.append(c())
        graphs.append(g)
    return graphs, outs


def build_ref_graph(torch, e, pars, ins_sets, st):
    """ref-graph: the C reference's call captured per input set; its outputs (fresh buffers set
    up for the capture) are compared like any mode's."""
    t0 = time.time()
    outs = sg.alloc(torch, e.meta["outputs"], "cuda")
    e.setup(pars, outs, st.cuda_stream)  # the timed reference calls write these from now on
    ptr_sets = [sg.ptrs(ins) for ins in ins_sets]
    calls = [lambda p=p: e.check(e.lib.cl1_embed_forward(e.h, p), "forward") for p in ptr_sets]
    graphs, _ = capture(torch, calls, st)
    graphs[0].replay()
    st.synchronize()
    return [g.replay for g in graphs], outs, time.time() - t0


def build_mode(torch, mode, model, ins_sets, st):
    """(per-input-set callables, outputs of input set 0) for one mode; compile time if any."""
    t0 = time.time()
    if mode == "eager":
        fns = [lambda ins=ins: model(*ins) for ins in ins_sets]
    elif mode in ("compile", "reduce-overhead"):
        cm = torch.compile(model) if mode == "compile" else torch.compile(model, mode="reduce-overhead")
        fns = [lambda ins=ins: cm(*ins) for ins in ins_sets]
        for _ in range(3):  # compile, then the warm-up calls reduce-overhead records graphs in
            for f in fns:
                f()
    else:  # graph: one capture per input set over its static buffers
        graphs, outs = capture(torch, [lambda ins=ins: model(*ins) for ins in ins_sets], st)
        fns = [g.replay for g in graphs]
        fns[0]()
        st.synchronize()
        return fns, outs[0], time.time() - t0
    out = fns[0]()
    st.synchronize()
    return fns, out, time.time() - t0


def graph_vs_eager(torch, model, ins, outs, meta):
    """For a graph capture whose outputs disagree with the reference: do they agree with the
    eager twin on the same inputs? Says whether the capture or the twin is off."""
    try:
        eo = model(*ins)
        eo = list(eo) if isinstance(eo, (tuple, list)) else [eo]
        why, worst = sg.compare(torch, outs, eo, meta["atol"], meta["rtol"])
        return "same as eager" if not why else f"differs from eager too (max_abs {worst['max_abs']:.3g})"
    except Exception as ex:
        return f"eager rerun failed: {type(ex).__name__}"


def measure_mode(torch, e, mode, model, pars, ins_sets, ref_outs, ref, flush, st, budget_s):
    r = {}
    with torch.no_grad(), torch.cuda.stream(st):
        if mode == "ref-graph":
            fns, out, build_s = build_ref_graph(torch, e, pars, ins_sets, st)
        else:
            fns, out, build_s = build_mode(torch, mode, model, ins_sets, st)
    if mode != "eager":
        r["build_s"] = round(build_s, 3)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    why, worst = sg.compare(torch, outs, ref_outs, e.meta["atol"], e.meta["rtol"])
    if why:
        r.update({"status": f"incorrect: {why}", **worst})
        if mode == "graph":
            with torch.no_grad(), torch.cuda.stream(st):
                r["diagnosis"] = graph_vs_eager(torch, model, ins_sets[0], outs, e.meta)
        return r
    with torch.no_grad(), torch.cuda.stream(st):
        (rm, mm), (rc, mc), n = sg.timed(torch, [ref, rotating(fns)], flush, budget_s)
    # an asynchronous fault of this mode's replays is reported here, as its own
    st.synchronize()
    r.update({"status": "ok", "median_ms": mm, "ci_rel": mc, "ref_ms": rm, "ref_ci_rel": rc,
              "trials": n, **worst})
    return r


def fail_status(mode, ex):
    msg = str(ex).strip().splitlines()[0][:300] if str(ex).strip() else ""
    kind = {"graph": "capture_failed", "ref-graph": "capture_failed",
            "eager": "eager_failed"}.get(mode, "compile_error")
    return f"{kind}: {type(ex).__name__}: {msg}"


def run_task(torch, lib, tid, shapes, seed, modes, budget_s, compile_only=False):
    """{mode: result} for one task; with compile_only, just compiles the torch.compile modes
    (the same settings and contexts as the timed pass, so that it finds them in the cache)."""
    e = sg.Embed(lib, tid, shapes, "cuda")
    torch.backends.cudnn.allow_tf32 = e.meta["attrs"].get("conv_tf32", 1) != 0
    row = {}
    try:
        ins0, pars = sg.generate(torch, e, "cuda", seed)
        ins1, _ = sg.generate(torch, e, "cuda", seed + 1000003)
        st = torch.cuda.Stream()
        with torch.cuda.stream(st):
            model = sg.twin_model(torch, tid, e.meta, pars)
            if compile_only:
                for mode in modes:
                    try:
                        with torch.no_grad():
                            row[mode] = {"build_s": round(build_mode(torch, mode, model, [ins0, ins1], st)[2], 3)}
                    except Exception as ex:
                        row[mode] = {"status": fail_status(mode, ex)}
                    torch._dynamo.reset()
                return row
            # a copy: the reference writes its bound outputs again every time it is timed
            ref_outs = [o.clone() for o in sg.run_ref(torch, e, "cuda", ins0, pars, st.cuda_stream)]
        st.synchronize()
        ptr_sets = [sg.ptrs(ins0), sg.ptrs(ins1)]
        ref = rotating([lambda p=p: e.check(e.lib.cl1_embed_forward(e.h, p), "forward") for p in ptr_sets])
        flush = torch.empty(max(2 * int(e.meta["l2_bytes"]), 1 << 20), dtype=torch.uint8, device="cuda")
        for mode in modes:
            try:
                row[mode] = measure_mode(torch, e, mode, model, pars, [ins0, ins1], ref_outs, ref,
                                         flush, st, budget_s)
            except Exception as ex:  # a mode that cannot run is a result, not a crash
                row[mode] = {"status": fail_status(mode, ex)}
                if sg.sticky(str(ex)):
                    raise
            if mode in COMPILED:
                torch._dynamo.reset()  # the next task's model compiles afresh
        return row
    finally:
        torch.backends.cudnn.allow_tf32 = True
        e.close()


def worker(args):
    if args.compile_only:  # one of many at once: one Inductor compile thread each
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    torch, lib = sg.init_torch(args)
    modes = args.modes.split(",")
    for tid in args.task:
        if args.deadline and time.time() > args.deadline:
            sys.stdout.flush()
            os._exit(sg.DEADLINE_EXIT)
        t0 = time.time()
        try:
            m = run_task(torch, lib, tid, args.shapes, args.seed, modes, args.budget, args.compile_only)
        except Exception as ex:
            m = {k: {"status": f"task_failed: {type(ex).__name__}: {str(ex)[:300]}"} for k in modes}
        r = {"task": tid, "modes": m, "wall_s": round(time.time() - t0, 2)}
        try:
            torch.cuda.empty_cache()
        except Exception as ex:  # a sticky fault: report the row, then restart (sg.STICKY_EXIT)
            r["modes"] = {k: (v if v.get("status") == "ok" else
                              {"status": f"cuda_fault: {type(ex).__name__}: {str(ex)[:200]}",
                               "before": v.get("status", "")})
                          for k, v in r["modes"].items()}
            print(json.dumps(r), flush=True)
            os._exit(sg.STICKY_EXIT)
        print(json.dumps(r), flush=True)
        if any(sg.sticky(v.get("status", "")) for v in r["modes"].values()):
            os._exit(sg.STICKY_EXIT)
    return 0


def failed_row(tid, why, modes):
    """The row of a task whose worker died in it: every mode it was running failed with why."""
    return {"task": tid, "modes": {k: {"status": f"task_failed: {why}"} for k in modes}}


def missing(rows, tasks, modes):
    """{task: [modes it still needs]}: cells absent from rows, or dead with their worker."""
    need = {}
    for t in tasks:
        have = rows.get(t, {}).get("modes", {})
        m = [k for k in modes if k not in have or have[k].get("status", "").startswith(RETRY)]
        if m:
            need[t] = m
    return need


def merge(old, new):
    """new's cells over old's; the row's reference time is the one beside eager."""
    if old:
        modes = dict(old["modes"], **new["modes"])
        new = dict(old, modes=modes, wall_s=round(old.get("wall_s", 0) + new.get("wall_s", 0), 2))
    new["modes"] = {k: new["modes"][k] for k in MODES if k in new["modes"]}
    new["ref_ms"] = new["modes"].get("eager", {}).get("ref_ms")
    return new


def shown_runs(runs):
    """The runs a file lists: those that measured a cell; the last one alone when none did (so the
    file still says which commit and date made it). A resumed call that found nothing left to
    measure would otherwise add an empty entry each time."""
    return [r for r in runs if r.get("cells")] or runs[-1:]


def cells(path):
    try:
        return sum(len(r["modes"]) for r in json.load(open(path))["results"])
    except (OSError, ValueError, KeyError, TypeError):
        return -1


def pick_resume(paths):
    """The copy with the most cells (the first on a tie), or None when none can be read."""
    n = [cells(p) for p in paths]  # each file read once
    best = max(range(len(paths)), key=lambda i: (n[i], -i), default=None)
    return paths[best] if best is not None and n[best] >= 0 else None


def worker_cmd(args, modes, compile_only=False, deadline=None):
    deadline = args.deadline if deadline is None else deadline
    return ([sys.executable, os.path.abspath(__file__), "--worker", "--build", args.build,
             "--shapes", args.shapes, "--modes", ",".join(modes), "--seed", str(args.seed),
             "--budget", str(args.budget), "--min-trials", str(args.min_trials)]
            + (["--deadline", repr(deadline)] if deadline else [])
            + (["--compile-only"] if compile_only else []))


def inductor_cache():
    """Inductor's cache directory, fixed here (and inherited by every worker) so that the list of
    what was precompiled can live inside it and share its lifetime."""
    d = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if not d:
        d = os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "cudal1-inductor")
    os.makedirs(d, exist_ok=True)
    return d


def precompiled_path(args):
    return os.path.join(inductor_cache(), f"cudal1-precompiled-{args.shapes}-seed{args.seed}.txt")


def read_precompiled(path):
    """{(task, mode)} from the list precompile() appends to; absent or unreadable: none."""
    try:
        with open(path) as f:
            return {tuple(line.split()) for line in f if len(line.split()) == 2}
    except OSError:
        return set()


def precompile_todo(need, done):
    """The tasks with a compiled mode still pending that is not already in Inductor's cache
    (done), level 3 first: the largest graphs take longest."""
    return sorted((t for t, m in need.items() if any(k in COMPILED and (t, k) not in done for k in m)),
                  key=lambda t: (-int(t.split("/")[0][5:]), t))


def precompile(args, need):
    """Compiles the torch.compile modes of the pending tasks in args.precompile processes at
    once; each task compiled without error is listed in precompiled_path()."""
    import threading
    listed = precompiled_path(args)
    done_before = read_precompiled(listed)
    todo = precompile_todo(need, done_before)
    skipped = sum(1 for t in need if any(k in COMPILED for k in need[t])) - len(todo)
    if skipped:
        print(f"precompile: {skipped} tasks already in Inductor's cache ({listed})", flush=True)
    if not todo:
        return
    n = max(1, min(args.precompile, len(todo)))
    parts = [todo[i::n] for i in range(n)]
    lock, done, t0 = threading.Lock(), [0, 0], time.time()
    modes = [k for k in MODES if k in COMPILED and k in args.modes.split(",")]

    def on_row(r):
        with lock:
            bad = [k for k, v in r["modes"].items() if "status" in v]
            done[0 if not bad else 1] += 1
            if bad:
                print(f"precompile {r['task']}: {r['modes'][bad[0]]['status'][:160]}", flush=True)
            with open(listed, "a") as f:
                f.writelines(f"{r['task']} {k}\n" for k in r["modes"] if k not in bad)

    def on_fail(tid, why):
        r = failed_row(tid, why, modes)
        on_row(r)
        return r

    stop = min(args.deadline or float("inf"), time.time() + (args.precompile_s or float("inf")))
    cmd = worker_cmd(args, modes, compile_only=True, deadline=0 if stop == float("inf") else stop)

    th = [threading.Thread(target=sg.drive, args=(cmd, p, args.task_timeout, on_row, on_fail, {}))
          for p in parts]
    for x in th:
        x.start()
    for x in th:
        x.join()
    print(f"precompiled {done[0]} tasks ({done[1]} with a failed mode) of {len(todo)} "
          f"in {time.time() - t0:.0f} s with {n} processes", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(sg.ROOT, "build"))
    ap.add_argument("--task", action="append", default=[])
    ap.add_argument("--level", action="append", default=[], help="level1|level2|level3")
    ap.add_argument("--shapes", default="small", choices=["small", "large"])
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of " + ",".join(MODES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=1.0, help="timing seconds per task and mode")
    ap.add_argument("--min-trials", type=int, default=30)
    ap.add_argument("--task-timeout", type=float, default=900.0)
    ap.add_argument("--out", required=False)
    ap.add_argument("--resume", action="store_true",
                    help="keep the (task, mode) cells already in --out (same shape set and seed) and "
                         "run only the missing ones: the full suite takes several device sessions")
    ap.add_argument("--resume-from", action="append", default=[], metavar="FILE",
                    help="another copy of --out (e.g. the committed one): --resume starts from "
                         "whichever holds the most cells")
    ap.add_argument("--deadline", type=float, default=0,
                    help="Unix time after which no further task is started (0: none)")
    ap.add_argument("--precompile", type=int, default=0, metavar="N",
                    help="compile the pending torch.compile modes in N processes first, filling the caches")
    ap.add_argument("--precompile-s", type=float, default=0,
                    help="stop starting precompile tasks after this many seconds (0: only --deadline)")
    ap.add_argument("--precompile-only", action="store_true",
                    help="only fill the compile caches (with --precompile N); --out is read, not written")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--compile-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    bad = [m for m in args.modes.split(",") if m not in MODES]
    if bad:
        ap.error(f"--modes: unknown {bad}; choose from {MODES}")
    if args.worker:
        return worker(args)
    if not args.out:
        ap.error("--out FILE is required")
    inductor_cache()  # before torch is imported: every worker, precompiling or timed, shares it
    tasks = args.task or sg.find_tasks(os.path.join(sg.ROOT, "suite"), args.level or None)
    modes = args.modes.split(",")
    run = {"commit": os.environ.get("CL1_COMMIT", ""),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "modes": modes,
           "budget_s": args.budget, "min_trials": args.min_trials}
    env = {"tool": "tools/baselines.py", "shapes": args.shapes, "seed": args.seed, "planned": len(tasks)}
    try:
        import torch
        env.update({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)})
        env["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True).stdout.strip()
    except Exception:
        pass
    rows, runs = {}, []
    src = pick_resume([args.out] + args.resume_from) if args.resume else None
    if src:
        old = json.load(open(src))
        print(f"resuming from {src}", flush=True)
        if old.get("shapes") != args.shapes or old.get("seed") != args.seed:
            ap.error(f"--resume: {src} holds shapes {old.get('shapes')} seed {old.get('seed')}")
        for k in ("torch", "gpu", "driver"):
            if old.get(k) and env.get(k) and old[k] != env[k]:
                ap.error(f"--resume: {src} was measured with {k} {old[k]}, this machine has {env[k]}")
        rows = {r["task"]: r for r in old.get("results", [])}
        runs = old.get("runs", [])
    need = missing(rows, tasks, modes)
    print(f"{len(tasks)} tasks, {len(need)} with cells to measure "
          f"({sum(len(m) for m in need.values())} cells)", flush=True)
    run["cells"] = 0
    runs.append(run)

    def write():
        doc = dict(env, runs=shown_runs(runs), results=[rows[t] for t in tasks if t in rows])
        doc["commit"], doc["date"] = doc["runs"][-1]["commit"], doc["runs"][-1]["date"]
        doc["modes"] = [m for m in MODES if any(m in r["modes"] for r in doc["results"])]
        counts = {}
        for r in doc["results"]:
            for m, v in r["modes"].items():
                c = counts.setdefault(m, {"ok": 0, "failed": 0})
                c["ok" if v.get("status") == "ok" else "failed"] += 1
        for c in counts.values():
            c["missing"] = len(tasks) - c["ok"] - c["failed"]
        doc["summary"] = counts
        with open(args.out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(args.out + ".tmp", args.out)
        return counts

    def on_row(r):  # also the row of a task its worker died in (on_fail's)
        bits = " ".join(f"{m}:{v['median_ms']:.4f}" if v.get("status") == "ok" else f"{m}:FAIL"
                        for m, v in r["modes"].items())
        ref_ms = next((v["ref_ms"] for v in r["modes"].values() if v.get("ref_ms")), 0)
        print(f"{r['task']} ref {ref_ms:.4f} ms | {bits}", flush=True)
        run["cells"] += len(r["modes"])
        rows[r["task"]] = merge(rows.get(r["task"]), r)
        write()

    if args.precompile and need and not (args.deadline and time.time() > args.deadline):
        precompile(args, need)
    if args.precompile_only:
        return 0
    groups = {}
    for t, m in need.items():
        groups.setdefault(tuple(m), []).append(t)
    for m, ts in groups.items():
        if args.deadline and time.time() > args.deadline:
            break

        def on_fail(tid, why, m=m):
            r = failed_row(tid, why, m)
            on_row(r)
            return r
        got = {}
        sg.drive(worker_cmd(args, m), ts, args.task_timeout, on_row, on_fail, got)
    counts = write()
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
