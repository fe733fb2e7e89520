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
                            meta TEXT);""")
    con.execute("INSERT INTO train_runs VALUES (1, 'all', 'trl', NULL, 'done', '{}')")

    def ev(event, stage, rnd, step, **data):
        con.execute("INSERT INTO train_events(run_id, event, stage, round, step, data, t) "
                    "VALUES (1, ?, ?, ?, ?, ?, '')", (event, stage, rnd, step, json.dumps(data)))
    ev("eval", "sft", 0, 0, n_samples=4, success_rate=0.5, speedup_mean=1.0)
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
            con.execute("INSERT INTO scores(task_id, reward, verdict, meta) VALUES (?, ?, ?, ?)",
                        (task, reward, verdict,
                         json.dumps({"run": 1, "stage": "grpo", "round": rnd, "step": step})))
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
        by = doc["grpo_by_task"]
        self.assertEqual(by["A"]["first"], {"n": 2, "passed": 1, "reward_mean": -1.0, "success_rate": 0.5})
        self.assertEqual(by["A"]["last"], {"n": 2, "passed": 2, "reward_mean": 1.0, "success_rate": 1.0})
        self.assertEqual(set(by["B"]), {"first"})          # B was drawn only early
        self.assertEqual(by["C"]["last"]["n"], 2)           # the infra error counts as a rollout,
        self.assertEqual(by["C"]["last"]["reward_mean"], -2.0)  # not as a reward

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
