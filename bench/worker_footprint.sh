#!/usr/bin/env bash
# bench/worker_footprint.sh BUILD BACKEND OUT.json — what the sandboxed candidate worker maps and
# how long workers take to start (issue 19, item 1: measured before and after the worker became
# its own binary). Runs `cudal1 eval` on a correct ReLU whose calls spin a while
# (bench/fixtures/slow_relu.{c,cu}), reads the candidate worker's /proc/<pid>/maps from outside
# while it runs (its shared objects: count and names), and takes the judge's `start` phase (both
# workers spawned and set up) from the eval's JSON, over 3 evaluations.
set -uo pipefail
build=${1:?usage: bench/worker_footprint.sh BUILD host|cuda OUT.json}; backend=${2:?}; out=${3:?}
ext=c; [ "$backend" = cuda ] && ext=cu
sol=bench/fixtures/slow_relu.$ext
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
starts=()
for k in 1 2 3; do
  "$build/cudal1" eval --task level1/19_ReLU --solution "$sol" --device "$backend" --shapes test \
      --min-trials 5 --max-trials 5 --time-budget 0.1 --json > "$tmp/eval-$k.json" 2> "$tmp/err-$k" &
  ev=$!
  # the candidate worker: the eval's second child (the judge spawns the reference's first),
  # once it has loaded the solution from the compile cache (.../so/XX/HASH.so)
  for _ in $(seq 1 200); do
    pid=$(pgrep -P "$ev" | sort -n | sed -n 2p)
    [ -n "$pid" ] && grep -q '/so/[0-9a-f]*/[0-9a-f]*\.so' "/proc/$pid/maps" 2>/dev/null && break
    pid=; sleep 0.05
  done
  [ -n "$pid" ] && [ "$k" = 1 ] && awk '$6 ~ /\.so/ {print $6}' "/proc/$pid/maps" | sort -u > "$tmp/libs"
  wait "$ev" || { echo "worker_footprint: eval $k failed: $(tail -n 2 "$tmp/err-$k") $(grep -m1 message "$tmp/eval-$k.json")" >&2; exit 1; }
  starts+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases_s"]["start"])' "$tmp/eval-$k.json")")
done
[ -s "$tmp/libs" ] || { echo "worker_footprint: never saw the candidate worker's maps" >&2; exit 1; }
python3 - "$tmp/libs" "$out" "$backend" "${starts[@]}" <<'PY'
import json, subprocess, sys, datetime
libs = [l.strip() for l in open(sys.argv[1]) if l.strip()]
out, backend, starts = sys.argv[2], sys.argv[3], [float(s) for s in sys.argv[4:]]
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
doc = {"tool": "bench/worker_footprint.sh", "commit": commit, "backend": backend,
       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
       "candidate_worker_shared_objects": len(libs), "shared_objects": libs,
       "start_phase_s": starts, "start_phase_s_median": sorted(starts)[len(starts) // 2]}
json.dump(doc, open(out, "w"), indent=1)
print(f"worker_footprint {backend}: candidate worker maps {len(libs)} shared objects; "
      f"start phase median {doc['start_phase_s_median']:.3f} s (3 evaluations)")
PY
