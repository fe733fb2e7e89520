#!/usr/bin/env python3
"""fidelity_summary.py — bench/results/h200/ref-fidelity.json and the README table from a
tools/suite_gpu.py --time document (suite-check.json).

  python3 tools/fidelity_summary.py SUITE.json [--kernel-times PROFILE.json]...
                                   [--merge NEWER.json]... [--out-suite F] [--out F]

--merge updates the rows of the tasks NEWER.json holds (a re-measured subset, e.g. after a fix
to some ops) shape set by shape set: the fields a newer shape-set entry has replace the older
ones, shape sets and fields it lacks are kept (a timing-only re-run keeps the earlier run's
test-shape check). Each merged document's commit goes into a "remeasured" list, so that one file
says which rows come from which run. --kernel-times takes the kernel_ratio of a suite_gpu
--profile run (each side's summed kernel time per call, launch and dispatch left out) into the
rows it names, later files over earlier ones; rows merged afterwards bring their own. A profile
run's wall-time ratios are not taken: after torch.profiler has run in a process, eager's
dispatch there is slower (small-shape eager times up to 2x), so timing and profiling are
separate runs. Prints the Markdown summary table.
"""
import argparse
import json
import statistics
import sys

LEVELS = ("level1", "level2", "level3")


def ratios(rows, shapes, level=None):
    out = []
    for r in rows:
        if level and not r["task"].startswith(level + "/"):
            continue
        v = r.get(shapes, {}).get("ratio")
        if isinstance(v, (int, float)):
            out.append((v, r["task"]))
    return sorted(out)


def ratios_of(rows, shapes, key):
    return sorted((r[shapes][key], r["task"]) for r in rows
                  if isinstance(r.get(shapes, {}).get(key), (int, float)))


def summarise(rows, shapes):
    s = summarise_wall(rows, shapes)
    kr = ratios_of(rows, shapes, "kernel_ratio")
    if kr:
        vals = [v for v, _ in kr]
        s.update({"kernel_ratio_tasks": len(vals), "kernel_ratio_median": statistics.median(vals),
                  "kernel_ratio_share_in_0.9_1.1": sum(1 for v in vals if 0.9 <= v <= 1.1) / len(vals),
                  "kernel_ratio_above_1.5": [[t, round(v, 3)] for v, t in reversed(kr) if v > 1.5]})
    return s


def summarise_wall(rows, shapes):
    rs = ratios(rows, shapes)
    if not rs:
        return {"tasks": 0}
    vals = [v for v, _ in rs]
    s = {
        "tasks": len(rs),
        "median": statistics.median(vals),
        "min": vals[0],
        "max": vals[-1],
        "share_in_0.9_1.1": sum(1 for v in vals if 0.9 <= v <= 1.1) / len(vals),
        "above_1.5": [[t, round(v, 3)] for v, t in reversed(rs) if v > 1.5],
        "below_0.5": [[t, round(v, 3)] for v, t in rs if v < 0.5],
    }
    for lv in LEVELS:
        lr = [v for v, _ in ratios(rows, shapes, lv)]
        if lr:
            s["median_" + lv] = statistics.median(lr)
    return s


def load_doc(path):
    """A suite_gpu document (a dict with a list of rows that name their task), or exit with one
    message naming the file."""
    try:
        doc = json.load(open(path))
        if not all(isinstance(r["task"], str) for r in doc["results"]):
            raise TypeError("a row's task is not a string")
        return doc
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"fidelity_summary: {path}: not a suite_gpu document ({e})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("suite")
    ap.add_argument("--merge", action="append", default=[])
    ap.add_argument("--kernel-times", action="append", default=[],
                    help="a suite_gpu --profile document: its kernel_ratio per row (later files win)")
    ap.add_argument("--out-suite", help="write the merged suite document here")
    ap.add_argument("--out", help="write ref-fidelity.json here")
    a = ap.parse_args()
    doc = load_doc(a.suite)
    rows = {r["task"]: r for r in doc["results"]}
    for kt in a.kernel_times:
        prof = load_doc(kt)
        n = 0
        for pr in prof["results"]:
            for sh in ("small", "large"):
                x = pr.get(sh, {})
                if pr.get("task") in rows and isinstance(x.get("kernel_ratio"), (int, float)):
                    rows[pr["task"]].setdefault(sh, {})["kernel_ratio"] = x["kernel_ratio"]
                    n += 1
        doc.setdefault("kernel_times", []).append(
            {"commit": prof.get("commit", ""), "date": prof.get("date", ""), "rows": n})
    for m in a.merge:
        new = load_doc(m)
        newrows = new["results"]
        for r in newrows:
            cur = rows.setdefault(r["task"], {"task": r["task"]})
            for k, v in r.items():
                if isinstance(v, dict) and isinstance(cur.get(k), dict):
                    cur[k].update(v)
                else:
                    cur[k] = v
        doc.setdefault("remeasured", []).append(
            {"commit": new.get("commit", ""), "date": new.get("date", ""), "tasks": [r["task"] for r in newrows]})
    doc["results"] = [rows[t] for t in sorted(rows, key=lambda t: (t.split("/")[0], int(t.split("/")[1].split("_")[0])))]
    if a.out_suite:
        json.dump(doc, open(a.out_suite, "w"), indent=1)
    fid = {
        "tool": "bench/ref_fidelity (tools/suite_gpu.py --time), summarised by tools/fidelity_summary.py",
        "commit": doc.get("commit", ""), "date": doc.get("date", ""), "gpu": doc.get("gpu", ""),
        "torch": doc.get("torch", ""), "remeasured": doc.get("remeasured", []),
        "kernel_times": doc.get("kernel_times", []),
        "summary": {s: summarise(doc["results"], s) for s in ("small", "large")},
        "results": [{"task": r["task"], **{s: {k: r[s][k] for k in ("ref_ms", "eager_ms", "ratio", "trials", "kernel_ratio") if k in r.get(s, {})}
                                           for s in ("small", "large") if s in r}} for r in doc["results"]],
    }
    if a.out:
        json.dump(fid, open(a.out, "w"), indent=1)
    print("| shapes | median | level 1 / 2 / 3 | tasks in [0.9, 1.1] | above 1.5 (target: none) "
          "| kernel time: median, above 1.5 |")
    print("|---|---|---|---|---|---|")
    for s in ("small", "large"):
        x = fid["summary"][s]
        if not x.get("tasks"):
            continue
        lv = " / ".join(f"{x.get('median_' + l, float('nan')):.2f}" for l in LEVELS)
        kt = (f"{x['kernel_ratio_median']:.2f} ({x['kernel_ratio_tasks']} tasks), "
              f"{len(x['kernel_ratio_above_1.5'])}"
              if x.get("kernel_ratio_tasks") else "-")
        print(f"| {s} | {x['median']:.2f} | {lv} | {100 * x['share_in_0.9_1.1']:.0f} % | {len(x['above_1.5'])} | {kt} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
