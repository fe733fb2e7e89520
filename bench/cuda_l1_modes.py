#!/usr/bin/env python3
"""cuda_l1_modes.py — CUDA-L1 rows judged twice on the host backend: with their problem imported
as KernelBench's harness runs it (training mode: BatchNorm on the batch's statistics) and with
`--mode eval` (inference: BatchNorm on its running statistics). The H100 audit of 2026-12-07 found
20 of its 70 incorrect rows reading BatchNorm's running statistics (folding them into the
convolution); this says whether that, and nothing else, is what fails them. The CPU runs their
PyTorch path (their CUDA extensions need the GPU), at a small batch (--set test:batch_size=N).

    bench/cuda_l1_modes.py BUILD --ids L3_T8,L2_T11,... [--file h100.jsonl] [--out F.json]
                           [--batch 2] [--time-limit S]

Resumable: rows already in --out are kept."""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from cuda_l1_audit import CUDA_L1_FILE, load_rows, row_id  # noqa: E402


def judge(build, d, r, mode, batch):
    """(verdict, message) of the row's ModelNew against its problem imported in mode."""
    prob, task, sol = (os.path.join(d, f"{mode}-{n}") for n in ("problem.py", "task", "sol.py"))
    with open(prob, "w") as f:
        f.write(r["ref_code"])
    with open(sol, "w") as f:
        f.write(r["custom_code"])
    cudal1 = os.path.join(os.path.abspath(build), "cudal1")
    imp = subprocess.run([cudal1, "task", "import", prob, task, "--mode", mode, "--level",
                          str(r["level_id"]), "--set", f"test:batch_size={batch}"],
                         capture_output=True, text=True, timeout=900)
    if imp.returncode:
        return "task_refused", (imp.stderr.strip().splitlines() or ["?"])[-1][:300]
    ev = subprocess.run([cudal1, "eval", "--task", task, "--solution", sol, "--device", "host",
                         "--shapes", "test", "--min-trials", "5", "--max-trials", "5",
                         "--remeasure", "0", "--json"], capture_output=True, text=True,
                        timeout=1800)
    try:
        j = json.loads(ev.stdout)
    except ValueError:
        return "no_result", ev.stderr.strip()[-300:]
    return j.get("verdict"), (j.get("message") or "")[:300]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--file", default=CUDA_L1_FILE)
    ap.add_argument("--ids", required=True, help="rows, e.g. L3_T8,L2_T11")
    ap.add_argument("--out", default="cuda-l1-modes.json")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=0)
    a = ap.parse_args()
    want = a.ids.split(",")
    rows = {row_id(r): r for r in load_rows(a.file, {1, 2, 3}, 0)}
    missing = [i for i in want if i not in rows]
    if missing:
        ap.error(f"{a.file}: no rows {', '.join(missing)}")
    doc = json.load(open(a.out)) if os.path.exists(a.out) else {"bench": "cuda_l1_modes", "rows": []}
    done = {x["id"] for x in doc["rows"]}
    t0 = time.monotonic()
    for i in want:
        if i in done:
            continue
        if a.time_limit and time.monotonic() - t0 > a.time_limit:
            print(f"cuda_l1_modes: time limit: {len(want) - len(doc['rows'])} rows left",
                  file=sys.stderr)
            break
        x = {"id": i}
        with tempfile.TemporaryDirectory(prefix="cl1-modes-") as d:
            for mode in ("train", "eval"):
                x[mode], x[mode + "_message"] = judge(a.build, d, rows[i], mode, a.batch)
        doc["rows"].append(x)
        print(f"cuda_l1_modes: {i}: train {x['train']}, eval {x['eval']}", file=sys.stderr)
        counts = collections.Counter(f"train {y['train']}, eval {y['eval']}" for y in doc["rows"])
        doc.update(counts=dict(counts), batch=a.batch, backend="host (their PyTorch path)",
                   date=time.strftime("%Y-%m-%d"), commit=os.environ.get("CL1_COMMIT", ""))
        with open(a.out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(a.out + ".tmp", a.out)
    print(json.dumps(doc.get("counts", {})))


if __name__ == "__main__":
    main()
