#!/usr/bin/env python3
"""bench/ctx_parallel.py OUT.json — how CUDA context creation and teardown scale with processes
started at once on one GPU (issue 20's throughput plan): K processes (K = 1, 2, 4, 8) each create
a context (cudaFree(0) through libcudart) and exit; per K, the wall time from the release to the
last exit and each process's own create time. When the driver serialises these, evaluations (two
fresh worker processes each) cannot overlap their start past that rate, whatever the lanes."""
import ctypes
import ctypes.util
import json
import multiprocessing as mp
import os
import statistics
import sys
import time

CUDART = os.environ.get("CUDART", "libcudart.so")


def one(barrier, q):
    lib = ctypes.CDLL(CUDART)
    barrier.wait()
    t0 = time.monotonic()
    rc = lib.cudaFree(ctypes.c_void_p(0))
    q.put((rc, time.monotonic() - t0))


def run(k):
    ctx = mp.get_context("fork")
    barrier, q = ctx.Barrier(k + 1), ctx.Queue()
    ps = [ctx.Process(target=one, args=(barrier, q)) for _ in range(k)]
    for p in ps:
        p.start()
    barrier.wait()
    t0 = time.monotonic()
    got = [q.get() for _ in range(k)]
    t_created = time.monotonic() - t0
    for p in ps:
        p.join()
    wall = time.monotonic() - t0
    creates = [g[1] for g in got]
    return {"k": k, "ok": sum(g[0] == 0 for g in got), "all_created_s": round(t_created, 3),
            "all_exited_s": round(wall, 3), "create_mean_s": round(statistics.mean(creates), 3),
            "create_max_s": round(max(creates), 3)}


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    rows = [run(k) for k in (1, 2, 4, 8, 1)]
    with open(sys.argv[1], "w") as f:
        json.dump({"tool": "bench/ctx_parallel.py", "rows": rows,
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f, indent=1)
    for r in rows:
        print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
