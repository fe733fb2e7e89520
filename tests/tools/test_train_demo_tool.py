"""tests/tools/test_train_demo_tool.py — tools/train_demo.py on a store it builds: the numbers issue
21's demo reports (success after each stage, GRPO's first steps against its last, the time split)
and each task's own first-against-last, which a step's mean hides when steps draw different
tasks."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "train_demo.py")


def store(path):
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE train_runs(id INTEGER PRIMARY KEY, stage TEXT, engine TEXT, model TEXT,
                                status TEXT, config TEXT);
        CREATE TABLE train_events(id INTEGER PRIMARY KEY, run_id INTEGER, event TEXT, stage TEXT,
                                  round INTEGER, step INTEGER, data TEXT, t TEXT);
        CREATE TABLE scores(id INTEGER PRIMARY KEY, task_id TEXT, reward REAL, verdict TEXT,
                            meta TEXT, completion TEXT, result TEXT, created_at TEXT);""")
    con.execute("INSERT INTO train_runs VALUES (1, 'all', 'trl', NULL, 'done', '{}')")

    clock = [0]

    def now():  # the store's ISO times, one second apart in insertion order
        clock[0] += 1
        return f"2026-12-07T10:{clock[0] // 60:02d}:{clock[0] % 60:02d}.000Z"

    def ev(event, stage, rnd, step, **data):
        con.execute("INSERT INTO train_events(run_id, event, stage, round, step, data, t) "
                    "VALUES (1, ?, ?, ?, ?, ?, ?)", (event, stage, rnd, step, json.dumps(data), now()))

    def score(task, reward, verdict, completion="", speedup=None, **meta):
        con.execute("INSERT INTO scores(task_id, reward, verdict, meta, completion, result, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (task, reward, verdict, json.dumps(dict(run=1, stage="grpo", **meta)), completion,
                     json.dumps({"verdict": verdict, "speedup": speedup}), now()))
    ev("eval", "sft", 0, 0, n_samples=4, success_rate=0.5, speedup_mean=1.0)
    ev("start", "grpo", None, None)
    # an attempt at round 0 cut after its first step by a call's limit: resumed, the round runs
    # again, and only that last attempt counts (its rollouts a pass of A that must not count)
    score("A", 1.0, "pass", round=0, step=1)
    ev("step", "grpo", 0, 1, reward_mean=9.0, speedup_mean=9.0, success_rate=1.0, t_generate=50.0,
       t_reward=0.0, t_update=0.0, t_step=50.0)
    ev("start", "grpo", None, None)
    ev("eval", "grpo", None, None, probe=True, n_samples=8, success_rate=0.25, reward_mean=-1.0,
       speedup_mean=0.9)
    ev("eval", "grpo", 0, None, probe=True, n_samples=8, success_rate=0.5, reward_mean=-0.5, speedup_mean=1.0)
    ev("eval", "grpo", 1, None, probe=True, n_samples=8, success_rate=0.75, reward_mean=0.25,
       speedup_mean=1.1)
    # six GRPO steps over two rounds; k = 6 // 3 = 2 steps a side
    plan = {(0, 1): [("A", -2.0, "compile_error"), ("B", 1.0, "pass")],
            (0, 2): [("A", 0.0, "pass"), ("B", 1.0, "pass")],
            (0, 3): [("A", 0.5, "pass")],
            (1, 1): [("B", 1.5, "pass")],
            (1, 2): [("C", -2.0, "no_code"), ("A", 1.0, "pass")],
            (1, 3): [("A", 1.0, "pass"), ("C", None, "infra_error")]}
    for (rnd, step), rows in plan.items():
        rewards = [r for _, r, _ in rows if r is not None]
        ev("step", "grpo", rnd, step, reward_mean=sum(rewards) / len(rewards), speedup_mean=1.0,
           success_rate=0.5, t_generate=3.0, t_reward=0.5, t_update=0.5, t_step=4.0,
           gpu_busy=0.5 if step == 1 else (0.8 if step == 2 else None))
        for task, reward, verdict in rows:
            score(task, reward, verdict, round=rnd, step=step)
    # the probes' samples (round -1: before round 0), paired by (task, index): A's first sample
    # turns from failing to passing, its second and B's stay, B's second turns the other way;
    # C's first is the same reply both times, with no reward (an infrastructure error). A
    # failure's speedup (B1's last, 0.3) is no pass's and is left out of B's mean
    for rnd, verdicts, rewards, speedups in (
            (-1, ["compile_error", "pass", "pass", "pass", "no_code"], [-2.0, 0.2, 1.0, 0.8, None],
             [None, 1.0, 0.5, 0.7, None]),
            (1, ["pass", "pass", "pass", "compile_error", "no_code"], [0.5, 0.2, 1.5, -2.0, None],
             [1.2, 1.0, 2.0, 0.3, None])):
        for (task, idx), v, r, sp in zip([("A", 0), ("A", 1), ("B", 0), ("B", 1), ("C", 0)], verdicts,
                                         rewards, speedups):
            score(task, r, v, completion=f"{task}{idx}" if task == "C" else f"{task}{idx}r{rnd}",
                  speedup=sp, kind="probe", round=rnd, index=idx)
    con.commit()
    con.close()


