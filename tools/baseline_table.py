#!/usr/bin/env python3
"""baseline_table.py — the reference-vs-baselines table (issue 6) from tools/baselines.py files.

For each shape set, level and mode: how many tasks the mode ran on (and failed on), and the
distribution of baseline median / C reference median, each pair timed side by side in one run —
above 1 the baseline is slower than our reference (a speedup over the reference is then a larger
one over that baseline), below 1 it is faster. Writes Markdown to stdout or --out.

  python3 tools/baseline_table.py bench/results/h200/baselines-small-*.json --out table.md
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baselines as bl  # noqa: E402  (the modes, in their order)
import suite_gpu as sg  # noqa: E402  (the suite's task list, median)


def stats(xs):
    xs = sorted(xs)
    n = len(xs)
    med = sg.median(xs)
    geo = math.exp(sum(math.log(x) for x in xs) / n)
    return med, geo, xs[0], xs[-1]


def provenance(d):
    """Which commit measured which modes, and when: a file filled over several runs (issue 6's
    resumable passes) holds modes measured at different commits."""
    runs = d.get("runs") or [{"commit": d.get("commit", "?"), "date": d.get("date", "?"),
                              "modes": d.get("modes") or []}]
    runs = [r for r in runs if r.get("cells") != 0] or runs  # a resumed call that measured nothing
    groups = {}
    for r in runs:
        key = (str(r.get("commit", "?"))[:7], ", ".join(r.get("modes") or []))
        groups.setdefault(key, []).append(str(r.get("date", "?")))
    return "; ".join(f"{modes or '?'} at {commit} ({min(ds)}" + (f" to {max(ds)}, {len(ds)} runs)" if len(ds) > 1 else ")")
                     for (commit, modes), ds in groups.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--suite", default=os.path.join(sg.ROOT, "suite"),
                    help="the suite the files cover: a task without a cell counts as not measured yet")
    a = ap.parse_args()
    per_level = {}
    for t in sg.find_tasks(a.suite):
        per_level[t.split("/")[0]] = per_level.get(t.split("/")[0], 0) + 1
    cells, meta = {}, []
    for f in a.files:
        try:
            d = json.load(open(f))
            if not isinstance(d.get("results"), list) or "shapes" not in d:
                raise ValueError("not a tools/baselines.py file (no shapes / results)")
        except (OSError, ValueError) as ex:
            print(f"baseline_table: {f}: {ex}", file=sys.stderr)
            return 1
        meta.append(f"{f}: {d.get('gpu', '?')}, driver {d.get('driver', '?')}, torch {d.get('torch', '?')}; "
                    + provenance(d))
        for level in per_level:  # every level and mode gets a row, measured or not
            for m in d.get("modes") or []:
                cells.setdefault((d["shapes"], level, m), {"ratios": [], "failed": []})
        for r in d["results"]:
            level = r["task"].split("/")[0]
            for m, v in r["modes"].items():
                c = cells.setdefault((d["shapes"], level, m), {"ratios": [], "failed": []})
                ref = v.get("ref_ms") or r.get("ref_ms")
                if v.get("status") == "ok" and ref:
                    c["ratios"].append(v["median_ms"] / ref)
                else:
                    c["failed"].append(f"{r['task'].split('/')[1]} ({(v.get('status') or '?').split(':')[0]})")
    lines = ["# C reference vs PyTorch baselines", "",
             "Baseline median / C reference median per task (timed side by side, evaluator's protocol).",
             "Above 1: the baseline is slower than our reference.", ""]
    lines += [f"- {m}" for m in meta] + [""]
    lines += ["| shapes | level | baseline | measured | failed | not yet | median | geomean | min | max | reference faster |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key in sorted(cells, key=lambda k: (k[0], k[1], bl.MODES.index(k[2]) if k[2] in bl.MODES else 9)):
        c = cells[key]
        if c["ratios"]:
            med, geo, lo, hi = stats(c["ratios"])
            faster = sum(1 for x in c["ratios"] if x > 1) / len(c["ratios"])
            nums = f"{med:.2f} | {geo:.2f} | {lo:.2f} | {hi:.2f} | {100 * faster:.0f}%"
        else:
            nums = "— | — | — | — | —"
        todo = max(0, per_level.get(key[1], 0) - len(c["ratios"]) - len(c["failed"]))
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {len(c['ratios'])} | {len(c['failed'])} | {todo} | {nums} |")
    fails = [(k, c["failed"]) for k, c in sorted(cells.items()) if c["failed"]]
    if fails:
        lines += ["", "Failed, with the kind of failure (the full reasons are in the JSON files):", ""]
        lines += [f"- {k[0]} {k[1]} {k[2]}: {', '.join(v)}" for k, v in fails]
    text = "\n".join(lines) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
