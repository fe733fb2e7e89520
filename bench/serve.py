#!/usr/bin/env python3
"""bench/serve.py BUILD DEVICE OUT.json [N [SERVE ARGS...]] — the reward service's throughput
(issue 20): a GRPO step's worth of N (64) distinct level-1 completions posted at once to a fresh
`cudal1 serve`, one request per completion (as N ranks or async reward calls would), then the
same N again. Reports the wall time to the last reward, per-request latency p50/p99 for both
rounds (the second is answered from the store: cache hits), the verdicts, and the service's own
counters (/v1/stats: evaluations, mean evaluation time, each GPU's busy and timing shares).

The cached round is measured twice: from N threads of this Python process (as a trainer's
threads would call; the GIL serialises their client work) and from N processes released at once
(the service's own latency under N concurrent requests). Then the spread check: SPREAD (8) fresh
evaluations of one candidate posted at once, whose speedups show whether evaluations that overlap
on one GPU (--overlap) disturb each other's timing (compare a run with --overlap 1).

WARMUP_S (default 0): before the batch, one other completion is rewarded and the service left
idle that many seconds, as a trainer's service is between two GRPO steps (its spare workers,
whose kind the first evaluation names, are then started: --spare-workers of them per GPU); that
evaluation is left out of the phase means.

STEADY=1: before the measured batch, another batch of N distinct completions of the same tasks
is rewarded (a trainer's previous step), so the measured one finds the tasks' reference workers
pooled, as every GRPO step after the first does; its wall time is reported as "step0" and its
evaluations are left out of the phase means.

The completions are the starter candidates of six level-1 tasks (tests/gpu/candidates on CUDA,
tests/legit/host on the host), each made distinct by a variant comment so every one compiles and
runs for real."""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudal1  # noqa: E402

TASKS = ["19_ReLU", "23_Softmax", "1_Square_matrix_multiplication_", "40_LayerNorm",
         "47_Sum_reduction_over_a_dimension", "63_conv_standard_2D__square_input__square_kernel"]


def completions(device, n):
    folder, ext, lang = (("tests/gpu/candidates", "cu", "cuda") if device == "cuda"
                         else ("tests/legit/host", "c", "c"))
    out = []
    for k in range(n):
        name = TASKS[k % len(TASKS)]
        code = open(os.path.join(ROOT, folder, f"{name}.{ext}")).read()
        # BENCH_TAG keeps runs of one session apart: each compiles its own, cold
        code += f"\n/* bench/serve variant {os.environ.get('BENCH_TAG', '')}{k} */\n"
        out.append({"task": f"level1/{name}", "completion": f"```{lang}\n{code}```\n"})
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def post_all(client, items):
    def one(it):
        t0 = time.monotonic()
        r = client.score([it])[0]
        return time.monotonic() - t0, r
    t0 = time.monotonic()
    with ThreadPoolExecutor(len(items)) as ex:
        got = list(ex.map(one, items))
    wall = time.monotonic() - t0
    lat = [g[0] for g in got]
    verdicts = {}
    for _, r in got:
        verdicts[r.get("verdict")] = verdicts.get(r.get("verdict"), 0) + 1
    return {"wall_s": round(wall, 3), "latency_p50_s": round(pct(lat, 50), 4),
            "latency_p99_s": round(pct(lat, 99), 4), "verdicts": verdicts,
            "cached": sum(bool(r.get("cached")) for _, r in got),
            "per_second": round(len(items) / wall, 3)}


def _one_timed(args):
    url, item, barrier = args
    client = cudal1.Client(url, retries=0, timeout=60)
    barrier.wait()
    t0 = time.monotonic()
    r = client.score([item])[0]
    return time.monotonic() - t0, bool(r.get("cached"))


def post_all_processes(url, items):
    """The same requests from one process each, released together by a barrier."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    with ctx.Manager() as mgr:
        barrier = mgr.Barrier(len(items))
        with ctx.Pool(len(items)) as pool:
            got = pool.map(_one_timed, [(url, it, barrier) for it in items])
    lat = [g[0] for g in got]
    return {"latency_p50_s": round(pct(lat, 50), 4), "latency_p99_s": round(pct(lat, 99), 4),
            "latency_max_s": round(max(lat), 4), "cached": sum(g[1] for g in got)}


def spread(client, device, k):
    """k fresh evaluations of one candidate at once: the speedups' median and spread."""
    item = completions(device, 3)[2]  # the matmul: long enough to time, short enough to repeat
    with ThreadPoolExecutor(k) as ex:
        got = list(ex.map(lambda _: client.score([item], fresh=True)[0], range(k)))
    sp = sorted(r.get("speedup") or 0 for r in got)
    med = statistics.median(sp)
    return {"task": item["task"], "n": k, "speedups": sp, "median": round(med, 4),
            "max_rel_dev": round(max(abs(x - med) for x in sp) / med, 4) if med else None,
            "verdicts": sorted({r.get("verdict") for r in got})}


PHASE_KEYS = ["compile", "start", "start_setup", "start_load", "cand_setup", "spare_wait", "verify",
              "gpu_wait", "time", "time_prep", "time_warmup", "time_pairs", "pairs", "total"]


def phase_means(rows):
    """Mean seconds per phase over evaluation results (the judge's phases_s)."""
    out = {"n": len(rows)}
    for k in PHASE_KEYS:
        xs = [r.get("phases_s", {}).get(k) for r in rows]
        xs = [x for x in xs if isinstance(x, (int, float))]
        if xs:  # seconds, but for the timed pairs' count
            out[k + ("_mean" if k == "pairs" else "_mean_s")] = round(statistics.mean(xs), 4)
    # the candidate worker's own clock in SETUP (cumulative ms): task, device, pinned, allocated,
    # preloaded (the op library; a Python solution's interpreter and torch), sandboxed
    parts = [r.get("phases_s", {}).get("cand_setup_ms") for r in rows]
    parts = [p for p in parts if isinstance(p, list) and len(p) == 6]
    if parts:
        out["cand_setup_ms_mean"] = [round(statistics.mean(p[i] for p in parts), 2) for i in range(6)]
    return out


