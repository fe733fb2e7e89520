"""test_ctx_parallel.py — bench/ctx_parallel.py's bookkeeping on a machine without a GPU (what a
GPU session runs as `scripts/gpu-run ctx`): every call fails there, and the burst and sustained
rows must still come out whole, each failure counted as one (ok), no row lost, the loads' own
failures reported (load_ok) rather than taken for a load. The figures are the GPU's to give."""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cudart():
    for name in ("libcudart.so", "/usr/local/cuda/lib64/libcudart.so"):
        try:
            ctypes.CDLL(name)
            return name
        except OSError:
            pass
    return None


@unittest.skipUnless(cudart(), "no libcudart on this machine")
class Bookkeeping(unittest.TestCase):
    def test_rows_come_out_whole_and_count_what_failed(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "ctx.json")
            env = dict(os.environ, CUDART=cudart(), SUSTAINED_S="0.2")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench/ctx_parallel.py"), out],
                               cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(out) as f:
                doc = json.load(f)
        self.assertEqual([r["k"] for r in doc["rows"]], [1, 2, 4, 8, 1])
        for r in doc["rows"]:
            self.assertLessEqual(r["ok"], r["k"])
            self.assertLessEqual(r["all_created_s"], r["all_exited_s"] + 1e-9)
        rows = doc["sustained"]
        self.assertEqual([(r["load"], r["creators"]) for r in rows],
                         [(load, c) for load in ("idle", "busy", "held8") for c in (1, 2, 4)])
        for r in rows:
            self.assertGreaterEqual(r["contexts"], r["creators"])  # each creator made one at least
            self.assertLessEqual(r["ok"], r["contexts"])
            self.assertAlmostEqual(r["per_s"], r["contexts"] / r["seconds"], delta=0.01 * r["per_s"])
            self.assertLessEqual(r["create_mean_s"], r["process_mean_s"] + 1e-9)
            self.assertEqual(r["load_n"], {"idle": 0, "busy": 1, "held8": 8}[r["load"]])
            self.assertLessEqual(r["load_ok"], r["load_n"])
        self.assertEqual(len(p.stdout.strip().splitlines()), 5 + 9)  # a line per row, as it goes


if __name__ == "__main__":
    unittest.main()
