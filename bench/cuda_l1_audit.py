#!/usr/bin/env python3
"""bench/cuda_l1_audit.py — CUDA-L1's released kernels through cudal1's evaluator (issue 22).

Every row of CUDA-L1's JSON-lines file that carries a solution (`custom_code`, a KernelBench
ModelNew) is evaluated against its own problem (`ref_code`, imported as a task by `cudal1 task
import`) at KernelBench's sizes (the problem as written: shape set `small`), through a `cudal1
serve` started here (its compile pool builds the load_inline kernels while the GPU times others).
Resumable: results go to WORK/results.jsonl as they come, and rows already there are skipped, so
a run cut by --time-limit goes on where it stopped (a row's latest line counts). --redo
VERDICTS evaluates the rows judged so again (after an evaluator fix). --seed FILE takes the rows
of an earlier run's
results.jsonl as done (the committed bench/results/<gpu>/cuda-l1-audit-rows.jsonl), so an audit
longer than one device call or one session continues on a fresh machine. --time-limit starts no
batch that the batches so far say would end past it. --import-only imports the problems as task
folders under WORK/tasks and stops: they need no GPU (the importer runs each problem on the CPU),
so a build machine can do it and the folder be carried (the H100 spent 6 of its minutes on it;
a call that did not carry it once spent its whole --time-limit there: the run then says so and
exits 1).

usage: bench/cuda_l1_audit.py BUILD [--file F] [--work DIR] [--out OUT.json] [--device cuda|host]
         [--levels 1,2,3] [--limit N] [--jobs N] [--batch N] [--time-limit S] [--seed ROWS.jsonl]
         [--redo VERDICTS] [--import-only] [--table OUT.json]

OUT.json: per row the claimed score_default and the verified verdict, speedup and flags, whether
the source holds a custom kernel (load_inline or Triton) and whether one ran during the checks
(the evaluation's python.extension_calls), and the summary: verdicts and flags by class, and the
mean / median / geomean of the verified speedups with failures counted as 1.0 and excluded,
beside the claimed mean. --table prints the README table of an OUT.json."""
import argparse
import json
import math
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudal1  # noqa: E402


# CUDA-L1's released H100 file (input data, never copied into the repo)
CUDA_L1_FILE = os.path.join(ROOT, "..", "shared", "data", "cuda-l1", "h100.jsonl")


def has_code(c):
    return isinstance(c, str) and c.strip() not in ("", "None")


def load_rows(path, levels, limit):
    rows = []
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            r = json.loads(line)
            if r.get("level_id") in levels:
                r["_line"] = line_no
                rows.append(r)
    return rows[:limit] if limit else rows


def row_id(r):
    return f"L{r['level_id']}_T{r['task_id']}"


def import_task(build, work, r, tol=()):
    """The row's problem as a task folder (once; tol: ["--atol", A, "--rtol", R] or nothing, the
    importer's default); None, or the importer's refusal."""
    d = os.path.join(work, "tasks", row_id(r))
    if os.path.exists(os.path.join(d, "task.json")):
        return d, None
    os.makedirs(os.path.join(work, "problems"), exist_ok=True)
    prob = os.path.join(work, "problems", f"{r['task_id']}_{row_id(r)}.py")
    with open(prob, "w") as f:
        f.write(r["ref_code"])
    out = subprocess.run([os.path.join(build, "cudal1"), "task", "import", prob, d, "--level",
                          str(r["level_id"]), "--number", str(r["task_id"]), "--name",
                          f"{r['task_id']}_{row_id(r)}", *tol], capture_output=True, text=True)
    if out.returncode:
        return d, (out.stderr.strip().splitlines() or ["refused"])[-1]
    return d, None


def import_args(a):
    """The importer's flags: the tolerance, KernelBench's current default (1e-4 for FP32) unless
    --atol/--rtol (e.g. the 1e-2 KernelBench used when CUDA-L1 was evaluated), and the modules'
    mode (train, as KernelBench's harness, unless --mode eval). A work folder's tasks keep what
    they were imported with: use one folder per tolerance and mode."""
    return tolerance_args(a) + (["--mode", a.mode] if a.mode != "train" else [])


def tolerance_args(a):
    out = []
    if a.atol is not None:
        out += ["--atol", repr(a.atol)]
    if a.rtol is not None:
        out += ["--rtol", repr(a.rtol)]
    return out


