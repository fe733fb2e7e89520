"""test_tools.py — the Python result tools on fixtures (CPU, no torch): tools/fidelity_summary.py
summarises a suite_gpu document per shape set and level, merges a re-measured subset over it
(per shape set, the merge recorded), takes kernel-time ratios from a profile run, and rejects a
file that is not a suite document with one message and a non-zero exit."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "fidelity_summary.py")


def row(task, small, large):
    return {"task": task, "small": {"pass": True, "ratio": small, "ref_ms": small, "eager_ms": 1.0, "trials": 30},
            "large": {"pass": True, "ratio": large, "ref_ms": large, "eager_ms": 1.0, "trials": 30}}


class FidelitySummary(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.suite = os.path.join(self.dir, "suite.json")
        json.dump({"commit": "aaa", "results": [row("level1/1_A", 1.0, 1.0), row("level1/2_B", 2.0, 0.4),
                                                 row("level2/1_C", 0.5, 1.2)]}, open(self.suite, "w"))

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)

    def test_summary(self):
        out = os.path.join(self.dir, "fid.json")
        p = self.run_tool(self.suite, "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.load(open(out))["summary"]
        self.assertEqual(s["small"]["median"], 1.0)
        self.assertEqual(s["small"]["above_1.5"], [["level1/2_B", 2.0]])
        self.assertEqual(s["large"]["below_0.5"], [["level1/2_B", 0.4]])
        self.assertEqual(s["small"]["median_level1"], 1.5)
        self.assertAlmostEqual(s["large"]["share_in_0.9_1.1"], 1 / 3)
        self.assertIn("| small | 1.00 |", p.stdout)

    def test_merge_replaces_rows(self):
        new = os.path.join(self.dir, "new.json")
        json.dump({"commit": "bbb", "results": [row("level1/2_B", 1.1, 1.0)]}, open(new, "w"))
        merged, out = os.path.join(self.dir, "merged.json"), os.path.join(self.dir, "fid.json")
        p = self.run_tool(self.suite, "--merge", new, "--out-suite", merged, "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = json.load(open(merged))
        self.assertEqual([r["task"] for r in m["results"]], ["level1/1_A", "level1/2_B", "level2/1_C"])
        self.assertEqual(m["results"][1]["small"]["ratio"], 1.1)
        self.assertEqual(m["remeasured"][0]["commit"], "bbb")
        self.assertEqual(json.load(open(out))["summary"]["small"]["above_1.5"], [])

    def test_kernel_times(self):
        prof = os.path.join(self.dir, "prof.json")
        json.dump({"commit": "ccc", "results": [
            {"task": "level1/1_A", "small": {"pass": True, "kernel_ratio": 1.0}},
            {"task": "level1/2_B", "small": {"pass": True, "kernel_ratio": 1.6}},
            {"task": "level9/9_Z", "small": {"pass": True, "kernel_ratio": 9.0}}]}, open(prof, "w"))
        new = os.path.join(self.dir, "new.json")  # merged after: its row brings its own ratio
        newrow = row("level1/2_B", 1.1, 1.0)
        newrow["small"]["kernel_ratio"] = 1.05
        json.dump({"commit": "bbb", "results": [newrow]}, open(new, "w"))
        out = os.path.join(self.dir, "fid.json")
        p = self.run_tool(self.suite, "--kernel-times", prof, "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        f = json.load(open(out))
        s = f["summary"]["small"]
        self.assertEqual(s["kernel_ratio_tasks"], 2)  # the unknown task is not added
        self.assertAlmostEqual(s["kernel_ratio_median"], 1.3)
        self.assertEqual(s["kernel_ratio_above_1.5"], [["level1/2_B", 1.6]])
        self.assertEqual(f["kernel_times"][0]["rows"], 2)
        self.assertNotIn("kernel_ratio_tasks", f["summary"]["large"])
        self.assertIn("| 1.30 (2 tasks), 1 |", p.stdout)
        p = self.run_tool(self.suite, "--kernel-times", prof, "--merge", new, "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.load(open(out))["summary"]["small"]["kernel_ratio_above_1.5"], [])

    def test_merge_keeps_what_the_newer_run_lacks(self):
        new = os.path.join(self.dir, "new.json")  # a timing-only re-run: no test shapes, no check
        json.dump({"commit": "ddd", "results": [{"task": "level1/2_B", "small": {"ratio": 0.9, "ref_ms": 0.9}}]},
                  open(new, "w"))
        old = json.load(open(self.suite))
        old["results"][1]["test"] = {"pass": True}
        json.dump(old, open(self.suite, "w"))
        merged = os.path.join(self.dir, "merged.json")
        p = self.run_tool(self.suite, "--merge", new, "--out-suite", merged)
        self.assertEqual(p.returncode, 0, p.stderr)
        b = json.load(open(merged))["results"][1]
        self.assertEqual(b["test"], {"pass": True})
        self.assertEqual(b["small"]["ratio"], 0.9)
        self.assertEqual(b["small"]["eager_ms"], 1.0)  # the older field the newer entry lacks
        self.assertTrue(b["small"]["pass"])
        self.assertEqual(b["large"]["ratio"], 0.4)

    def test_bad_input(self):
        bad = os.path.join(self.dir, "bad.json")
        open(bad, "w").write("{not json")
        p = self.run_tool(bad)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("bad.json", p.stderr)
        self.assertIn("not a suite_gpu document", p.stderr)


if __name__ == "__main__":
    unittest.main()
