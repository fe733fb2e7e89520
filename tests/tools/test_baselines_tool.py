"""test_baselines_tool.py — tools/baselines.py's bookkeeping and tools/baseline_table.py on
fixtures (CPU, no torch): which (task, mode) cells a resumed run still owes, how a new row's cells
merge over an old one, which saved copy a run resumes from, and the table's per-level counts of
measured, failed and not yet measured tasks."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import baselines as bl  # noqa: E402

OK = {"status": "ok", "median_ms": 2.0, "ref_ms": 1.0, "ci_rel": 0.01}


class Bookkeeping(unittest.TestCase):
    def test_missing_owes_absent_and_dead_cells_only(self):
        rows = {"level1/1_A": {"task": "level1/1_A", "modes": {
            "eager": OK, "graph": {"status": "task_failed: worker died (exit 1)"},
            "ref-graph": {"status": "incorrect: output 0: 3 of 9 elements out of tolerance"}}}}
        need = bl.missing(rows, ["level1/1_A", "level1/2_B"], ["eager", "compile", "graph", "ref-graph"])
        # a wrong output is a result; a cell whose worker died is tried again
        self.assertEqual(need["level1/1_A"], ["compile", "graph"])
        self.assertEqual(need["level1/2_B"], ["eager", "compile", "graph", "ref-graph"])
        self.assertEqual(bl.missing(rows, ["level1/1_A"], ["eager", "ref-graph"]), {})

    def test_merge_keeps_old_cells_and_takes_new_ones(self):
        old = {"task": "level1/1_A", "ref_ms": None, "wall_s": 1.5,
               "modes": {"graph": {"status": "task_failed: x"}, "ref-graph": OK}}
        new = {"task": "level1/1_A", "wall_s": 2.0,
               "modes": {"graph": dict(OK, median_ms=3.0), "eager": dict(OK, ref_ms=0.9)}}
        m = bl.merge(old, new)
        self.assertEqual(list(m["modes"]), ["eager", "graph", "ref-graph"])  # the tool's mode order
        self.assertEqual(m["modes"]["graph"]["median_ms"], 3.0)
        self.assertEqual(m["modes"]["ref-graph"], OK)
        self.assertEqual(m["ref_ms"], 0.9)  # the row's reference time is the one beside eager
        self.assertAlmostEqual(m["wall_s"], 3.5)
        self.assertIsNone(bl.merge(None, {"task": "t", "modes": {"graph": OK}})["ref_ms"])

    def test_resume_picks_the_copy_with_most_cells(self):
        d = tempfile.mkdtemp()
        a, b, bad = (os.path.join(d, n) for n in ("a.json", "b.json", "bad.json"))
        json.dump({"results": [{"task": "t", "modes": {"eager": OK}}]}, open(a, "w"))
        json.dump({"results": [{"task": "t", "modes": {"eager": OK, "graph": OK}}]}, open(b, "w"))
        open(bad, "w").write("{not json")
        self.assertEqual(bl.pick_resume([a, b, bad]), b)
        self.assertEqual(bl.pick_resume([bad, a]), a)
        self.assertEqual(bl.pick_resume([a, a]), a)
        self.assertIsNone(bl.pick_resume([bad, os.path.join(d, "absent.json")]))

    def test_precompile_skips_what_inductor_already_holds(self):
        need = {"level1/1_A": ["eager", "compile"], "level3/2_B": ["compile", "reduce-overhead"],
                "level2/3_C": ["graph"], "level1/4_D": ["reduce-overhead"]}
        self.assertEqual(bl.precompile_todo(need, set()), ["level3/2_B", "level1/1_A", "level1/4_D"])
        done = {("level3/2_B", "compile"), ("level1/1_A", "compile"), ("level1/4_D", "compile")}
        # 2_B still owes reduce-overhead; 4_D's listed compile is not the mode it owes
        self.assertEqual(bl.precompile_todo(need, done), ["level3/2_B", "level1/4_D"])
        path = os.path.join(tempfile.mkdtemp(), "list.txt")
        self.assertEqual(bl.read_precompiled(path), set())  # absent: a fresh machine's empty cache
        open(path, "w").write("level1/1_A compile\nlevel3/2_B reduce-overhead\ntorn-line\n")
        self.assertEqual(bl.read_precompiled(path), {("level1/1_A", "compile"), ("level3/2_B", "reduce-overhead")})

    def test_the_precompiled_list_lives_in_inductors_cache(self):
        d = tempfile.mkdtemp()
        old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        try:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(d, "ind")
            args = type("A", (), {"shapes": "large", "seed": 1})()
            self.assertEqual(bl.precompiled_path(args), os.path.join(d, "ind", "cudal1-precompiled-large-seed1.txt"))
            self.assertTrue(os.path.isdir(os.path.join(d, "ind")))
        finally:
            if old is None:
                os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
            else:
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = old

    def test_a_run_that_measured_nothing_is_not_listed(self):
        a, empty = {"commit": "a", "cells": 12}, {"commit": "b", "cells": 0}
        self.assertEqual(bl.shown_runs([a, empty]), [a])
        self.assertEqual(bl.shown_runs([a, empty, dict(empty, cells=2)]), [a, dict(empty, cells=2)])
        self.assertEqual(bl.shown_runs([empty]), [empty])  # the file still names who made it


class Table(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.suite = os.path.join(self.dir, "suite")
        for t in ("level1/1_A", "level1/2_B", "level1/3_C", "level2/1_D"):
            os.makedirs(os.path.join(self.suite, t))
            open(os.path.join(self.suite, t, "task.json"), "w").write("{}")
        self.doc = os.path.join(self.dir, "baselines-small.json")
        runs = [{"commit": "aaaaaaa1", "date": "D1", "modes": ["eager"], "cells": 3},
                {"commit": "bbbbbbb2", "date": "D2", "modes": ["graph"], "cells": 1},
                {"commit": "bbbbbbb2", "date": "D3", "modes": ["graph"], "cells": 1},
                {"commit": "ccccccc3", "date": "D4", "modes": ["graph"], "cells": 0}]
        json.dump({"tool": "tools/baselines.py", "shapes": "small", "modes": ["eager", "graph"], "runs": runs,
                   "results": [
            {"task": "level1/1_A", "modes": {"eager": dict(OK, median_ms=2.0), "graph": dict(OK, median_ms=0.5)}},
            {"task": "level1/2_B", "modes": {"eager": dict(OK, median_ms=4.0),
                                             "graph": {"status": "capture_failed: RuntimeError: x"}}}]},
                  open(self.doc, "w"))

    def run_tool(self, *args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "baseline_table.py"),
                               "--suite", self.suite, *args], capture_output=True, text=True)

    def row(self, text, level, mode):
        for line in text.splitlines():
            cols = [c.strip() for c in line.strip("|").split("|")]
            if cols[:3] == ["small", level, mode]:
                return cols
        self.fail(f"no row for {level} {mode} in:\n{text}")

    def test_counts_and_ratios_per_level(self):
        p = self.run_tool(self.doc)
        self.assertEqual(p.returncode, 0, p.stderr)
        eager = self.row(p.stdout, "level1", "eager")
        self.assertEqual(eager[3:6], ["2", "0", "1"])  # measured, failed, not yet (3_C)
        self.assertEqual(eager[6], "3.00")  # median of 2.0 and 4.0 over ref 1.0
        self.assertEqual(eager[-1], "100%")
        graph = self.row(p.stdout, "level1", "graph")
        self.assertEqual(graph[3:6], ["1", "1", "1"])
        self.assertEqual(graph[6], "0.50")
        self.assertEqual(self.row(p.stdout, "level2", "eager")[3:6], ["0", "0", "1"])
        self.assertIn("2_B (capture_failed)", p.stdout)

    def test_header_says_which_commit_measured_which_modes(self):
        p = self.run_tool(self.doc)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("eager at aaaaaaa (D1); graph at bbbbbbb (D2 to D3, 2 runs)", p.stdout)
        self.assertNotIn("ccccccc", p.stdout)  # its run measured nothing

    def test_rejects_a_file_that_is_not_a_baselines_file(self):
        bad = os.path.join(self.dir, "x.json")
        json.dump({"results": []}, open(bad, "w"))
        p = self.run_tool(bad)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("x.json", p.stderr)
        self.assertIn("not a tools/baselines.py file", p.stderr)


if __name__ == "__main__":
    unittest.main()
