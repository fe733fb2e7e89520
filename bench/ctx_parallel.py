#!/usr/bin/env python3
"""bench/ctx_parallel.py OUT.json — how CUDA context creation and teardown scale with processes
started at once on one GPU (issue 20's throughput plan), and how many the driver makes per second
while the GPU is at work, as it is during a reward batch.

burst: K processes (K = 1, 2, 4, 8) each create a context (cudaFree(0) through libcudart) and
exit; per K, the wall time from the release to the last exit and each process's own create time.
When the driver serialises these, evaluations (two fresh worker processes each) cannot overlap
their start past that rate, whatever the lanes.

sustained (SUSTAINED_S seconds per row, default 5; 0: none): C creators (1, 2, 4) each start
one such process after another, under three loads: idle; busy (another process keeps the GPU
running kernels, as a timed candidate does); held8 (eight other processes hold an idle context
each, as pooled references and waiting spares do). Per row: contexts made per second, the
creation and whole-process times' mean and p90. A reward batch of 64 makes about 80 contexts
(docs/serve-scaling.md), so the busy rate bounds what one GPU can reward per second.

CUDART names the library (default libcudart.so). Without a GPU every call fails: the rows count
the failures (ok) and the bookkeeping still runs, which is what the host's test checks."""
import ctypes
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


# ---- sustained ------------------------------------------------------------------------------

def _child(lib, w):
    """A fresh process's context: its create time and return code down the pipe, then exit."""
    t0 = time.monotonic()
    rc = lib.cudaFree(ctypes.c_void_p(0))
    os.write(w, f"{rc} {time.monotonic() - t0:.6f}\n".encode())
    os._exit(0)


def creator(until, q):
    """Starts one context-making process after another until the monotonic time `until`. The
    library is loaded here, before the forks, and never called: no CUDA state is forked."""
    lib = ctypes.CDLL(CUDART)
    got = []
    while time.monotonic() < until:
        r, w = os.pipe()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _child(lib, w)
        os.close(w)
        with os.fdopen(r) as f:
            line = f.read().split()
        os.waitpid(pid, 0)
        total = time.monotonic() - t0
        if len(line) == 2:
            got.append((int(line[0]), float(line[1]), total))
        else:
            got.append((-1, total, total))  # the child died before it reported
    q.put(got)


def busy_load(stop, ready, n_ok):
    """Keeps the GPU running: a 256 MiB memset (a kernel) after another, each waited for."""
    lib = ctypes.CDLL(CUDART)
    buf = ctypes.c_void_p()
    ok = lib.cudaMalloc(ctypes.byref(buf), ctypes.c_size_t(256 << 20)) == 0
    with n_ok.get_lock():
        n_ok.value += ok
    ready.set()
    i = 0
    while ok and not stop.is_set():
        lib.cudaMemset(buf, ctypes.c_int(i & 0xFF), ctypes.c_size_t(256 << 20))
        lib.cudaDeviceSynchronize()
        i += 1
    if not ok:
        stop.wait()


def held_context(stop, ready, n_ok):
    """One idle context, held until told (a pooled reference or a waiting spare)."""
    lib = ctypes.CDLL(CUDART)
    ok = lib.cudaFree(ctypes.c_void_p(0)) == 0
    with n_ok.get_lock():
        n_ok.value += ok
    ready.set()
    stop.wait()


def p90(xs):
    return statistics.quantiles(xs, n=10, method="inclusive")[-1] if len(xs) > 1 else xs[0]


def sustained(c, load, seconds):
    ctx = mp.get_context("fork")
    stop, n_ok = ctx.Event(), ctx.Value("i", 0)
    loaders = []
    n_load = {"idle": 0, "busy": 1, "held8": 8}[load]
    for _ in range(n_load):
        ready = ctx.Event()
        p = ctx.Process(target=busy_load if load == "busy" else held_context, args=(stop, ready, n_ok))
        p.start()
        loaders.append((p, ready))
    for p, ready in loaders:
        ready.wait(60)
    q = ctx.Queue()
    t0 = time.monotonic()
    ps = [ctx.Process(target=creator, args=(t0 + seconds, q)) for _ in range(c)]
    for p in ps:
        p.start()
    got = [g for _ in ps for g in q.get()]
    wall = time.monotonic() - t0
    for p in ps:
        p.join()
    stop.set()
    for p, _ in loaders:
        p.join(60)
    creates = [g[1] for g in got] or [0.0]
    totals = [g[2] for g in got] or [0.0]
    # load_ok: the load's processes that got their context (a load without them is no load)
    return {"creators": c, "load": load, "load_ok": n_ok.value, "load_n": n_load,
            "seconds": round(wall, 3), "contexts": len(got),
            "ok": sum(g[0] == 0 for g in got), "per_s": round(len(got) / wall, 3),
            "create_mean_s": round(statistics.mean(creates), 4),
            "create_p90_s": round(p90(creates), 4),
            "process_mean_s": round(statistics.mean(totals), 4),
            "process_p90_s": round(p90(totals), 4)}


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    rows = [run(k) for k in (1, 2, 4, 8, 1)]
    for r in rows:
        print(r, flush=True)
    seconds = float(os.environ.get("SUSTAINED_S", "5"))
    rates = []
    if seconds > 0:
        for load in ("idle", "busy", "held8"):
            for c in (1, 2, 4):
                rates.append(sustained(c, load, seconds))
                print(rates[-1], flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump({"tool": "bench/ctx_parallel.py", "cudart": CUDART, "rows": rows,
                   "sustained": rates,
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