def phase_row(r):
    """One evaluation, compactly: where its workers came from and its phases (s)."""
    ph, w = r.get("phases_s", {}), r.get("workers", {})
    ms = ph.get("cand_setup_ms")
    row = {"task": r.get("task"), "ref": w.get("ref"), "cand": w.get("cand"),
           "device_ms": round(ms[1], 1) if isinstance(ms, list) and len(ms) == 6 else None}
    for k in ("start", "spare_wait", "verify", "gpu_wait", "time", "total"):
        if isinstance(ph.get(k), (int, float)):
            row[k] = round(ph[k], 4)
    return row


def phases(db, skip=0):
    """The phase means over the evaluations in the store, the first skip (the warm-up's) left
    out; the same means apart for candidates whose worker was a spare and those that spawned
    their own (a context created in the lane), and every evaluation's row in store order."""
    import sqlite3
    con = sqlite3.connect(db)
    rows = [json.loads(r[0]) for r in con.execute("SELECT result_json FROM evaluations ORDER BY id")
            if r[0]][skip:]
    con.close()
    out = phase_means(rows)
    by = {}
    for r in rows:
        by.setdefault(r.get("workers", {}).get("cand") or "unknown", []).append(r)
    out["by_cand_worker"] = {k: phase_means(v) for k, v in sorted(by.items())}
    out["rows"] = [phase_row(r) for r in rows]
    return out


def main():
    if len(sys.argv) < 4:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    build, device, out = sys.argv[1], sys.argv[2], sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 64
    d = tempfile.mkdtemp(prefix="cl1bench")
    shapes = "small" if device == "cuda" else "test"
    args = [os.path.join(build, "cudal1"), "serve", "--device", device, "--shapes", shapes,
            "--port", "0", "--db", os.path.join(d, "bench.db")] + sys.argv[5:]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
        if not m:
            print("bench/serve: the service announced no port", file=sys.stderr)
            return 1
        url = f"http://127.0.0.1:{m.group(1)}"
        client = cudal1.Client(url, retries=2, timeout=1800)
        items = completions(device, n)
        warm_s = float(os.environ.get("WARMUP_S", "0"))
        if warm_s > 0:
            warm = dict(completions(device, 1)[0])
            warm["completion"] = warm["completion"].replace("bench/serve variant", "bench/serve warm-up")
            client.score([warm])
            time.sleep(warm_s)
        step0 = None
        steady = os.environ.get("STEADY", "0") == "1"
        if steady:
            prev = [dict(it, completion=it["completion"].replace("bench/serve variant",
                                                                 "bench/serve step-0 variant"))
                    for it in items]
            step0 = post_all(client, prev)
        before = client.stats()
        first = post_all(client, items)
        stats = client.stats()
        skip = (1 if warm_s > 0 else 0) + (n if steady else 0)
        ph_first = phases(os.path.join(d, "bench.db"), skip=skip)
        again = post_all(client, items)
        again_procs = post_all_processes(url, items)
        k = int(os.environ.get("SPREAD", "8"))
        spread_check = spread(client, device, k) if k > 0 else None
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    # the share of the wall time each evaluation thread (one judge per GPU on CUDA) was busy
    def eval_time(st):
        return st.get("evaluations", 0) * st.get("mean_eval_s", 0)
    busy = (eval_time(stats) - eval_time(before)) / max(first["wall_s"], 1e-9)
    busy /= max(stats.get("workers", 1), 1)
    doc = {"tool": "bench/serve.py", "device": device, "shapes": shapes, "n": n,
           "extra_args": sys.argv[5:], "warmup_s": warm_s, "steady": steady, "step0": step0,
           # the judge's diagnostic switch (src/eval/judge.c): 0 = verifications never let a
           # waiting timing go first between their checks
           "gpu_yield": os.environ.get("CUDAL1_GPU_YIELD", "1") != "0",
           "verify_concurrent": os.environ.get("CUDAL1_VERIFY_CONCURRENT", "1") != "0", "first": first, "again_cached": again,
           "again_cached_processes": again_procs, "spread": spread_check,
           "phases_mean_first": ph_first,
           "service_stats_after_first": stats, "evaluator_busy_share": round(busy, 3),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    # the printed line (all a device call may bring back) without the rows
    brief = {k: v for k, v in ph_first.items() if k not in ("rows", "by_cand_worker")}
    brief["by_cand_worker"] = {k: {m: v.get(m) for m in ("n", "start_mean_s", "spare_wait_mean_s",
                                                         "verify_mean_s", "gpu_wait_mean_s",
                                                         "total_mean_s")}
                               for k, v in ph_first.get("by_cand_worker", {}).items()}
    print(f"serve {device}: {n} completions rewarded in {first['wall_s']:.1f} s "
          f"({first['per_second']:.2f}/s; p50 {first['latency_p50_s']:.2f} s, p99 "
          f"{first['latency_p99_s']:.2f} s; verdicts {first['verdicts']}); again from the store: "
          f"p99 {again['latency_p99_s'] * 1e3:.1f} ms from threads, "
          f"{again_procs['latency_p99_s'] * 1e3:.1f} ms from processes, {again['cached']} cached; "
          f"evaluation threads busy {busy:.0%}; GPUs {stats.get('gpus')}; phases {brief}; "
          f"spread {spread_check}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
