#!/usr/bin/env python3
"""repeat_summary.py DIR — the table of scripts/diagnose-repeat: for each traced evaluation, each
side's median event and wall time over its timed trials, the share of trials in a slow mode, the
speedup, and the GPU's SM clock and power while it ran. Writes DIR/summary.json and prints it."""
import json, os, re, statistics, sys

TRIAL = 6  # CL1_MSG_TRIAL in src/eval/proto.h
LINE = re.compile(r"^trace ([0-9.]+) (ref|cand) reply (\d+) ([0-9.]+) ms (\{.*\})\s*$")


def trials(path):
    out = {"ref": [], "cand": []}
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if not m or int(m.group(3)) != TRIAL:
            continue
        try:
            rep = json.loads(m.group(5))
        except ValueError:
            continue  # a reply cut at 300 characters by the trace
        out[m.group(2)].append((float(rep.get("ev_ms", 0)), float(rep.get("wall_ms", 0)),
                                float(rep.get("host_ms", 0))))
    return out


def side(rows):
    if not rows:
        return {}
    ev = [r[0] for r in rows]
    wall = [r[1] for r in rows]
    host = [r[2] for r in rows]
    med = statistics.median(ev)
    return {"n": len(rows), "ev_med": med, "ev_min": min(ev), "wall_med": statistics.median(wall),
            "host_med": statistics.median(host),
            "slow_share": sum(e > 1.02 * min(ev) for e in ev) / len(ev)}


def smi_rows(path):
    rows = []
    if not os.path.exists(path):
        return rows
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        if len(f) < 6:
            continue
        try:
            # timestamp: 2026/12/03 08:10:11.123
            from datetime import datetime, timezone
            t = datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()
            rows.append((t, float(f[1]), float(f[3]), f[5]))
        except ValueError:
            continue
    return rows


def main(d):
    marks = {}
    if os.path.exists(os.path.join(d, "marks.txt")):
        for line in open(os.path.join(d, "marks.txt")):
            what, s, k, t = line.split()
            marks.setdefault((s, k), {})[what] = float(t)
    smi = smi_rows(os.path.join(d, "smi.csv"))
    table = []
    for name in sorted(os.listdir(d)):
        m = re.match(r"^(cand|ctrl)(\d+)\.trace$", name)
        if not m:
            continue
        tr = trials(os.path.join(d, name))
        row = {"run": m.group(1) + m.group(2), "ref": side(tr["ref"]), "cand": side(tr["cand"])}
        try:
            js = json.load(open(os.path.join(d, name[:-6] + ".json")))
            row["speedup"] = js.get("speedup")
            row["verdict"] = js.get("verdict")
        except (OSError, ValueError):
            pass
        se = marks.get((m.group(1), m.group(2)), {})
        # nvidia-smi's timestamps are local wall clock; marks are epoch: compare by offset only
        # when both exist, else leave the clock columns out
        if smi and "start" in se and "end" in se:
            sel = [r for r in smi if se["start"] - 1 <= r[0] <= se["end"] + 1]
            if sel:
                row["sm_mhz"] = [min(r[1] for r in sel), max(r[1] for r in sel)]
                row["power_w"] = [min(r[2] for r in sel), max(r[2] for r in sel)]
                row["throttle"] = sorted({r[3] for r in sel})
        table.append(row)
    json.dump(table, open(os.path.join(d, "summary.json"), "w"), indent=1)
    print("%-7s %8s | %8s %8s %7s %5s | %8s %8s %7s %5s | %s" % ("run", "speedup", "ref ev",
          "ref wall", "ref host", "slow", "cand ev", "cand wall", "c host", "slow", "sm MHz / W"))
    for r in table:
        a, b = r["ref"], r["cand"]
        print("%-7s %8.4f | %8.4f %8.4f %7.4f %5.2f | %8.4f %8.4f %7.4f %5.2f | %s %s" % (
            r["run"], r.get("speedup") or 0, a.get("ev_med", 0), a.get("wall_med", 0),
            a.get("host_med", 0), a.get("slow_share", 0), b.get("ev_med", 0), b.get("wall_med", 0),
            b.get("host_med", 0), b.get("slow_share", 0), r.get("sm_mhz", ""), r.get("power_w", "")))
    for s in ("cand", "ctrl"):
        sp = [r["speedup"] for r in table if r["run"].startswith(s) and r.get("speedup")]
        if sp:
            print("%s: %d runs, speedup %.4f..%.4f, spread %.2f%%" % (s, len(sp), min(sp), max(sp),
                  100 * (max(sp) / min(sp) - 1)))


if __name__ == "__main__":
    main(sys.argv[1])
