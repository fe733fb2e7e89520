"""test_cuda_l1_audit.py — bench/cuda_l1_audit.py on the host backend over a small CUDA-L1-shaped
file: rows without code skipped, each row's ModelNew judged against its own problem through a
real `cudal1 serve`, the summary's counts and statistics, a resumed run that evaluates nothing
again, --redo evaluating the rows of the named verdicts again, and the README table."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("CL1_BUILD", "build")
PROBLEM = open(os.path.join(ROOT, "tests/python/problems/1_Linear_ReLU.py")).read()
GOOD = open(os.path.join(ROOT, "tests/python/common/linear_ok.py")).read()
BROKEN = "import torch.nn as nn\nimport cudal1_no_such_package\nclass ModelNew(nn.Module):\n    pass\n"
# CUDA-L1's commonest fault: an extension that cannot compile, the error swallowed, PyTorch run
NO_EXT = GOOD.replace("import torch.nn as nn\n", """import torch.nn as nn
from torch.utils.cpp_extension import load_inline
try:
    _ext = load_inline(name="audit_no_ext", cpp_sources="int f() { return undeclared_name; }",
                       functions=["f"], verbose=False)
except Exception:
    _ext = None
""")


class AuditTest(unittest.TestCase):
    def test_audit_on_the_host(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "rows.jsonl")
            rows = [{"level_id": 1, "task_id": 1, "ref_code": PROBLEM, "custom_code": GOOD,
                     "score_default": 3.0},
                    {"level_id": 1, "task_id": 2, "ref_code": PROBLEM, "custom_code": "None",
                     "score_default": None},
                    {"level_id": 1, "task_id": 3, "ref_code": PROBLEM, "custom_code": BROKEN,
                     "score_default": 5.0},
                    {"level_id": 1, "task_id": 4, "ref_code": PROBLEM, "custom_code": NO_EXT,
                     "score_default": 2.0}]
            with open(f, "w") as fh:
                fh.write("".join(json.dumps(r) + "\n" for r in rows))
            work, out = os.path.join(d, "work"), os.path.join(d, "audit.json")
            cmd = [sys.executable, os.path.join(ROOT, "bench/cuda_l1_audit.py"), BUILD, "--file", f,
                   "--work", work, "--device", "host", "--jobs", "2", "--out", out]
            # the tasks alone first (a build machine's part): folders, no service, no result
            p = subprocess.run(cmd + ["--import-only"], cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            self.assertIn("3 of 3 problems imported", p.stdout)
            self.assertEqual(sorted(os.listdir(os.path.join(work, "tasks"))),
                             ["L1_T1", "L1_T3", "L1_T4"])
            self.assertFalse(os.path.exists(os.path.join(work, "audit.db")))
            self.assertFalse(os.path.exists(out))
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            doc = json.load(open(out))
            self.assertEqual(doc["rows_with_code"], 3)
            self.assertEqual(doc["evaluated"], 3)
            self.assertEqual(doc["verdicts"], {"pass": 2, "compile_error": 1})
            # the extension that never built: a pass, flagged, its compiler error recorded
            self.assertEqual(doc["custom_kernel_in_source"], 1)
            self.assertEqual(doc["custom_kernel_ran"], 0)
            self.assertEqual(doc["custom_kernel_not_built"], 1)
            no_ext = [r for r in doc["rows"] if r["id"] == "L1_T4"][0]
            self.assertEqual(no_ext["verdict"], "pass")
            self.assertIn("extension_not_built", no_ext["flags"])
            self.assertIn("undeclared_name", no_ext["extension_error"])
            self.assertIn("so its fallback ran", no_ext["feedback"])
            self.assertIn("a load_inline that got no extension: 1", p.stdout)
            self.assertEqual(doc["claimed_score_default"]["mean"], 3.3333)
            passed = [r for r in doc["rows"] if r["id"] == "L1_T1"][0]
            self.assertEqual(passed["verdict"], "pass")
            self.assertGreater(passed["speedup"], 0)
            # failures count as 1.0 in one statistic and are left out of the other
            self.assertEqual(doc["verified_failures_as_1"]["n"], 3)
            self.assertEqual(doc["verified_passes_only"]["n"], 2)
            self.assertAlmostEqual(doc["verified_passes_only"]["mean"],
                                   round((passed["speedup"] + no_ext["speedup"]) / 2, 4), places=3)
            self.assertIn("claimed (score_default) | 3 | 3.3333", p.stdout)
            # every row, claimed against verified (docs/cuda-l1-audit.md)
            t = subprocess.run([sys.executable, os.path.join(ROOT, "bench/cuda_l1_audit.py"),
                                "--table", out, "--per-task"], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(t.returncode, 0, t.stderr)
            rows_md = [ln for ln in t.stdout.splitlines() if ln.startswith("| level")]
            self.assertEqual([ln.split(" | ")[0] for ln in rows_md],
                             ["| level1/1", "| level1/3", "| level1/4"])
            self.assertIn(f"| 3.000 | {passed['speedup']:.3f} | pass |", rows_md[0])
            self.assertIn("| 5.000 | - | compile_error |", rows_md[1])
            self.assertIn("| extension_not_built | yes |", rows_md[2])
            # resumed: nothing evaluated again
            n_lines = len(open(os.path.join(work, "results.jsonl")).readlines())
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            self.assertEqual(len(open(os.path.join(work, "results.jsonl")).readlines()), n_lines)
            self.assertEqual(json.load(open(out))["verdicts"], {"pass": 2, "compile_error": 1})
            # a fresh work folder seeded with those rows (another machine, the committed file):
            # nothing evaluated, the same summary
            seed, work2 = os.path.join(work, "results.jsonl"), os.path.join(d, "work2")
            cmd2 = [c if c != work else work2 for c in cmd] + ["--seed", seed]
            p = subprocess.run(cmd2, cwd=ROOT, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            self.assertFalse(os.path.exists(os.path.join(work2, "audit.db")), "a service was started")
            again = json.load(open(out))
            self.assertEqual(again["verdicts"], {"pass": 2, "compile_error": 1})
            self.assertEqual(again["verified_passes_only"], doc["verified_passes_only"])
            # after an evaluator fix: the rows of the named verdicts evaluated again, no other
            res2 = os.path.join(work2, "results.jsonl")
            n2 = len(open(res2).readlines())
            p = subprocess.run(cmd2 + ["--redo", "compile_error,crash"], cwd=ROOT,
                               capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            self.assertIn("1 rows judged compile_error, crash before are evaluated again", p.stderr)
            with open(res2) as fh:
                lines = [json.loads(x) for x in fh]
            self.assertEqual(len(lines), n2 + 1)
            self.assertEqual(lines[-1]["id"], "L1_T3")
            # a Python import error's feedback ends with its cause, not the traceback's head
            self.assertIn("No module named 'cudal1_no_such_package'", lines[-1]["feedback"])
            self.assertEqual(json.load(open(out))["verdicts"], {"pass": 2, "compile_error": 1})
            # "custom": the rows whose source holds a custom kernel, whatever their verdict
            p = subprocess.run(cmd2 + ["--redo", "custom"], cwd=ROOT, capture_output=True,
                               text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(res2) as fh:
                lines = [json.loads(x) for x in fh]
            self.assertEqual([x["id"] for x in lines[n2 + 1:]], ["L1_T4"])

    def test_tolerance_and_mode_given_to_the_import(self):
        # CUDA-L1 was evaluated at KernelBench's 1e-2 of its time: an audit at that tolerance
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "rows.jsonl")
            with open(f, "w") as fh:
                fh.write(json.dumps({"level_id": 1, "task_id": 1, "ref_code": PROBLEM,
                                     "custom_code": GOOD, "score_default": 3.0}) + "\n")
            work = os.path.join(d, "work")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench/cuda_l1_audit.py"), BUILD,
                                "--file", f, "--work", work, "--device", "host", "--import-only",
                                "--atol", "1e-2", "--rtol", "0.01", "--mode", "eval"],
                               cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(os.path.join(work, "tasks", "L1_T1", "task.json")) as fh:
                task = json.load(fh)
            self.assertEqual(task["tolerance"], {"atol": 0.01, "rtol": 0.01})
            # and in eval mode (inference), where KernelBench's harness trains
            self.assertFalse(task["python"]["train_mode"])

    def test_a_limit_spent_before_any_row_says_why_and_fails(self):
        # An H100 call spent its whole limit importing 210 problems, audited nothing and
        # exited 0 with an empty table: now it names the import and fails.
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "rows.jsonl")
            with open(f, "w") as fh:
                fh.write(json.dumps({"level_id": 1, "task_id": 1, "ref_code": PROBLEM,
                                     "custom_code": GOOD, "score_default": 3.0}) + "\n")
            work, out = os.path.join(d, "work"), os.path.join(d, "audit.json")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench/cuda_l1_audit.py"), BUILD,
                                "--file", f, "--work", work, "--device", "host", "--jobs", "1",
                                "--out", out, "--time-limit", "0.001"],
                               cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 1, p.stdout[-2000:] + p.stderr[-2000:])
            self.assertIn("no row audited: preparing the problems took", p.stderr)
            self.assertIn("--import-only", p.stderr)
            self.assertEqual(json.load(open(out))["evaluated"], 0)
            self.assertFalse(os.path.exists(os.path.join(work, "results.jsonl")) and
                             open(os.path.join(work, "results.jsonl")).read().strip())


if __name__ == "__main__":
    unittest.main()


class BuildsTest(unittest.TestCase):
    """bench/cuda_l1_builds.py: each row that calls load_inline through the confined build step
    on the build machine: a compiler error kept (the module swallowed it), a build made only on
    the first forward for CUDA inputs not reached here, a module that does not import."""

    def test_outcomes(self):
        lazy = ("import torch\nfrom torch.utils.cpp_extension import load_inline\n"
                "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
                "        if x.is_cuda:\n            load_inline(name='l', cpp_sources='')\n"
                "        return x\n")
        broken = "import torch\n" + NO_EXT.split("import torch\n", 1)[1]
        rows = [{"level_id": 1, "task_id": 1, "ref_code": PROBLEM, "custom_code": broken},
                {"level_id": 1, "task_id": 2, "ref_code": PROBLEM, "custom_code": lazy},
                {"level_id": 1, "task_id": 3, "ref_code": PROBLEM,
                 "custom_code": "load_inline(\n  def broken syntax"},
                {"level_id": 1, "task_id": 4, "ref_code": PROBLEM, "custom_code": GOOD}]
        with tempfile.TemporaryDirectory() as d:
            f, out = os.path.join(d, "rows.jsonl"), os.path.join(d, "builds.json")
            with open(f, "w") as fh:
                fh.write("".join(json.dumps(r) + "\n" for r in rows))
            cmd = [sys.executable, os.path.join(ROOT, "bench/cuda_l1_builds.py"), BUILD,
                   "--file", f, "--out", out]
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(out) as fh:
                doc = json.load(fh)
            self.assertEqual(doc["rows_with_load_inline"], 3)  # the row without one is left out
            got = {x["id"]: x for x in doc["rows"]}
            self.assertEqual(got["L1_T1"]["outcome"], "failed")
            self.assertIn("undeclared_name", got["L1_T1"]["detail"])
            self.assertEqual(got["L1_T2"]["outcome"], "not_reached")
            self.assertEqual(got["L1_T3"]["outcome"], "import_failed")
            self.assertEqual(doc["outcomes"], {"failed": 1, "not_reached": 1, "import_failed": 1})
            # resumed: nothing built again; the Markdown names every row
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
            self.assertNotIn("cuda_l1_builds: L1_", p.stderr)
            t = subprocess.run(cmd[:2] + ["--table", out], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
            self.assertIn("3 of the 3 rows that call `load_inline`", t.stdout)
            self.assertIn("| L1_T1 | failed | ", t.stdout)
