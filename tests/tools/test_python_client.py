"""test_python_client.py — the cudal1 Python package (python/cudal1) against a stand-in service
(http.server in a thread, answering as `cudal1 serve` does): retries a trainer can afford, the
token, stable item ids, and what the TRL and verl adapters return when the service answers, when
it reports an infrastructure error and when it is down."""
import asyncio
import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudal1  # noqa: E402
import cudal1.trl  # noqa: E402
import cudal1.verl  # noqa: E402


class Stand(BaseHTTPRequestHandler):
    """Scores "pass" for completions holding "fast", "incorrect" otherwise, infra_error for task
    "broken"; fails the first `fail_first` requests with 503; records what it was sent."""
    fail_first = 0
    seen = []

    def log_message(self, *a):
        pass

    def _send(self, code, obj, headers=None):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._send(200, {"ok": True})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        req = json.loads(self.rfile.read(n))
        Stand.seen.append({"auth": self.headers.get("Authorization"), "body": req})
        if Stand.fail_first > 0:
            Stand.fail_first -= 1
            return self._send(503, {"error": "queue full"}, {"Retry-After": "0"})
        if self.path != "/v1/score":
            return self._send(404, {"error": "no such endpoint"})
        if not isinstance(req.get("items"), list):
            return self._send(400, {"error": "items: missing"})
        out = []
        for it in req["items"]:
            if it["task"] == "broken":
                out.append({"id": it["id"], "status": "infra_error", "verdict": "infra_error",
                            "reward": None, "score01": None, "speedup": None})
                continue
            ok = "fast" in it.get("completion", it.get("code", ""))
            out.append({"id": it["id"], "status": "ok", "verdict": "pass" if ok else "incorrect",
                        "reward": 1.25 if ok else -2.0, "score01": 0.9 if ok else 0.0,
                        "speedup": 2.0 if ok else None, "cached": False})
        self._send(200, {"results": out})


