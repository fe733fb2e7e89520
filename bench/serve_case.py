#!/usr/bin/env python3
"""bench/serve_case.py BUILD DEVICE FILE TASK N [SERVE ARGS...] — one candidate through a fresh
`cudal1 serve` N times (each a fresh evaluation, one after another), printing each verdict,
speedup and flags: a diagnosis of how the service's evaluation of one case compares across its
options (--overlap, --fresh-references) with `cudal1 eval`'s."""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudal1  # noqa: E402


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__.split("\n")[0])
    build, device, path, task, n = sys.argv[1:6]
    d = tempfile.mkdtemp(prefix="cl1case")
    shapes = "small" if device == "cuda" else "test"
    proc = subprocess.Popen([os.path.join(build, "cudal1"), "serve", "--device", device, "--shapes",
                             shapes, "--port", "0", "--db", os.path.join(d, "case.db")] + sys.argv[6:],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
        c = cudal1.Client(f"http://127.0.0.1:{m.group(1)}", retries=0)
        code = open(path).read()
        rows = []
        for _ in range(int(n)):
            r = c.score([{"task": task, "code": code}], fresh=True)[0]
            rows.append({k: r.get(k) for k in ("verdict", "speedup", "flags")})
            print(json.dumps(rows[-1]), flush=True)
        print(json.dumps({"args": sys.argv[6:], "stats": c.stats().get("reference_workers")}))
    finally:
        proc.terminate()
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