def start_service(build, work, device, jobs):
    args = [os.path.join(build, "cudal1"), "serve", "--device", device, "--shapes", "small",
            "--port", "0", "--db", os.path.join(work, "audit.db"), "--compile-jobs", str(jobs),
            "--tasks-dir", os.path.join(work, "tasks")]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
    if not m:
        proc.kill()
        raise SystemExit("cuda_l1_audit: the service announced no port")
    return proc, f"http://127.0.0.1:{m.group(1)}"


def extension_facts(work, code):
    """The evaluation's python object (extension_calls; extension_errors and extension_error:
    the load_inline calls that got no extension) and its device, read from the service's store."""
    db = sqlite3.connect(os.path.join(work, "audit.db"))
    try:
        row = db.execute("select e.result_json, e.device, e.driver from evaluations e join "
                         "solutions s on s.id = e.solution_id where s.source = ? order by e.id "
                         "desc limit 1", (code,)).fetchone()
    finally:
        db.close()
    if not row or not row[0]:
        return {}, "", ""
    return json.loads(row[0]).get("python") or {}, row[1], row[2]


def custom_kernel(code):
    return "load_inline" in code or "triton" in code or "cpp_extension" in code


def audit(a):
    """The summary and the exit status (1: the limit ran out before any row); (None, 0) with
    --import-only."""
    levels = {int(x) for x in a.levels.split(",")}
    rows = [r for r in load_rows(a.file, levels, a.limit) if has_code(r.get("custom_code"))]
    os.makedirs(a.work, exist_ok=True)
    res_path = os.path.join(a.work, "results.jsonl")
    done = {}
    if os.path.exists(res_path):
        for line in open(res_path):
            x = json.loads(line)
            done[x["id"]] = x
    if a.seed:
        seeded = [json.loads(line) for line in open(a.seed) if line.strip()]
        with open(res_path, "a") as f:
            for x in seeded:
                if x["id"] not in done:
                    done[x["id"]] = x
                    f.write(json.dumps(x) + "\n")
    redo = {v for v in (a.redo or "").split(",") if v}
    # "custom": every row whose source holds a custom kernel, whatever its verdict
    again = [i for i, x in done.items() if x.get("verdict") in redo or
             ("custom" in redo and x.get("custom_kernel_in_source"))]
    if again:
        print(f"cuda_l1_audit: {len(again)} rows judged {', '.join(sorted(redo))} before are "
              f"evaluated again (--redo)", file=sys.stderr)
    todo = [r for r in rows if row_id(r) not in done or row_id(r) in again]
    t0 = time.monotonic()
    with ThreadPoolExecutor(a.jobs) as ex:
        imported = list(ex.map(lambda r: import_task(a.build, a.work, r, import_args(a)), todo))
    t_import = time.monotonic() - t0
    if todo:
        print(f"cuda_l1_audit: {len(todo)} problems ready in {t_import:.0f} s ({len(done)} rows "
              f"done before)", file=sys.stderr)
    if a.import_only:
        refused = [(row_id(r), why) for r, (_, why) in zip(todo, imported) if why]
        for rid, why in refused:
            print(f"cuda_l1_audit: {rid}: {why}", file=sys.stderr)
        print(f"cuda_l1_audit: {len(todo) - len(refused)} of {len(todo)} problems imported under "
              f"{os.path.join(a.work, 'tasks')}")
        return None, 0
    out = open(res_path, "a")

    def record(r, **kw):
        x = {"id": row_id(r), "level": r["level_id"], "task": r["task_id"], "line": r["_line"],
             "claimed": r.get("score_default"), "custom_kernel_in_source": custom_kernel(
                 r["custom_code"]), "commit": os.environ.get("CL1_COMMIT", ""),
             "date": time.strftime("%Y-%m-%d"), **kw}
        done[x["id"]] = x
        out.write(json.dumps(x) + "\n")
        out.flush()

    ready = []
    for r, (d, refused) in zip(todo, imported):
        if refused:
            record(r, verdict="task_refused", message=refused)
        else:
            ready.append((r, d))
    stopped_before_any = False
    if ready:
        proc, url = start_service(a.build, a.work, a.device, a.jobs)
        try:
            client = cudal1.Client(url, timeout=3600)
            t_batches, n_batches = 0.0, 0
            for k in range(0, len(ready), a.batch):
                mean_batch = t_batches / n_batches if n_batches else 0.0
                if a.time_limit and time.monotonic() - t0 + mean_batch > a.time_limit:
                    print(f"cuda_l1_audit: time limit: {len(ready) - k} rows left for a rerun",
                          file=sys.stderr)
                    stopped_before_any = k == 0
                    break
                tb = time.monotonic()
                chunk = ready[k:k + a.batch]
                items = [{"id": row_id(r), "task": os.path.basename(d), "code": r["custom_code"],
                          "format": "kernelbench"} for r, d in chunk]
                for (r, _), res in zip(chunk, client.score_job(items, poll_s=2.0)):
                    py, dev, drv = extension_facts(a.work, r["custom_code"])
                    record(r, status=res.get("status"), verdict=res.get("verdict"),
                           speedup=res.get("speedup"), flags=res.get("flags", []),
                           feedback=(res.get("feedback") or "")[:1000],
                           extension_calls=py.get("extension_calls"),
                           extension_errors=py.get("extension_errors"),
                           extension_error=py.get("extension_error", ""), device=dev, driver=drv)
                t_batches, n_batches = t_batches + time.monotonic() - tb, n_batches + 1
                print(f"cuda_l1_audit: {k + len(chunk)} of {len(ready)} rows in "
                      f"{time.monotonic() - t0:.0f} s", file=sys.stderr)
        finally:
            proc.terminate()
            proc.wait(timeout=120)
    out.close()
    if stopped_before_any:
        # An H100 call once spent its whole limit importing 210 problems and audited nothing
        # without saying why: the import is CPU work for the build machine.
        print(f"cuda_l1_audit: no row audited: preparing the problems took {t_import:.0f} s of the "
              f"{a.time_limit:.0f} s limit; import them beforehand (--import-only: no GPU needed) "
              f"and carry {os.path.join(a.work, 'tasks')}", file=sys.stderr)
        return summarize(a, rows, done), 1
    return summarize(a, rows, done), 0


