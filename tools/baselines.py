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
task, with the torch version, GPU, driver, commit and date. `cudal1 baselines import FILE` loads it.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_gpu as sg  # noqa: E402  (the generator, twin loader, comparison and timing)

MODES = ["eager", "compile", "reduce-overhead", "graph", "ref-graph"]


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
    keep = (sg.ptrs(pars), sg.ptrs(outs))
    e.check(e.lib.cl1_embed_setup(e.h, keep[0], keep[1], st.cuda_stream), "setup")
    ptr_sets = [sg.ptrs(ins) for ins in ins_sets]
    calls = [lambda p=p: e.check(e.lib.cl1_embed_forward(e.h, p), "forward") for p in ptr_sets]
    graphs, _ = capture(torch, calls, st)
    graphs[0].replay()
    st.synchronize()
    build_mode.keep = (keep, ptr_sets)  # the pointer arrays must outlive the graphs
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


def run_task(torch, lib, tid, shapes, seed, modes, budget_s):
    e = sg.Embed(lib, tid, shapes, "cuda")
    torch.backends.cudnn.allow_tf32 = e.meta["attrs"].get("conv_tf32", 1) != 0
    row = {}
    try:
        ins0, pars = sg.generate(torch, e, "cuda", seed)
        ins1, _ = sg.generate(torch, e, "cuda", seed + 1000003)
        st = torch.cuda.Stream()
        with torch.cuda.stream(st):
            # a copy: the reference writes into its outputs again every time it is timed
            ref_outs = [o.clone() for o in sg.run_ref(torch, e, "cuda", ins0, pars, st.cuda_stream)]
            model = sg.twin_model(torch, tid, e.meta, pars)
        st.synchronize()
        ptr_sets = [sg.ptrs(ins0), sg.ptrs(ins1)]
        ref = rotating([lambda p=p: e.check(e.lib.cl1_embed_forward(e.h, p), "forward") for p in ptr_sets])
        flush = torch.empty(max(2 * int(e.meta["l2_bytes"]), 1 << 20), dtype=torch.uint8, device="cuda")
        for mode in modes:
            r = {}
            try:
                with torch.no_grad(), torch.cuda.stream(st):
                    if mode == "ref-graph":
                        fns, out, build_s = build_ref_graph(torch, e, pars, [ins0, ins1], st)
                    else:
                        fns, out, build_s = build_mode(torch, mode, model, [ins0, ins1], st)
                if mode != "eager":
                    r["build_s"] = round(build_s, 3)
                outs = list(out) if isinstance(out, (tuple, list)) else [out]
                why, worst = sg.compare(torch, ref_outs, outs, e.meta["atol"], e.meta["rtol"])
                if why:
                    r.update({"status": f"incorrect: {why}", **worst})
                else:
                    with torch.no_grad(), torch.cuda.stream(st):
                        (rm, mm), (rc, mc), n = sg.timed(torch, [ref, rotating(fns)], flush, budget_s)
                    # an asynchronous fault of this mode's replays is reported here, as its own
                    st.synchronize()
                    r.update({"status": "ok", "median_ms": mm, "ci_rel": mc, "ref_ms": rm,
                              "ref_ci_rel": rc, "trials": n, **worst})
            except Exception as ex:  # a mode that cannot run is a result, not a crash
                msg = str(ex).strip().splitlines()[0][:300] if str(ex).strip() else ""
                kind = {"graph": "capture_failed", "ref-graph": "capture_failed",
                        "eager": "eager_failed"}.get(mode, "compile_error")
                r["status"] = f"{kind}: {type(ex).__name__}: {msg}"
                if "CUDA error" in msg or "illegal" in msg:
                    row[mode] = r
                    raise
            row[mode] = r
            if mode in ("compile", "reduce-overhead"):
                torch._dynamo.reset()  # the next task's model compiles afresh
        # the row-level reference time: the one beside eager (each mode keeps its own too)
        row_ref = row.get("eager", {}).get("ref_ms")
        return {"ref_ms": row_ref, "modes": row}
    finally:
        torch.backends.cudnn.allow_tf32 = True
        e.close()


