"""test_serve_live.py — the cudal1 Python package against the real service: `cudal1 serve
--device host --shapes test` started from the build, scored through cudal1.Client, the TRL reward
function and verl's compute_score (CPU; the candidates are the host legit and hack files)."""
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudal1  # noqa: E402
import cudal1.trl  # noqa: E402
import cudal1.verl  # noqa: E402

BUILD = os.environ.get("CL1_BUILD", "build")
BIN = os.path.join(ROOT, BUILD, "cudal1") if not os.path.isabs(BUILD) else os.path.join(BUILD, "cudal1")
RELU = open(os.path.join(ROOT, "tests/legit/host/19_ReLU.c")).read()
WRONG = open(os.path.join(ROOT, "tests/hacks/host/wrong_values.c")).read()
TASK = "level1/19_ReLU"


def reply(code):
    return "Here is a faster kernel.\n```c\n" + code + "\n```\n"


class LiveService(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cl1serve")
        cls.token = "t0ken-for-tests"
        cls.proc = subprocess.Popen(
            [BIN, "serve", "--device", "host", "--shapes", "test", "--port", "0", "--token", cls.token,
             "--db", os.path.join(cls.dir, "serve.db"), "--min-trials", "5", "--max-trials", "5",
             "--time-budget", "0.1"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = cls.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not m:
            cls.proc.kill()
            raise RuntimeError(f"cudal1 serve announced no port: {line!r}")
        cls.url = f"http://127.0.0.1:{m.group(1)}"

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        try:
            cls.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            cls.proc.kill()

    def test_client_scores_a_pass_and_a_failure_and_caches_the_retry(self):
        c = cudal1.Client(self.url, token=self.token, retries=1)
        r = c.score([{"task": TASK, "completion": reply(RELU)}, {"task": TASK, "code": WRONG}])
        self.assertEqual([x["status"] for x in r], ["ok", "ok"])
        self.assertEqual(r[0]["verdict"], "pass")
        self.assertNotEqual(r[1]["verdict"], "pass")
        self.assertGreater(r[0]["score01"], r[1]["score01"])
        again = c.score([{"task": TASK, "completion": reply(RELU)}])
        self.assertTrue(again[0]["cached"])
        self.assertEqual(again[0]["verdict"], "pass")

    def test_a_job_is_submitted_and_polled_to_the_same_answers(self):
        c = cudal1.Client(self.url, token=self.token, retries=1)
        code = RELU + "\n/* job */\n"
        r = c.score_job([{"task": TASK, "code": code}, {"task": TASK, "code": WRONG}], poll_s=0.05,
                        wait_s=120)
        self.assertEqual([x["verdict"] for x in r][0], "pass")
        self.assertNotEqual(r[1]["verdict"], "pass")
        again = c.score([{"task": TASK, "code": code}])
        self.assertTrue(again[0]["cached"])
        self.assertEqual(again[0]["speedup"], r[0]["speedup"])
        with self.assertRaises(cudal1.ServiceError) as e:
            c.job("f" * 32)
        self.assertEqual(e.exception.status, 404)

    def test_a_wrong_token_is_a_service_error_not_a_retry_loop(self):
        c = cudal1.Client(self.url, token="wrong", retries=3, backoff=0.01)
        with self.assertRaises(cudal1.ServiceError) as e:
            c.score([{"task": TASK, "code": RELU}])
        self.assertEqual(e.exception.status, 401)

    def test_trl_reward_ranks_the_correct_kernel_above_the_wrong_one(self):
        f = cudal1.trl.make_reward(self.url, token=self.token, field="score01")
        r = asyncio.run(f(prompts=["p", "p", "p"], task=[TASK] * 3,
                          completions=[reply(RELU), reply(WRONG), "no code in this reply"]))
        self.assertEqual(len(r), 3)
        self.assertTrue(all(isinstance(x, float) for x in r))
        self.assertGreaterEqual(r[0], 0.5)
        self.assertEqual(r[1], 0.0)
        self.assertEqual(r[2], 0.0)

    def test_verl_compute_score_against_the_service(self):
        old = {k: os.environ.get(k) for k in ("CUDAL1_SERVE_URL", "CUDAL1_SERVE_TOKEN")}
        os.environ["CUDAL1_SERVE_URL"], os.environ["CUDAL1_SERVE_TOKEN"] = self.url, self.token
        cudal1.verl._client = None
        try:
            good = cudal1.verl.compute_score("cudal1", reply(RELU), TASK, {"step": 1})
            bad = cudal1.verl.compute_score("cudal1", reply(WRONG), TASK, {"step": 1})
        finally:
            for k, v in old.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
            cudal1.verl._client = None
        self.assertEqual(set(good), set(bad))
        self.assertEqual((good["pass"], good["infra"]), (1.0, 0.0))
        self.assertEqual((bad["pass"], bad["infra"]), (0.0, 0.0))
        self.assertGreater(good["score"], bad["score"])


if __name__ == "__main__":
    unittest.main()
