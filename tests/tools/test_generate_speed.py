"""test_generate_speed.py — bench/generate_speed.py on the CPU with the tiny embedded model: every
(batch, cache, call) row, each call forced to its token count (the bench asserts the output's
length), the allocator count left empty off CUDA, and a clear refusal of a cache it does not know.
The figures are the GPU's to give; this checks the bookkeeping, not the speed."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench", "generate_speed.py")
HAVE = all(importlib.util.find_spec(m) for m in ("torch", "transformers", "tokenizers"))


def run(*args):
    return subprocess.run([sys.executable, BENCH, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, HF_HUB_OFFLINE="1"))


@unittest.skipUnless(HAVE, "torch, transformers and tokenizers (scripts/deps --python)")
class GenerateSpeed(unittest.TestCase):
    def test_each_batch_and_cache_is_timed_twice_at_its_token_count(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "g.json")
            p = run("--embedded", "tiny", "--device", "cpu", "--batches", "2,3", "--prompt-len", "24",
                    "--new-tokens", "5", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(out) as f:
                doc = json.load(f)
        rows = doc["rows"]
        self.assertEqual([(r["batch"], r["cache"], r["call"]) for r in rows],
                         [(b, c, k) for b in (2, 3) for c in ("dynamic", "static") for k in (1, 2)])
        for r in rows:
            self.assertGreater(r["s"], 0)
            # s is rounded to 1 ms: 0.5 ms / 5 tokens
            self.assertAlmostEqual(r["ms_per_token_step"], 1e3 * r["s"] / 5, delta=0.11)
            self.assertIsNone(r["device_allocations"])  # the CPU has no caching allocator
        self.assertEqual((doc["device"], doc["new_tokens"], doc["gpu"]), ("cpu", 5, None))

    def test_an_unknown_cache_is_refused_by_name(self):
        p = run("--embedded", "tiny", "--device", "cpu", "--caches", "dynamic,quantized")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--caches takes dynamic,static", p.stderr)


if __name__ == "__main__":
    unittest.main()