def worker(args):
    import torch
    sg.DTYPES.update({"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                      "f64": torch.float64, "i32": torch.int32, "i64": torch.int64,
                      "u8": torch.uint8, "bool": torch.bool})
    sg.MIN_TRIALS = args.min_trials
    torch.backends.cuda.matmul.allow_tf32 = False  # PyTorch's defaults, stated
    lib = sg.load_lib(args.build)
    modes = args.modes.split(",")
    for tid in args.task:
        t0 = time.time()
        try:
            r = run_task(torch, lib, tid, args.shapes, args.seed, modes, args.budget)
        except Exception as ex:
            r = {"ref_ms": None, "modes": {m: {"status": f"task_failed: {type(ex).__name__}: {str(ex)[:300]}"}
                                           for m in modes}}
        r.update({"task": tid, "wall_s": round(time.time() - t0, 2)})
        try:
            torch.cuda.empty_cache()
        except Exception as ex:  # a sticky fault: report the row, then restart (exit 17)
            r["modes"] = {m: (v if v.get("status") == "ok" else
                              {"status": f"cuda_fault: {type(ex).__name__}: {str(ex)[:200]}"})
                          for m, v in r["modes"].items()}
            print(json.dumps(r), flush=True)
            os._exit(17)
        print(json.dumps(r), flush=True)
        if any("CUDA error" in m.get("status", "") or "illegal" in m.get("status", "")
               for m in r["modes"].values()):
            os._exit(17)
    return 0


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
                    help="keep the rows already in --out (same shape set) and run only the other tasks: "
                         "the full suite takes several device sessions")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    bad = [m for m in args.modes.split(",") if m not in MODES]
    if bad:
        ap.error(f"--modes: unknown {bad}; choose from {MODES}")
    if args.worker:
        return worker(args)
    if not args.out:
        ap.error("--out FILE is required")
    tasks = args.task or sg.find_tasks(os.path.join(sg.ROOT, "suite"), args.level or None)
    env = {"tool": "tools/baselines.py", "shapes": args.shapes, "seed": args.seed,
           "modes": args.modes.split(","), "min_trials": args.min_trials, "budget_s": args.budget,
           "commit": os.environ.get("CL1_COMMIT", ""),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "planned": len(tasks)}
    try:
        import torch
        env.update({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)})
        env["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True).stdout.strip()
    except Exception:
        pass
    rows = {}
    if args.resume and os.path.exists(args.out):
        old = json.load(open(args.out))
        if old.get("shapes") != args.shapes or old.get("modes") != env["modes"]:
            ap.error(f"--resume: {args.out} holds shapes {old.get('shapes')} / modes {old.get('modes')}")
        rows = {r["task"]: r for r in old.get("results", [])
                if not any(v.get("status", "").startswith("task_failed") for v in r["modes"].values())}
        env["resumed_from"] = old.get("commit", "")
        print(f"resuming: {len(rows)} of {len(tasks)} tasks already measured", flush=True)
    todo = [t for t in tasks if t not in rows]

    def write():
        doc = dict(env, results=[rows[t] for t in tasks if t in rows])
        counts = {}
        for r in doc["results"]:
            for m, v in r["modes"].items():
                c = counts.setdefault(m, {"ok": 0, "failed": 0})
                c["ok" if v.get("status") == "ok" else "failed"] += 1
        doc["summary"] = counts
        with open(args.out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(args.out + ".tmp", args.out)
        return counts

    def on_row(r):
        bits = " ".join(f"{m}:{v['median_ms']:.4f}" if v.get("status") == "ok" else f"{m}:FAIL"
                        for m, v in r["modes"].items())
        print(f"{r['task']} ref {r.get('ref_ms') or 0:.4f} ms | {bits}", flush=True)
        write()

    def on_fail(tid, why):
        return {"task": tid, "ref_ms": None, "modes": {m: {"status": f"task_failed: {why}"}
                                                       for m in args.modes.split(",")}}
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--build", args.build,
           "--shapes", args.shapes, "--modes", args.modes, "--seed", str(args.seed),
           "--budget", str(args.budget), "--min-trials", str(args.min_trials)]
    sg.drive(cmd, todo, args.task_timeout, on_row, on_fail, rows)
    counts = write()
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
