"""test_bench_serve.py — bench/serve.py's steady mode on the host backend (what a GPU session
runs as `scripts/gpu-run serve` variant `steady`): a first batch of the same tasks before the
measured one, reported as step0 and left out of the phase means, with the measured batch then
finding its tasks' reference workers pooled; the phase means apart by where each candidate's
worker came from (a spare or its own spawn), and each evaluation's row. The figures are the GPU's to give; this checks
the bookkeeping, not the speed."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("CL1_BUILD", "build")
BUILD = BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD)
sys.path.insert(0, os.path.join(ROOT, "bench"))
from serve import TASKS  # noqa: E402


class SteadyMode(unittest.TestCase):
    def test_a_first_batch_is_reported_apart_and_the_second_reuses_references(self):
        n = 6  # one completion of each of the bench's six tasks
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "serve.json")
            env = dict(os.environ, STEADY="1", SPREAD="0", BENCH_TAG="steadytest")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench/serve.py"), BUILD, "host",
                                out, str(n), "--workers", "2", "--min-trials", "5", "--max-trials", "5",
                                "--time-budget", "0.01"],
                               cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(out) as f:
                doc = json.load(f)
        self.assertTrue(doc["steady"])
        self.assertEqual(doc["step0"]["verdicts"], {"pass": n})
        self.assertEqual(doc["step0"]["cached"], 0)
        self.assertEqual(doc["first"]["verdicts"], {"pass": n})
        self.assertEqual(doc["first"]["cached"], 0)  # new completions, evaluated for real
        self.assertEqual(doc["phases_mean_first"]["n"], n)  # step0's evaluations left out
        ph = doc["phases_mean_first"]
        # the timing's parts (prep, warm-up, pairs) within it, and the pairs counted
        self.assertLessEqual(ph["time_prep_mean_s"] + ph["time_warmup_mean_s"] + ph["time_pairs_mean_s"],
                             ph["time_mean_s"] + 1e-3)
        self.assertGreaterEqual(ph["pairs_mean"], 5)
        # each evaluation's row says where its workers came from; the split means count them all
        rows = ph["rows"]
        self.assertEqual(len(rows), n)
        self.assertEqual({r["task"] for r in rows}, {f"level1/{t}" for t in TASKS})
        for r in rows:
            self.assertIn(r["ref"], ("pooled", "spare", "spawned"))
            self.assertIn(r["cand"], ("spare", "spawned"))
            self.assertGreater(r["total"], 0)
        by = ph["by_cand_worker"]
        self.assertEqual(sum(v["n"] for v in by.values()), n)
        for k, v in by.items():
            self.assertEqual(v["n"], sum(r["cand"] == k for r in rows))
        self.assertIn("spare_wait_mean_s", ph)
        self.assertTrue(any(r["ref"] == "pooled" for r in rows))  # step 0's references
        refs = doc["service_stats_after_first"]["reference_workers"]
        # the measured batch found each task's reference from step 0 pooled (how many were
        # started is the machine's: a timing that looks suspicious on a loaded machine is
        # measured again with a fresh reference, which counts as started)
        self.assertGreaterEqual(refs["reused"], n)


if __name__ == "__main__":
    unittest.main()
