#!/usr/bin/env python3
"""bench/serve_case.py BUILD DEVICE FILE TASK N [SERVE ARGS...] — one candidate through a fresh
`cudal1 serve` N times (each a fresh evaluation), printing each verdict, speedup and flags with
the judge's class-4 clock figures from the store (each side's excess over its own empty trials,
the cut, the re-measured speedups): a diagnosis of how the service's evaluation of one case
compares across its options (--overlap, --fresh-references) with `cudal1 eval`'s.

BESIDE=MANIFEST: each of the N evaluations is posted together with every line of MANIFEST for
DEVICE (fresh evaluations too), so the case is judged while the service overlaps others with it
(--overlap) — the conditions of tests/gpu/test_serve_gpu."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudal1  # noqa: E402


def manifest_items(path, device):
    items = []
    for line in open(os.path.join(ROOT, path)):
        f = line.split("#")[0].split()
        if len(f) >= 4 and f[2] == device:
            items.append({"task": f[1], "code": open(os.path.join(ROOT, f[0])).read()})
    return items


def clock_rows(db):
    """The clock figures of every evaluation in the store, oldest first."""
    con = sqlite3.connect(db)
    out = []
    for (j,) in con.execute("SELECT result_json FROM evaluations ORDER BY id"):
        r = json.loads(j or "{}")
        t = r.get("timing") or {}
        out.append({"task": r.get("task"), "verdict": r.get("verdict"), "speedup": r.get("speedup"),
                    "flags": r.get("flags"),
                    **{k: t.get(k) for k in ("judge_excess_ref_ms", "judge_excess_cand_ms",
                                             "clock_cut_ms", "remeasured_speedups", "remeasured_clock_cut_ms",
                                             "measurements")},
                    "ref_ms": (t.get("reference") or {}).get("median_ms"),
                    "cand_ms": (t.get("candidate") or {}).get("median_ms")})
    con.close()
    return out


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__.split("\n")[0])
    build, device, path, task, n = sys.argv[1:6]
    d = tempfile.mkdtemp(prefix="cl1case")
    db = os.path.join(d, "case.db")
    shapes = "small" if device == "cuda" else "test"
    proc = subprocess.Popen([os.path.join(build, "cudal1"), "serve", "--device", device, "--shapes",
                             shapes, "--port", "0", "--db", db] + sys.argv[6:],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    beside = manifest_items(os.environ["BESIDE"], device) if os.environ.get("BESIDE") else []
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
        c = cudal1.Client(f"http://127.0.0.1:{m.group(1)}", retries=0, timeout=1800)
        case = {"task": task, "code": open(path).read()}
        for _ in range(int(n)):
            batch = [case] + beside
            with ThreadPoolExecutor(len(batch)) as ex:
                got = list(ex.map(lambda it: c.score([it], fresh=True)[0], batch))
            print(json.dumps({k: got[0].get(k) for k in ("verdict", "speedup", "flags")}), flush=True)
        print(json.dumps({"args": sys.argv[6:], "beside": len(beside),
                          "stats": c.stats().get("reference_workers")}))
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    for row in clock_rows(db):
        if row["task"] == task:
            print(json.dumps(row))


if __name__ == "__main__":
    main()
