"""bench/python_path.py — the cost of a KernelBench-format candidate (a ModelNew whose kernel comes
through torch.utils.cpp_extension.load_inline) on cudal1's path, against KernelBench's own path,
measured side by side in one run:

  kernelbench_cold_s   load_inline into a fresh folder in a fresh process (KernelBench's build)
  kernelbench_warm_s   the same module imported again from that folder (its cached path), with
                       the interpreter and torch's import
  cudal1_cold_build_s  `cudal1 eval`'s build step on an empty cache (confined, then cached)
  cudal1_cold_total_s  that whole evaluation (build, verification, timing)
  cudal1_cached_total_s, cudal1_cached_build_s  the same evaluation again (cache hit)
  worker_start_s       the evaluation's start phase: both workers up with Python and torch

usage: python3 bench/python_path.py BUILD [--device host|cuda] [--shapes S] [--out FILE]
The candidate is tests/python/<device>/relu_load_inline.py against level1/19_ReLU; the same
kernel source is built the KernelBench way. Prints one JSON object (and writes it to --out)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KB_BUILD = r"""
import sys, time
t0 = time.perf_counter()
import torch
from torch.utils.cpp_extension import load_inline
t1 = time.perf_counter()
sys.path.insert(0, {root!r})
spec = {spec!r}
import importlib.util
s = importlib.util.spec_from_file_location("cand", spec)
m = importlib.util.module_from_spec(s)
import torch.utils.cpp_extension as ce
orig = ce.load_inline
ce.load_inline = lambda *a, **k: orig(*a, **{{**k, "build_directory": {folder!r}}})
s.loader.exec_module(m)
print(time.perf_counter() - t0, t1 - t0)
"""


def kernelbench(candidate, folder):
    """Seconds for a process to import the candidate (its load_inline building into folder)."""
    code = KB_BUILD.format(root=ROOT, spec=candidate, folder=folder)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode:
        raise SystemExit(f"KernelBench path failed: {out.stderr[-800:]}")
    return wall


def cudal1(build, candidate, device, shapes, cache=None):
    """`cudal1 eval --json` of candidate on level1/19_ReLU (cache: the build cache's parent, None:
    the user's); (wall seconds, the result), or exit unless it passed."""
    env = dict(os.environ, XDG_CACHE_HOME=cache) if cache else None
    cmd = [os.path.join(build, "cudal1"), "eval", "--task", "level1/19_ReLU", "--solution",
           candidate, "--device", device, "--shapes", shapes, "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    try:
        j = json.loads(out.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"cudal1 eval gave no JSON (exit {out.returncode}): {out.stderr[-800:]}")
    if j.get("verdict") != "pass":
        raise SystemExit(f"cudal1 eval: {j.get('verdict')}: {j.get('message')}")
    return wall, j


def emit(doc, out):
    """The result as JSON on stdout, and in out when given."""
    text = json.dumps(doc, indent=1)
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--device", default="host", choices=("host", "cuda"))
    ap.add_argument("--shapes", default="small")
    ap.add_argument("--out")
    a = ap.parse_args()
    cand = os.path.join(ROOT, "tests", "python", a.device, "relu_load_inline.py")
    with tempfile.TemporaryDirectory(prefix="cl1-pypath-") as tmp:
        kb_dir = os.path.join(tmp, "kb")
        os.makedirs(kb_dir)
        kb_cold = kernelbench(cand, kb_dir)
        kb_warm = kernelbench(cand, kb_dir)
        cache = os.path.join(tmp, "cache")
        cold_wall, cold = cudal1(a.build, cand, a.device, a.shapes, cache)
        warm_wall, warm = cudal1(a.build, cand, a.device, a.shapes, cache)
    res = {
        "bench": "python_path", "device": a.device, "shapes": a.shapes,
        "machine": cold.get("device") or warm.get("device", ""),
        "kernelbench_cold_s": round(kb_cold, 3), "kernelbench_warm_s": round(kb_warm, 3),
        "cudal1_cold_build_s": round(cold["compile"]["seconds"], 3),
        "cudal1_cold_total_s": round(cold_wall, 3),
        "cudal1_cached_build_s": round(warm["compile"]["seconds"], 3),
        "cudal1_cached_cached": warm["compile"]["cached"],
        "cudal1_cached_total_s": round(warm_wall, 3),
        "cudal1_cached_phases_s": warm.get("phases_s", {}),
        "worker_start_s": round(warm.get("phases_s", {}).get("start", 0), 3),
        "speedup": warm.get("speedup"),
    }
    emit(res, a.out)


if __name__ == "__main__":
    main()
