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

usage: python3 bench/py_start.py BUILD [--device host|cuda] [--shapes S] [--repeat N] [--out F]
Prints one JSON object (and writes it to --out)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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
    cand = os.path.join(ROOT, "tests", "python", "common", "relu_ok.py")
    cmd = [os.path.join(build, "cudal1"), "eval", "--task", "level1/19_ReLU", "--solution", cand,
           "--device", device, "--shapes", shapes, "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    try:
        j = json.loads(out.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"py_start: cudal1 eval gave no JSON (exit {out.returncode}): "
                         f"{out.stderr[-800:]}")
    if j.get("verdict") != "pass":
        raise SystemExit(f"py_start: cudal1 eval: {j.get('verdict')}: {j.get('message')}")
    ph = j.get("phases_s", {})
    return {"wall_s": wall, **{k: ph.get(k) for k in ("gate", "compile", "start", "start_setup",
                                                       "start_load", "cand_setup", "verify",
                                                       "time", "total", "cand_setup_ms")}}


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
    doc = {"bench": "py_start", "device": a.device, "shapes": a.shapes, "repeat": a.repeat,
           "fresh_process": {"runs": fresh, "mean": means(fresh)},
           "evaluations": {"runs": evals, "mean": means(evals)}}
    text = json.dumps(doc, indent=1)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
