#!/usr/bin/env python3
"""cuda_l1_builds.py — which of CUDA-L1's released extensions compile at all: each row whose code
calls load_inline goes through the evaluator's build step (python -m cudal1.pybuild, confined by
`cudal1-worker --confine-build`, as src/eval/pybuild.c runs it, for sm_90), on the build machine:
nvcc needs no GPU. The H100 audit of 2026-12-07 found 79 rows with a custom kernel and only 3
whose extension ran during the checks; this says how many never had one to run.

    bench/cuda_l1_builds.py BUILD [--file h100.jsonl] [--out F.json] [--limit N] [--time-limit S]

Per row: built (an extension .so came out), failed (cl1_build_error.txt: the compiler's error
lines; the module swallowed the error, or the build step would have been a compile_error),
not_reached (no load_inline ran here: one made on the first forward for CUDA inputs only, which
the GPU's build step reaches), or import_failed (the module did not import: its compile_error).
Resumable: rows already in --out are kept."""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from cuda_l1_audit import CUDA_L1_FILE, custom_kernel, has_code, load_rows, row_id  # noqa: E402

BUILD_S = 300  # src/eval/pybuild.c BUILD_MIN_S; its environment and limits, as cl1_pybuild_run sets
              # them, are repeated below: the C function runs only inside an evaluation


def build_row(build, code, keep):
    """The build step on one module: (outcome, detail, seconds)."""
    from cudal1.pysol import BUILD_ERROR  # where the build step's hook leaves a failure
    d = tempfile.mkdtemp(prefix="cl1-l1build-")
    try:
        with open(os.path.join(d, "module.py"), "w") as f:
            f.write(code)
        os.makedirs(os.path.join(d, ".tmp"))
        env = {"TMPDIR": os.path.join(d, ".tmp"), "HOME": os.path.join(d, ".tmp"),
               "PYTHONPATH": os.path.join(ROOT, "python"), "PATH": os.environ.get("PATH", ""),
               "TORCH_CUDA_ARCH_LIST": "9.0", "CUDAL1_BUILD_BACKEND": "cpu",
               "PYTHONDONTWRITEBYTECODE": "1", "HF_HUB_OFFLINE": "1"}
        for k in ("CUDA_HOME", "LD_LIBRARY_PATH"):
            if k in os.environ:
                env[k] = os.environ[k]
        argv = [os.path.join(os.path.abspath(build), "cudal1-worker"), "--confine-build", d, str(64 << 10),
                str(2 * BUILD_S), "--", sys.executable, "-m", "cudal1.pybuild",
                os.path.join(d, "module.py"), os.path.join(d, "ext"), "-"]
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, cwd=d, env=env, capture_output=True, text=True,
                               timeout=BUILD_S)
        except subprocess.TimeoutExpired:
            return "timeout", f"the build ran past {BUILD_S} s", time.monotonic() - t0
        secs = time.monotonic() - t0
        if p.returncode == 1:
            last = (p.stderr.strip().splitlines() or ["?"])[-1]
            return "import_failed", last[:400], secs
        if p.returncode:
            return "harness_error", f"exit {p.returncode}: {p.stderr[-400:]}", secs
        ext = os.path.join(d, "ext")
        errors, built = [], 0
        for k in sorted(os.listdir(ext)):
            sub = os.path.join(ext, k)
            if any(n.endswith(".so") for n in os.listdir(sub)):
                built += 1
            elif os.path.exists(os.path.join(sub, BUILD_ERROR)):
                with open(os.path.join(sub, BUILD_ERROR)) as f:
                    errors.append(f.read().strip())
        if errors:
            return "failed", errors[0][:400], secs
        return ("built", f"{built} extension(s)", secs) if built else ("not_reached", "", secs)
    finally:
        if not keep:
            shutil.rmtree(d, ignore_errors=True)


def table(doc):
    """The outcomes and every row's, as Markdown (docs/cuda-l1-audit.md)."""
    c = doc.get("outcomes", {})
    lines = [f"{doc.get('checked', 0)} of the {doc.get('rows_with_load_inline', 0)} rows that call "
             f"`load_inline`, built for {doc.get('arch', 'sm_90')} on the build machine "
             f"({doc.get('date', '')}, commit {doc.get('commit', '')}): " +
             ", ".join(f"{k} {v}" for k, v in sorted(c.items())) + ".", "",
             "| row | outcome | the compiler's first error lines |", "|---|---|---|"]
    for x in doc["rows"]:
        detail = x["detail"].replace("|", "/") if x["outcome"] != "built" else ""
        lines.append(f"| {x['id']} | {x['outcome']} | {detail[:200]} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?")
    ap.add_argument("--file", default=CUDA_L1_FILE)
    ap.add_argument("--out", default="cuda-l1-builds.json")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=0)
    ap.add_argument("--keep", action="store_true", help="keep the build folders (debugging)")
    ap.add_argument("--table", help="a result file: print it as Markdown and stop")
    a = ap.parse_args()
    if a.table:
        print(table(json.load(open(a.table))))
        return
    if not a.build:
        ap.error("BUILD is required")
    rows = [r for r in load_rows(a.file, {1, 2, 3}, a.limit)
            if has_code(r.get("custom_code")) and "load_inline" in r["custom_code"]]
    doc = {"bench": "cuda_l1_builds", "file": os.path.basename(a.file), "rows": []}
    if os.path.exists(a.out):
        doc = json.load(open(a.out))
    done = {x["id"] for x in doc["rows"]}
    t0 = time.monotonic()
    for r in rows:
        if row_id(r) in done:
            continue
        if a.time_limit and time.monotonic() - t0 > a.time_limit:
            print(f"cuda_l1_builds: time limit: {len(rows) - len(doc['rows'])} rows left",
                  file=sys.stderr)
            break
        outcome, detail, secs = build_row(a.build, r["custom_code"], a.keep)
        doc["rows"].append({"id": row_id(r), "outcome": outcome, "detail": detail,
                            "seconds": round(secs, 1),
                            "custom_kernel_in_source": custom_kernel(r["custom_code"])})
        print(f"cuda_l1_builds: {row_id(r)}: {outcome} {detail[:120]}", file=sys.stderr)
        counts = collections.Counter(x["outcome"] for x in doc["rows"])
        doc.update(rows_with_load_inline=len(rows), checked=len(doc["rows"]), outcomes=dict(counts),
                   date=time.strftime("%Y-%m-%d"), arch="sm_90 (TORCH_CUDA_ARCH_LIST=9.0)",
                   commit=os.environ.get("CL1_COMMIT", ""))
        with open(a.out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(a.out + ".tmp", a.out)
    print(json.dumps({k: doc.get(k) for k in ("rows_with_load_inline", "checked", "outcomes")}))


if __name__ == "__main__":
    main()