def stats(xs):
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "mean": round(statistics.mean(xs), 4),
            "median": round(statistics.median(xs), 4),
            "geomean": round(math.exp(statistics.mean(math.log(max(x, 1e-9)) for x in xs)), 4)}


def summarize(a, rows, done):
    per = [done[row_id(r)] for r in rows if row_id(r) in done]
    passed = [x for x in per if x.get("verdict") == "pass" and x.get("speedup")]
    verdicts, flags = {}, {}
    for x in per:
        v = x.get("verdict") or x.get("status") or "?"
        verdicts[v] = verdicts.get(v, 0) + 1
        for f in x.get("flags") or []:
            flags[f] = flags.get(f, 0) + 1
    claimed = [x["claimed"] for x in per if isinstance(x.get("claimed"), (int, float))]
    dev = next((x.get("device") for x in per if x.get("device")), "")
    drv = next((x.get("driver") for x in per if x.get("driver")), "")
    return {
        "bench": "cuda_l1_audit", "file": os.path.basename(a.file),
        "commit": os.environ.get("CL1_COMMIT", ""), "date": time.strftime("%Y-%m-%d"),
        "gpu": dev, "driver": drv, "device": a.device, "shapes": "small",
        "tolerance": " ".join(tolerance_args(a)) or "the importer's default (1e-4; 1e-2 with "
        "half types)", "mode": a.mode,
        "rows_with_code": len(rows), "evaluated": len(per),
        "verdicts": verdicts, "flags": flags,
        "custom_kernel_in_source": sum(1 for x in per if x["custom_kernel_in_source"]),
        "custom_kernel_ran": sum(1 for x in per if (x.get("extension_calls") or 0) > 0),
        # a load_inline that got no extension (python.extension_error): the kernel never ran
        "custom_kernel_not_built": sum(1 for x in per if (x.get("extension_errors") or 0) > 0),
        "verified_failures_as_1": stats([x["speedup"] if x in passed else 1.0 for x in per]),
        "verified_passes_only": stats([x["speedup"] for x in passed]),
        "claimed_score_default": stats(claimed),
        "rows": per,
    }


