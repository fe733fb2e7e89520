#!/usr/bin/env bash
# bench/loop_pipeline.sh BUILD DEVICE N OUT.json — the optimize loop's own cost (issue 5): one
# round of N samples of level1/19_ReLU from the replay backend, which delivers all N at once.
# The N completions are distinct ReLU kernels (block size, elements per thread, a variant tag), so
# each compiles for real. Reports the loop's overhead per sample (everything but generation and
# evaluation: parse, prompt, store writes, queueing) against the evaluation time, and the share
# of the wall time the evaluation queue was busy (plus nvidia-smi's utilization, sampled).
set -u
build=$1; device=${2:-cuda}; n=${3:-64}; out=$4
work=$(mktemp -d)
shapes=small; ext=cu
[ "$device" = host ] && shapes=test && ext=c
for i in $(seq 0 $((n - 1))); do
  bs=$((64 << (i % 5))); per=$((1 + (i / 5) % 4))
  if [ $ext = cu ]; then
    cat > "$work/v$i.cu" <<SRC
/* variant $i: $bs threads per block, $per elements per thread */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
__global__ static void relu_k(const float *x, float *y, long n) {
  long base = (blockIdx.x * (long)blockDim.x + threadIdx.x) * $per;
  for (int k = 0; k < $per; k++) if (base + k < n) y[base + k] = fmaxf(x[base + k], 0.f);
}
CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  long threads = (n + $per - 1) / $per;
  relu_k<<<(unsigned)((threads + $bs - 1) / $bs), $bs, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
SRC
  else
    cat > "$work/v$i.c" <<SRC
/* variant $i: blocks of $bs elements, unrolled by $per */
#include <cudal1/solution.h>
CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  for (int64_t b = 0; b < n; b += $bs)
    for (int64_t i = b; i < b + $bs && i < n; i += $per)
      for (int k = 0; k < $per && i + k < n; k++) y[i + k] = x[i + k] < 0.f ? 0.f : x[i + k];
  return 0;
}
SRC
  fi
  printf '{"task": "level1/19_ReLU", "file": "v%d.%s"}\n' $i $ext >> "$work/replay.jsonl"
done
smi=
if [ "$device" = cuda ]; then
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 100 > "$work/util.txt" 2>/dev/null &
  smi=$!
fi
t0=$(date +%s.%N)
"$build/cudal1" optimize --backend replay --replay "$work/replay.jsonl" --task level1/19_ReLU \
  --device $device --shapes $shapes --rounds 1 --samples $n --compile-jobs ${COMPILE_JOBS:-8} \
  --db "$work/b.db" --out "$work/out" --no-progress > "$work/run.log" 2>&1
rc=$?
t1=$(date +%s.%N)
[ -n "$smi" ] && kill $smi 2>/dev/null
python3 - "$work" "$out" "$device" "$n" "$rc" "$t0" "$t1" <<'PY'
import json, sys, os, subprocess, datetime
w, out, device, n, rc, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
s = json.load(open(os.path.join(w, "out", "run-1", "summary.json")))["stats"]
util = []
up = os.path.join(w, "util.txt")
if os.path.exists(up):
    util = [float(x) for x in open(up).read().split() if x.replace('.', '', 1).isdigit()]
def sh(c):
    try: return subprocess.check_output(c, shell=True, text=True, stderr=subprocess.DEVNULL).strip()
    except Exception: return ""
doc = {"bench": "loop_pipeline", "device": device, "samples": n, "exit_status": rc,
       "wall_s": s["wall_s"], "eval_s": s["eval_s"], "eval_busy_s": s["eval_busy_s"],
       "compile_s": s["compile_s"], "loop_overhead_s": s["loop_overhead_s"],
       "evaluated": s["evaluated"], "passed": s["passed"],
       "overhead_per_sample_ms": 1e3 * s["loop_overhead_s"] / max(1, s["evaluated"]),
       "eval_per_sample_s": s["eval_s"] / max(1, s["evaluated"]),
       "overhead_share_of_eval": s["loop_overhead_s"] / s["eval_s"] if s["eval_s"] else None,
       "wall_s_process": t1 - t0,
       "eval_queue_busy_share": s["eval_busy_s"] / (t1 - t0),
       "nvidia_smi_util_mean_pct": sum(util) / len(util) if util else None,
       "commit": os.environ.get("CL1_COMMIT", "") or sh("git rev-parse HEAD"),
       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
       "gpu": sh("nvidia-smi --query-gpu=name --format=csv,noheader") if device == "cuda" else "host",
       "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader") if device == "cuda" else ""}
json.dump(doc, open(out, "w"), indent=1)
print(json.dumps(doc, indent=1))
PY
tail -n 3 "$work/run.log"
rm -rf "$work"
exit $rc
