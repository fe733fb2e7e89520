#!/usr/bin/env python3
"""bench/py_start.py — where a Python candidate's worker start goes (issue 22: a cached
KernelBench-format evaluation end to end in <= 3 s for a level-1 task; the start phase was 3.6 s
of 4.2 s on the H100, bench/results/h100/python-path-cuda.json).

Two views, measured in one run:
  fresh_process   a bare python3 timing what the worker's preload does (python/cudal1/pysol.py,
                  preload): `import torch`, torch's CUDA start (`torch.cuda.init()` and a first
                  tensor on the device) and `import torch.utils.cpp_extension`; --repeat times
  evaluations     `cudal1 eval --json` of tests/python/common/relu_ok.py (plain PyTorch, nothing
                  to build) on level1/19_ReLU, --repeat times: the wall time, the phases and the
                  candidate worker's own SETUP clock (phases_s.cand_setup_ms: cumulative ms after
                  the task load, the device open, the pinning, the allocation, the preload and
                  the sandbox entry)
  served          the same module through `cudal1 serve` (POST /v1/score, "fresh": true, one
                  item at a time): the first request starts a Python worker cold, later ones
                  take the spare the service started meanwhile (--spare-workers); latency and
                  phases per request

usage: python3 bench/py_start.py BUILD [--device host|cuda] [--shapes S] [--repeat N] [--out F]
Prints one JSON object (and writes it to --out)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudal1  # noqa: E402
import python_path  # noqa: E402  (bench/: its `cudal1 eval` call and its output)
CAND = os.path.join(ROOT, "tests", "python", "common", "relu_ok.py")

PROBE = r"""
import json, os, time
t = [time.perf_counter()]
import torch
t.append(time.perf_counter())
if os.environ.get("PROBE_DEVICE") == "cuda":
    torch.cuda.init()
    t.append(time.perf_counter())
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()
else:
    t.append(time.perf_counter())
t.append(time.perf_counter())
import torch.utils.cpp_extension
t.append(time.perf_counter())
print(json.dumps({"import_torch_s": t[1] - t[0], "cuda_init_s": t[2] - t[1],
                  "first_tensor_s": t[3] - t[2], "cpp_extension_s": t[4] - t[3]}))
"""


def probe(device):
    env = dict(os.environ, PROBE_DEVICE=device, OMP_NUM_THREADS="1")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if out.returncode:
        raise SystemExit(f"py_start: the probe failed: {out.stderr[-800:]}")
    d = json.loads(out.stdout)
    d["process_wall_s"] = wall
    return d


def evaluate(build, device, shapes):
    wall, j = python_path.cudal1(build, CAND, device, shapes)
    ph = j.get("phases_s", {})
    return {"wall_s": wall, **{k: ph.get(k) for k in ("gate", "compile", "start", "start_setup",
                                                       "start_load", "cand_setup", "verify",
                                                       "time", "total", "cand_setup_ms")}}


def served(build, device, shapes, repeat, db_dir):
    """Requests one at a time, a pause between them for the service to start its next spare."""
    args = [os.path.join(build, "cudal1"), "serve", "--device", device, "--shapes", shapes,
            "--port", "0", "--db", os.path.join(db_dir, "py-start.db"), "--spare-workers", "1"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    rows = []
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
        if not m:
            raise SystemExit("py_start: the service announced no port")
        client = cudal1.Client(f"http://127.0.0.1:{m.group(1)}", retries=1, timeout=600)
        with open(CAND) as f:
            code = f.read()
        for i in range(repeat + 1):
            if i:
                time.sleep(8.0)  # the spare's start (a Python worker: torch and CUDA) is behind us
            item = {"id": f"r{i}", "task": "level1/19_ReLU", "code": code, "format": "kernelbench"}
            t0 = time.perf_counter()
            res = client.score([item], fresh=True)[0]
            rows.append({"request": i, "latency_s": time.perf_counter() - t0,
                         "verdict": res.get("verdict"), "cached": res.get("cached")})
        rows_db = phases_of(os.path.join(db_dir, "py-start.db"))
        for r, ph in zip(rows, rows_db):
            r.update(ph)
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    bad = [r for r in rows if r["verdict"] != "pass"]
    if bad:
        raise SystemExit(f"py_start: the service's verdicts: {bad}")
    return rows


def phases_of(db):
    """The phases each stored evaluation recorded, in order."""
    import sqlite3
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = []
    for (doc,) in con.execute("SELECT result_json FROM evaluations ORDER BY id"):
        ph = (json.loads(doc) if doc else {}).get("phases_s", {})
        out.append({k: ph.get(k) for k in ("start", "start_setup", "cand_setup", "verify", "time",
                                           "total", "cand_setup_ms")})
    return out


def means(rows, skip=("cand_setup_ms",)):
    keys = [k for k in rows[0] if k not in skip]
    out = {k: round(statistics.mean(r[k] for r in rows if isinstance(r.get(k), (int, float))), 4)
           for k in keys if any(isinstance(r.get(k), (int, float)) for r in rows)}
    ms = [r["cand_setup_ms"] for r in rows if isinstance(r.get("cand_setup_ms"), list)]
    if ms:
        out["cand_setup_ms"] = [round(statistics.mean(m[i] for m in ms), 1)
                                for i in range(min(len(m) for m in ms))]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--device", default="host", choices=("host", "cuda"))
    ap.add_argument("--shapes", default="small")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.repeat < 1:
        raise SystemExit("py_start: --repeat must be at least 1")
    fresh = [probe(a.device) for _ in range(a.repeat)]
    evals = [evaluate(a.build, a.device, a.shapes) for _ in range(a.repeat)]
    with tempfile.TemporaryDirectory(prefix="cl1-pystart-") as tmp:
        serve_rows = served(a.build, a.device, a.shapes, a.repeat, tmp)
    doc = {"bench": "py_start", "device": a.device, "shapes": a.shapes, "repeat": a.repeat,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "fresh_process": {"runs": fresh, "mean": means(fresh)},
           "evaluations": {"runs": evals, "mean": means(evals)},
           "served": {"cold": serve_rows[0], "warm_runs": serve_rows[1:],
                      "warm_mean": means(serve_rows[1:], skip=("cand_setup_ms", "verdict",
                                                                "cached", "request"))}}
    python_path.emit(doc, a.out)


if __name__ == "__main__":
    main()