class TrainDemoTool(unittest.TestCase):
    def test_numbers_and_each_tasks_first_against_last(self):
        with tempfile.TemporaryDirectory() as d:
            db, out = os.path.join(d, "demo.db"), os.path.join(d, "out.json")
            store(db)
            res = subprocess.run([sys.executable, TOOL, db, out], capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(out) as f:
                doc = json.load(f)
        g = doc["grpo"]
        self.assertEqual(g["steps"], 6)
        self.assertEqual((g["first_steps"]["n"], g["last_steps"]["n"]), (2, 2))
        self.assertAlmostEqual(g["first_steps"]["reward_mean"], (-0.5 + 0.5) / 2)
        self.assertAlmostEqual(g["reward_share_of_step"], 0.125)
        self.assertAlmostEqual(g["gpu_busy_mean"], 0.65)  # steps without a figure left out
        self.assertEqual(doc["success_after"][0]["success_rate"], 0.5)
        self.assertEqual(len(doc["success_after"]), 1)  # the probes are GRPO's, apart
        pr = doc["grpo_probe"]
        self.assertEqual([e["round"] for e in pr["evals"]], [None, 0, 1])
        self.assertEqual((pr["first"]["success_rate"], pr["last"]["success_rate"]), (0.25, 0.75))
        self.assertEqual((pr["first"]["reward_mean"], pr["last"]["reward_mean"]), (-1.0, 0.25))
        self.assertIn("GRPO probe 0.25 -> 0.75 passing", res.stdout)
        self.assertEqual(g["rerun_rounds"], [0])
        self.assertEqual(len([e for e in doc["step_records"] if e["stage"] == "grpo"]), 6)
        p = pr["paired"]
        self.assertEqual((p["first_round"], p["last_round"], p["pairs"]), (-1, 1, 5))
        self.assertEqual((p["fail_to_pass"], p["pass_to_fail"], p["same_reply"]), (1, 1, 1))
        self.assertEqual(p["sign_test_p"], 1.0)
        # paired on speedup, a failure 0 (not on the reward, whose running yardstick moves):
        # A0 0 -> 1.2, A1 1.0 -> 1.0, B0 0.5 -> 2.0, B1 0.7 -> 0 (a failure's 0.3 is no pass's),
        # C0 0 -> 0
        self.assertEqual((p["speedup_up"], p["speedup_down"]), (2, 1))
        self.assertAlmostEqual(p["speedup_change_mean"], (1.2 + 0.0 + 1.5 - 0.7 + 0.0) / 5)
        self.assertEqual(p["speedup_sign_test_p"], 1.0)
        self.assertNotIn("reward_up", p)
        self.assertIn("speedup (a failure 0) up in 2, down in 1", res.stdout)
        self.assertEqual(p["by_task"]["B"], {"n": 2, "passed_first": 2, "passed_last": 1,
                                             "speedup_mean_first": 0.6, "speedup_mean_last": 2.0})
        self.assertAlmostEqual(p["by_task"]["A"]["speedup_mean_last"], 1.1)
        self.assertIsNone(p["by_task"]["C"]["speedup_mean_first"])  # no pass, no speedup
        self.assertIn("1 failing -> passing, 1 passing -> failing", res.stdout)
        by = doc["grpo_by_task"]
        self.assertEqual(by["A"]["first"], {"n": 2, "passed": 1, "reward_mean": -1.0, "success_rate": 0.5})
        self.assertEqual(by["A"]["last"], {"n": 2, "passed": 2, "reward_mean": 1.0, "success_rate": 1.0})
        self.assertEqual(set(by["B"]), {"first"})          # B was drawn only early
        self.assertEqual(by["C"]["last"]["n"], 2)           # the infra error counts as a rollout,
        self.assertEqual(by["C"]["last"]["reward_mean"], -2.0)  # not as a reward

    def test_the_sign_test_is_the_exact_binomial_tail(self):
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from train_demo import sign_test
        self.assertEqual(sign_test(0, 0), 1.0)
        self.assertAlmostEqual(sign_test(9, 2), 2 * (1 + 11 + 55) / 2 ** 11)  # 0.0654
        self.assertAlmostEqual(sign_test(0, 5), 2 / 32)
        self.assertEqual(sign_test(3, 3), 1.0)

    def test_a_strong_results_p_is_not_rounded_to_zero(self):
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from train_demo import p_value, sign_test
        p = p_value(sign_test(36, 2))  # the H100 demo's speedup pairs
        self.assertGreater(p, 0)
        self.assertAlmostEqual(p, 2 * (1 + 38 + 703) / 2 ** 38, delta=1e-11)

    def test_a_store_without_a_run_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "empty.db")
            sqlite3.connect(db).executescript(
                "CREATE TABLE train_runs(id INTEGER PRIMARY KEY, stage TEXT, engine TEXT, "
                "model TEXT, status TEXT, config TEXT);")
            res = subprocess.run([sys.executable, TOOL, db, os.path.join(d, "o.json")],
                                 capture_output=True, text=True)
            self.assertNotEqual(res.returncode, 0)
            self.assertIn("no training run in the store", res.stderr)


if __name__ == "__main__":
    unittest.main()