class Service(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = ThreadingHTTPServer(("127.0.0.1", 0), Stand)
        cls.url = f"http://127.0.0.1:{cls.srv.server_address[1]}"
        threading.Thread(target=cls.srv.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.shutdown()
        cls.srv.server_close()

    def setUp(self):
        Stand.fail_first = 0
        Stand.seen = []

    def client(self, **kw):
        return cudal1.Client(self.url, backoff=0.01, **kw)


class ClientBehaviour(Service):
    def test_results_come_back_in_item_order(self):
        r = self.client().score([{"task": "t", "completion": "fast"}, {"task": "t", "code": "slow"}])
        self.assertEqual([x["verdict"] for x in r], ["pass", "incorrect"])

    def test_the_same_sample_keeps_its_id_across_calls(self):
        c = self.client()
        c.score([{"task": "t", "completion": "fast"}])
        c.score([{"task": "t", "completion": "fast"}])
        ids = [s["body"]["items"][0]["id"] for s in Stand.seen]
        self.assertEqual(ids[0], ids[1])
        self.assertNotEqual(ids[0], cudal1.item_id("t", "other"))
        # the format is part of a sample: the C ABI's ids stay as they were
        self.assertEqual(ids[0], cudal1.item_id("t", "fast", "cabi"))
        self.assertNotEqual(ids[0], cudal1.item_id("t", "fast", "kernelbench"))
        c.score([{"task": "t", "completion": "fast", "format": "kernelbench"}])
        sent = Stand.seen[-1]["body"]["items"][0]
        self.assertEqual(sent["format"], "kernelbench")
        self.assertEqual(sent["id"], cudal1.item_id("t", "fast", "kernelbench"))

    def test_a_busy_service_is_retried_with_the_same_ids(self):
        Stand.fail_first = 2
        r = self.client(retries=3).score([{"task": "t", "completion": "fast"}])
        self.assertEqual(r[0]["verdict"], "pass")
        self.assertEqual(len(Stand.seen), 3)
        self.assertEqual(len({s["body"]["items"][0]["id"] for s in Stand.seen}), 1)

    def test_retries_run_out_with_the_service_message(self):
        Stand.fail_first = 10
        with self.assertRaises(cudal1.ServiceError) as e:
            self.client(retries=1).score([{"task": "t", "completion": "x"}])
        self.assertEqual(e.exception.status, 503)
        self.assertIn("queue full", str(e.exception))

    def test_a_bad_request_is_not_retried(self):
        with self.assertRaises(cudal1.ServiceError) as e:
            self.client(retries=3)._request("POST", "/v1/score", {"nope": 1})
        self.assertEqual(e.exception.status, 400)
        self.assertIn("items: missing", str(e.exception))
        self.assertEqual(len(Stand.seen), 1)

    def test_the_token_goes_in_the_authorization_header(self):
        self.client(token="s3cret").score([{"task": "t", "completion": "x"}])
        self.assertEqual(Stand.seen[0]["auth"], "Bearer s3cret")

    def test_an_unreachable_service_raises_after_its_retries(self):
        c = cudal1.Client("http://127.0.0.1:9", retries=1, backoff=0.01, timeout=2)
        with self.assertRaises(cudal1.ServiceError) as e:
            c.score([{"task": "t", "completion": "x"}])
        self.assertEqual(e.exception.status, 0)


class TrlAdapter(Service):
    def run_reward(self, f, **kw):
        return asyncio.run(f(**kw))

    def test_rewards_per_completion_and_none_for_infra(self):
        f = cudal1.trl.make_reward(self.url, retries=0)
        r = self.run_reward(f, prompts=["p"] * 3, completions=["fast", "slow", "fast"],
                            task=["t", "t", "broken"])
        self.assertEqual(r, [1.25, -2.0, None])

    def test_the_prompt_id_column_goes_into_each_items_meta(self):
        f = cudal1.trl.make_reward(self.url, retries=0)
        self.run_reward(f, prompts=["p"] * 2, completions=["fast", "slow"], task=["t", "t"],
                        prompt_id=["a1", "b2"])
        metas = [it.get("meta") for it in Stand.seen[0]["body"]["items"]]
        self.assertEqual([m["prompt_id"] for m in metas], ["a1", "b2"])

    def test_conversational_completions_use_the_assistant_reply(self):
        f = cudal1.trl.make_reward(self.url, field="score01", retries=0)
        conv = [[{"role": "assistant", "content": "fast kernel"}]]
        self.assertEqual(self.run_reward(f, prompts=["p"], completions=conv, task=["t"]), [0.9])

    def test_a_down_service_gives_no_signal_not_a_penalty(self):
        f = cudal1.trl.make_reward("http://127.0.0.1:9", retries=0, timeout=2)
        self.assertEqual(self.run_reward(f, prompts=["p"], completions=["fast"], task=["t"]), [None])

    def test_logs_go_through_the_hooks_trl_passes(self):
        extra, metric = {}, {}
        f = cudal1.trl.make_reward(self.url, retries=0)
        self.run_reward(f, prompts=["p"] * 2, completions=["fast", "slow"], task=["t", "t"],
                        log_extra=lambda k, v: extra.__setitem__(k, v),
                        log_metric=lambda k, v: metric.__setitem__(k, v))
        self.assertEqual(extra["cudal1_verdict"], ["pass", "incorrect"])
        self.assertEqual(metric["cudal1/pass_rate"], 0.5)

    def test_without_a_task_column_it_says_so(self):
        f = cudal1.trl.make_reward(self.url)
        with self.assertRaises(ValueError):
            self.run_reward(f, prompts=["p"], completions=["fast"])

    def test_an_unknown_field_is_refused(self):
        with self.assertRaises(ValueError):
            cudal1.trl.make_reward(self.url, field="speed")


class VerlAdapter(Service):
    KEYS = {"score", "pass", "speedup", "infra", "cached"}

    def setUp(self):
        super().setUp()
        os.environ["CUDAL1_SERVE_URL"] = self.url
        cudal1.verl._client = None

    def tearDown(self):
        os.environ.pop("CUDAL1_SERVE_URL", None)
        cudal1.verl._client = None

    def test_scores_with_the_same_keys_every_time(self):
        a = cudal1.verl.compute_score("cudal1", "fast", "t", {"step": 3})
        b = cudal1.verl.compute_score("cudal1", "slow", "t", None)
        c = cudal1.verl.compute_score("cudal1", "fast", "broken", None)
        for r in (a, b, c):
            self.assertEqual(set(r), self.KEYS)
            self.assertTrue(all(isinstance(v, float) for v in r.values()))
        self.assertEqual((a["score"], a["pass"], a["speedup"]), (1.25, 1.0, 2.0))
        self.assertEqual((b["score"], b["pass"]), (-2.0, 0.0))
        self.assertEqual((c["infra"], c["score"]), (1.0, 0.0))

    def test_never_raises_when_the_service_is_down(self):
        os.environ["CUDAL1_SERVE_URL"] = "http://127.0.0.1:9"
        os.environ["CUDAL1_INFRA_SCORE"] = "-0.5"
        cudal1.verl._client = None
        try:
            cudal1.verl._get_client().retries = 0
            r = cudal1.verl.compute_score("cudal1", "fast", "t", None)
        finally:
            os.environ.pop("CUDAL1_INFRA_SCORE")
        self.assertEqual(set(r), self.KEYS)
        self.assertEqual((r["score"], r["infra"]), (-0.5, 1.0))


if __name__ == "__main__":
    unittest.main()


class ParquetExport(unittest.TestCase):
    def test_rows_without_verl_keys_are_refused_by_name(self):
        import tempfile
        import cudal1.parquet
        d = tempfile.mkdtemp()
        src = os.path.join(d, "rl.jsonl")
        with open(src, "w") as f:
            f.write(json.dumps({"prompt": [{"role": "user", "content": "x"}]}) + "\n")
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            with self.assertRaises(SystemExit) as e:  # without pyarrow: said, not a traceback
                cudal1.parquet.jsonl_to_parquet(src, os.path.join(d, "rl.parquet"))
            self.assertIn("pyarrow", str(e.exception))
            return
        with self.assertRaises(SystemExit) as e:
            cudal1.parquet.jsonl_to_parquet(src, os.path.join(d, "rl.parquet"))
        self.assertIn("missing 'data_source'", str(e.exception))
