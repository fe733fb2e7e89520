"""scripts/selftest_json.py BUILD PASSED FAILED — assembles the GPU self-test result file
(bench/results/h200/eval-selftest.json) from the rows the GPU tests appended to
BUILD/gpu-results.jsonl and the starter tasks' suite_gpu.py JSON, with commit, date, GPU and driver."""
import datetime, json, os, subprocess, sys

build, passed, failed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def sh(c):
    try:
        return subprocess.check_output(c, shell=True, text=True, stderr=subprocess.DEVNULL).strip()
    except Exception:
        return ""

rows = []
path = os.path.join(build, "gpu-results.jsonl")
if os.path.exists(path):
    for line in open(path):
        line = line.strip()
        if line:
            rows.append(json.loads(line))
cases = []
for r in rows:
    res = r.get("result") or {}
    cases.append({"file": r["file"], "task": r["task"], "expected": r["expected"],
                  "verdict": res.get("verdict"), "message": res.get("message"),
                  "speedup": res.get("speedup"), "flags": res.get("flags"),
                  "ok": res.get("verdict") == r["expected"] or
                        (r["expected"] == "pass-slow" and res.get("verdict") == "pass"),
                  "wall_s": r.get("wall_s")})
twins = {}
p = os.path.join(build, "twin-starters.json")  # tools/suite_gpu.py: test, small, large
if os.path.exists(p):
    twins = json.load(open(p))
doc = {"commit": os.environ.get("CL1_COMMIT", "") or sh("git rev-parse HEAD"),
       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
       "gpu": sh("nvidia-smi --query-gpu=name --format=csv,noheader"),
       "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader"),
       "passed": passed, "failed": failed, "eval_cases": cases, "twin_checks": twins}
print(json.dumps(doc, indent=1))