def table(doc):
    s = doc
    lines = [f"CUDA-L1's H100 kernels through cudal1 ({s['gpu']}, {s['date']}, commit "
             f"{s['commit'][:10]}): {s['evaluated']} of {s['rows_with_code']} rows with code; "
             f"tolerance: {s.get('tolerance', 'the default')}; modules in {s.get('mode', 'train')} "
             f"mode.", "",
             "| | n | mean | median | geomean |", "|---|---|---|---|---|"]
    for k, name in (("claimed_score_default", "claimed (score_default)"),
                    ("verified_failures_as_1", "verified, failures as 1.0"),
                    ("verified_passes_only", "verified, passes only")):
        st = s[k]
        lines.append(f"| {name} | {st.get('n', 0)} | {st.get('mean', '-')} | "
                     f"{st.get('median', '-')} | {st.get('geomean', '-')} |")
    lines += ["", "Verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(s["verdicts"].items())),
              "Flags: " + (", ".join(f"{k} {v}" for k, v in sorted(s["flags"].items())) or "none"),
              f"A custom kernel in the source: {s['custom_kernel_in_source']}; one that ran during "
              f"the checks: {s['custom_kernel_ran']}; a load_inline that got no extension: "
              f"{s.get('custom_kernel_not_built', '-')}."]
    return "\n".join(lines)


def why_failed(text):
    """A failure's reason in a table cell: a mismatch's check and worst error, else the last line
    (a traceback's cause)."""
    m = re.search(r"check \d+ \(([^)]*)\).*?(\d+) of (\d+) elements.*?max abs ([^,]+)", text, re.S)
    if m:
        why = f"{m.group(1)}: {m.group(2)} of {m.group(3)} off, max abs {m.group(4)}"
    else:
        lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
        why = lines[-1] if lines else ""
    return why[:110].replace("|", "/")


def per_task(doc):
    """Every row: claimed score_default against the verified speedup (a failure's verdict and its
    reason's first words instead), flags, and whether the source holds a custom kernel."""
    def key(x):
        return (x.get("level") or 0, x.get("task") or 0)

    lines = ["| task | claimed | verified | verdict | flags | custom kernel | why |",
             "|---|---|---|---|---|---|---|"]
    for x in sorted(doc["rows"], key=key):
        v = x.get("verdict") or x.get("status") or "?"
        sp = f"{x['speedup']:.3f}" if v == "pass" and x.get("speedup") else "-"
        cl = x.get("claimed")
        cl = f"{cl:.3f}" if isinstance(cl, (int, float)) else "-"
        why = "" if v == "pass" else why_failed(x.get("feedback") or x.get("message") or "")
        kern = "yes" + (" (ran)" if (x.get("extension_calls") or 0) > 0 else "") \
            if x.get("custom_kernel_in_source") else ""
        lines.append(f"| level{x.get('level')}/{x.get('task')} | {cl} | {sp} | {v} | "
                     f"{', '.join(x.get('flags') or [])} | {kern} | {why} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?")
    ap.add_argument("--file", default=CUDA_L1_FILE)
    ap.add_argument("--work", default="cuda-l1-audit")
    ap.add_argument("--out")
    ap.add_argument("--device", default="cuda", choices=("cuda", "host"))
    ap.add_argument("--levels", default="1,2,3")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--time-limit", type=float, default=0)
    ap.add_argument("--seed", help="an earlier run's results.jsonl: its rows count as done")
    ap.add_argument("--redo", help="verdicts (comma-separated) whose rows, done or seeded, are "
                    "evaluated again: after an evaluator fix, e.g. crash,incorrect; 'custom': "
                    "every row whose source holds a custom kernel")
    ap.add_argument("--atol", type=float, help="the tasks' absolute tolerance (import)")
    ap.add_argument("--rtol", type=float, help="the tasks' relative tolerance (import)")
    ap.add_argument("--mode", choices=("train", "eval"), default="train",
                    help="the modules' mode (import): train, as KernelBench's harness; eval: "
                    "inference (BatchNorm on its running statistics)")
    ap.add_argument("--import-only", action="store_true", help="import the tasks and stop")
    ap.add_argument("--table", help="an audit's JSON: print its summary table and stop")
    ap.add_argument("--per-task", action="store_true", help="with --table: every row too")
    a = ap.parse_args()
    if a.table:
        doc = json.load(open(a.table))
        print(table(doc) + ("\n\n" + per_task(doc) if a.per_task else ""))
        return
    if not a.build:
        ap.error("BUILD is required")
    doc, rc = audit(a)
    if doc is None:  # --import-only
        return
    text = json.dumps(doc, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    print(table(doc))
    sys.exit(rc)


if __name__ == "__main__":
    main()
