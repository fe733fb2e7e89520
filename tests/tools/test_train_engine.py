"""test_train_engine.py — the training engine (python/cudal1/train, what `cudal1 train` runs)
against a real `cudal1 serve --device host --shapes test`, with the embedded tiny model on the CPU:
all three stages and a resume as `python3 -m cudal1.train` processes, a self-supervised round and
a GRPO round with scripted samples (so a correct one is certain) in this process, each failure
a user will hit with its exit status and message, the embedded model's determinism, and the verl
engine's files with its reward module called as verl calls it."""
import contextlib
import importlib.util
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import types
import unittest

def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYDIR = os.path.join(ROOT, "python")
sys.path.insert(0, PYDIR)
BUILD = os.environ.get("CL1_BUILD", "build")
BIN = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD), "cudal1")
TOKEN = "train-t0ken"
TASKS = ["level1/19_ReLU", "level1/23_Softmax"]
LEGIT = {t: read(os.path.join(ROOT, "tests/legit/host", t.split("/")[1] + ".c")) for t in TASKS}
RUN_ID = 41


def have(*mods):
    return all(importlib.util.find_spec(m) is not None for m in mods)


HAVE_TRL = have("trl", "transformers", "torch", "peft", "datasets", "tokenizers", "accelerate", "pyarrow")
NO_TRL = "trl/transformers/torch are not installed (pip install -e python[train])"
HAVE_VERL_DEPS = have("transformers", "tokenizers", "torch", "pyarrow")


def reply(code):
    """An assistant reply as `cudal1 dataset sft` writes one."""
    return "## Code Implementation\n\n```c\n" + code.rstrip("\n") + "\n```\n"


def start_service(db):
    proc = subprocess.Popen(
        [BIN, "serve", "--device", "host", "--shapes", "test", "--port", "0", "--token", TOKEN, "--db", db,
         "--min-trials", "5", "--max-trials", "5", "--time-budget", "0.1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
    if not m:
        proc.kill()
        raise RuntimeError("cudal1 serve announced no port")
    return proc, f"http://127.0.0.1:{m.group(1)}"


def stop_service(proc):
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stdout.close()


def setUpModule():
    global TMP, SERVICE, URL
    TMP = tempfile.mkdtemp(prefix="cl1train")
    if HAVE_VERL_DEPS:  # no progress bars from the models this process loads
        from cudal1.train.events import quiet_progress
        quiet_progress()
    SERVICE, URL = start_service(os.path.join(TMP, "db"))
    import cudal1
    c = cudal1.Client(URL, TOKEN, retries=1)
    with open(os.path.join(TMP, "sft.jsonl"), "w") as f:  # what `cudal1 dataset sft` writes
        for t in TASKS:
            p = c.prompts([t], 1, 0)[0]
            f.write(json.dumps({"messages": p["messages"] + [{"role": "assistant", "content": reply(LEGIT[t])}],
                                "task": t, "speedup": 1.0}) + "\n")


def tearDownModule():
    stop_service(SERVICE)
    shutil.rmtree(TMP, ignore_errors=True)


def config(out, **kw):
    cfg = {"version": 1, "run_id": RUN_ID, "stage": "all", "engine": "trl", "model": None, "out": out,
           "repo": ROOT, "tasks": TASKS, "sft_data": os.path.join(TMP, "sft.jsonl"), "device": "cpu",
           "seed": 0, "lora": False, "static_cache": False, "lr": 5e-4, "selfsup_lr": 5e-4, "rl_lr": 5e-4, "temperature": 1.0, "rl_temperature": 1.0, "rl_batch_size": 1, "sft_epochs": 1, "sft_max_steps": 3, "selfsup_rounds": 1,
           "samples_per_task": 2, "grpo_rounds": 1, "grpo_steps_per_round": 2, "num_generations": 2,
           "exemplars": 2, "max_prompt_len": 256, "max_completion_len": 24, "batch_size": 1, "gen_batch": 0, "sft_exemplars": 0,
           "vllm_server": None, "resume": False, "embedded": "tiny", "grpo_probe": 0, "grpo_iterations": 1,
           "mask_truncated": False}
    cfg.update(kw)
    return cfg


def engine_env(url=None, extra_path=None, extra=None):
    env = dict(os.environ, CUDAL1_SERVE_URL=url or URL, CUDAL1_SERVE_TOKEN=TOKEN, OMP_NUM_THREADS="1",
               HF_HUB_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1", TRANSFORMERS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false", **(extra or {}))
    env["PYTHONPATH"] = os.pathsep.join([p for p in (extra_path, PYDIR, os.environ.get("PYTHONPATH")) if p])
    return env


def write_config(cfg):
    os.makedirs(cfg["out"], exist_ok=True)
    path = os.path.join(cfg["out"], "train-config.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def events_of(stdout):
    return [json.loads(line[len("CL1TRAIN "):]) for line in stdout.splitlines() if line.startswith("CL1TRAIN ")]


def run_engine(cfg, url=None, extra_path=None, argv=None, extra_env=None):
    """(exit status, events, stderr) of `python3 -m cudal1.train --config` on cfg."""
    path = write_config(cfg)
    cmd = argv or [sys.executable, "-m", "cudal1.train", "--config", path]
    p = subprocess.run(cmd, env=engine_env(url, extra_path, extra_env), capture_output=True, text=True,
                       timeout=300)
    return p.returncode, events_of(p.stdout), p.stderr


def of(events, kind, stage=None, rnd=None):
    return [e for e in events if e["event"] == kind and (stage is None or e.get("stage") == stage)
            and (rnd is None or e.get("round") == rnd)]


def store_rows(db, run):
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT meta, reward, status FROM scores WHERE meta IS NOT NULL").fetchall()
    out = []
    for meta, reward, status in rows:
        m = json.loads(meta)
        if m.get("run") == run:
            out.append((m, reward, status))
    return out


@unittest.skipUnless(HAVE_TRL, NO_TRL)
class Pipeline(unittest.TestCase):
    """Stages 1-3 in one process, then a resume asking for a second GRPO round; a GRPO probe of
    one sample per task before round 0 and after each round."""

    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(TMP, "run")
        cls.rc1, cls.ev1, cls.err1 = run_engine(config(cls.out, grpo_probe=1))
        cls.state1 = json.loads(read(os.path.join(cls.out, "state.json")))
        cls.rc2, cls.ev2, cls.err2 = run_engine(config(cls.out, grpo_rounds=2, resume=True, grpo_probe=1))

    def test_every_stage_runs_and_its_events_carry_the_numbers(self):
        self.assertEqual(self.rc1, 0, self.err1[-3000:])
        self.assertEqual([e["stage"] for e in of(self.ev1, "start")], ["sft", "selfsup", "grpo"])
        self.assertEqual([e["stage"] for e in of(self.ev1, "done")], ["sft", "selfsup", "grpo"])
        sft = of(self.ev1, "step", "sft")
        self.assertEqual([e["step"] for e in sft], [1, 2, 3])
        for e in sft:
            self.assertGreater(e["loss"], 0)
            self.assertGreater(e["tokens"], 0)
            self.assertGreater(e["t_step"], 0)
        for stage in ("sft", "selfsup"):  # stage 1 vs stage 2: k samples per task, scored
            (ev,) = of(self.ev1, "eval", stage, 0)
            self.assertEqual(ev["n_samples"], len(TASKS) * 2)
            self.assertTrue(0.0 <= ev["success_rate"] <= 1.0)
            self.assertIsInstance(ev["reward_mean"], float)
        (rnd,) = of(self.ev1, "round", "selfsup", 0)
        self.assertEqual(rnd["n_samples"], len(TASKS) * 2)
        if rnd["n_correct"] == 0:
            self.assertIn("no correct samples", rnd["note"])
        grpo = of(self.ev1, "step", "grpo", 0)
        self.assertEqual([e["step"] for e in grpo], [1, 2])
        for e in grpo:
            for k in ("reward_mean", "reward_std", "success_rate", "tokens", "t_generate", "t_reward",
                      "t_update", "t_step"):
                self.assertIn(k, e)
            self.assertEqual(e["n_samples"], 2)  # batch_size 1 prompt x num_generations 2
            self.assertGreater(e["t_generate"], 0)
            self.assertGreater(e["t_reward"], 0)
            self.assertGreaterEqual(e["t_update"], 0)
            self.assertLessEqual(e["t_generate"] + e["t_reward"], e["t_step"] + 1e-3)
            self.assertNotIn("gpu_busy", e)  # on the CPU: no figure (left out), never a guess
        (gr,) = of(self.ev1, "round", "grpo", 0)
        self.assertEqual(gr["n_samples"], 4)
        probes = of(self.ev1, "eval", "grpo")
        self.assertEqual([e.get("round") for e in probes], [None, 0])  # before round 0, after it
        self.assertTrue(all(e["probe"] and e["n_samples"] == len(TASKS) for e in probes))

    def test_the_store_holds_every_rollout_with_its_reward_and_the_run(self):
        rows = [r for r in store_rows(os.path.join(TMP, "db"), RUN_ID) if r[0].get("kind") != "probe"]
        by = {}
        for m, reward, status in rows:
            self.assertEqual(status, "ok")
            self.assertIsNotNone(reward)
            self.assertIn("prompt_id", m)
            self.assertIn("step", m)
            by[(m["stage"], m["round"])] = by.get((m["stage"], m["round"]), 0) + 1
        ev = self.ev1 + self.ev2
        want = {("sft", 0): of(ev, "eval", "sft", 0)[0]["n_samples"],
                ("selfsup", 0): of(ev, "eval", "selfsup", 0)[0]["n_samples"],  # round 0 reused sft's eval
                ("grpo", 0): 4, ("grpo", 1): 4}
        self.assertEqual(by, want)
        steps = sorted(m["step"] for m, _, _ in rows if m["stage"] == "grpo" and m["round"] == 0)
        self.assertEqual(steps, [1, 1, 2, 2])
        # the probes, apart: one sample per task before round 0 and after rounds 0 and 1
        probes = [m for m, _, _ in store_rows(os.path.join(TMP, "db"), RUN_ID) if m.get("kind") == "probe"]
        self.assertEqual(sorted(m["round"] for m in probes), [-1] * len(TASKS) + [0] * len(TASKS) + [1] * len(TASKS))

    def test_checkpoints_load_as_models(self):
        from transformers import AutoModelForCausalLM, AutoTokenizer
        for e in of(self.ev1, "checkpoint"):
            self.assertTrue(os.path.isfile(os.path.join(e["path"], "model.safetensors")), e)
        path = of(self.ev1, "checkpoint", "grpo", 0)[0]["path"]
        model = AutoModelForCausalLM.from_pretrained(path)
        tok = AutoTokenizer.from_pretrained(path)
        self.assertEqual(model.config.vocab_size, len(tok))
        self.assertTrue(tok.chat_template)
        self.assertEqual(self.state1["checkpoint"], path)
        self.assertEqual(self.state1["done"], ["sft", "selfsup", "grpo"])

    def test_resume_continues_after_the_last_round_without_redoing_one(self):
        self.assertEqual(self.rc2, 0, self.err2[-3000:])
        self.assertEqual([e["stage"] for e in of(self.ev2, "start")], ["grpo"])
        self.assertEqual(of(self.ev2, "start")[0]["first_round"], 1)
        self.assertEqual({e["round"] for e in of(self.ev2, "step")}, {1})
        self.assertEqual([(e["stage"], e.get("round"), e.get("probe")) for e in of(self.ev2, "eval")],
                         [("grpo", 1, True)])  # round 1's probe; no stage-1 or 2 eval again
        st = json.loads(read(os.path.join(self.out, "state.json")))
        self.assertEqual((st["stage"], st["round"]), ("grpo", 1))
        self.assertEqual(st["rounds"], {"sft": 0, "selfsup": 0, "grpo": 1})
        self.assertIn("resuming after grpo round 0", self.err2)


class Failures(unittest.TestCase):
    """What a user will hit: each one event, one message, the contract's exit status."""

    def test_a_grpo_probe_with_verl_is_exit_2_naming_it(self):
        self.expect(run_engine(config(os.path.join(TMP, "verl-probe"), engine="verl", stage="grpo",
                                      grpo_probe=4)), 2, "grpo_probe", "--engine trl")

    def test_mask_truncated_with_verl_is_exit_2_naming_it(self):
        self.expect(run_engine(config(os.path.join(TMP, "verl-mask"), engine="verl", stage="grpo",
                                      mask_truncated=True)), 2, "mask_truncated", "--engine trl")

    def test_a_bad_stack_sampling_interval_is_exit_2_naming_the_variable(self):
        self.expect(run_engine(config(os.path.join(TMP, "stacks-bad"), engine="verl"),
                               extra_env={"CUDAL1_TRAIN_STACKS": "often"}), 2, "CUDAL1_TRAIN_STACKS")

    def test_stack_sampling_writes_every_threads_stack(self):
        import time
        from cudal1.train.__main__ import stack_sampler
        out = os.path.join(TMP, "stacks")
        self.assertIsNone(stack_sampler(out, {}))
        stop = stack_sampler(out, {"CUDAL1_TRAIN_STACKS": "0.05"})
        path = os.path.join(out, "stacks.log")
        try:
            deadline = time.monotonic() + 30  # the sampler's thread gets its turn on a loaded machine too
            while time.monotonic() < deadline and not (
                    os.path.exists(path) and "test_stack_sampling" in open(path).read()):
                time.sleep(0.1)
        finally:
            stop.set()
        self.assertIn("test_stack_sampling_writes_every_threads_stack", open(path).read())  # this frame

    def expect(self, rc_events_err, code, *words):
        rc, events, err = rc_events_err
        self.assertEqual(rc, code, err[-3000:])
        (e,) = of(events, "error")
        text = e["message"] + " " + e.get("hint", "")
        for w in words:
            self.assertIn(w, text)
        return e

    def test_a_missing_dependency_is_exit_5_with_the_pip_line(self):
        fake = os.path.join(TMP, "fake-deps")
        os.makedirs(os.path.join(fake, "trl"), exist_ok=True)
        with open(os.path.join(fake, "trl", "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named trl')\n")
        self.expect(run_engine(config(os.path.join(TMP, "nodeps")), extra_path=fake), 5, "'trl'",
                    "pip install -e python[train]", "trl==1.16.0")

    def test_a_missing_model_path_is_exit_2_naming_it(self):
        missing = os.path.join(TMP, "no-such-model")
        self.expect(run_engine(config(os.path.join(TMP, "nomodel"), model=missing)), 2, missing, "no such directory")

    def test_a_model_without_a_tokenizer_is_exit_2_naming_it(self):
        d = os.path.join(TMP, "notok")
        os.makedirs(d, exist_ok=True)
        for name in ("config.json", "model.safetensors"):
            with open(os.path.join(d, name), "w") as f:
                f.write("{}")
        self.expect(run_engine(config(os.path.join(TMP, "notok-out"), model=d)), 2, d, "no tokenizer")

    @unittest.skipUnless(HAVE_TRL, NO_TRL)
    def test_a_prompt_and_reply_past_the_models_positions_is_exit_2_naming_both_knobs(self):
        # the tiny embedded model has 8192 positions
        self.expect(run_engine(config(os.path.join(TMP, "toolong"), max_prompt_len=8000, max_completion_len=200)),
                    2, "8200 tokens", "8192 positions", "--max-prompt-len", "--max-completion-len")

    def test_a_bad_config_is_exit_2_naming_the_key(self):
        self.expect(run_engine(config(os.path.join(TMP, "bad1"), num_generations=1)), 2, '"num_generations"', ">= 2")
        cfg = config(os.path.join(TMP, "bad2"))
        del cfg["tasks"]
        self.expect(run_engine(cfg), 2, '"tasks": missing')

    @unittest.skipUnless(HAVE_TRL and not have("vllm"), "needs TRL and no vLLM")
    def test_a_vllm_server_without_vllm_is_exit_5_naming_it(self):
        self.expect(run_engine(config(os.path.join(TMP, "novllm"), vllm_server="http://127.0.0.1:9")), 5,
                    "'vllm'", "pip install vllm")

    @unittest.skipUnless(HAVE_TRL, NO_TRL)
    def test_device_cuda_without_a_gpu_is_exit_2(self):
        import torch
        if torch.cuda.is_available():
            self.skipTest("this machine has a GPU")
        self.expect(run_engine(config(os.path.join(TMP, "nogpu"), device="cuda")), 2, "torch sees no GPU",
                    "--train-device cpu")

    @unittest.skipUnless(HAVE_TRL, NO_TRL)
    def test_resume_with_nothing_to_resume_is_exit_2(self):
        self.expect(run_engine(config(os.path.join(TMP, "fresh"), resume=True)), 2, "state.json not found")

    @unittest.skipUnless(HAVE_TRL, NO_TRL)
    def test_out_of_memory_is_exit_4_naming_the_knobs(self):
        out = os.path.join(TMP, "oom")
        path = write_config(config(out, stage="sft"))
        boom = ("import sys, torch, transformers\n"
                "def boom(*a, **k): raise torch.OutOfMemoryError('CUDA out of memory. Tried to allocate 2.00 GiB')\n"
                "transformers.LlamaForCausalLM.forward = boom\n"
                "from cudal1.train.__main__ import main\n"
                f"sys.exit(main(['--config', {path!r}]))\n")
        self.expect(run_engine(config(out, stage="sft"), argv=[sys.executable, "-c", boom]), 4,
                    "out of memory", "batch_size", "max_completion_len", "num_generations")

    @unittest.skipUnless(HAVE_TRL, NO_TRL)
    def test_the_service_dying_mid_training_stops_cleanly_with_exit_3(self):
        db = os.path.join(TMP, "dying.db")
        proc, url = start_service(db)
        cfg = config(os.path.join(TMP, "dying"))
        path, errpath = write_config(cfg), os.path.join(TMP, "dying.err")
        lines = []
        try:
            with open(errpath, "w") as ef:
                p = subprocess.Popen([sys.executable, "-m", "cudal1.train", "--config", path],
                                     env=engine_env(url), stdout=subprocess.PIPE, stderr=ef, text=True)
                for line in p.stdout:  # the service dies once stage 1's checkpoint is written
                    lines.append(line)
                    if line.startswith("CL1TRAIN ") and '"event":"checkpoint"' in line and proc.poll() is None:
                        proc.send_signal(signal.SIGKILL)
                        proc.wait()
                p.wait(timeout=120)
                p.stdout.close()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        self.expect((p.returncode, events_of("".join(lines)), read(errpath)), 3,
                    "the reward service failed", "--resume")
        st = json.loads(read(os.path.join(cfg["out"], "state.json")))
        self.assertIn("sft", st["done"])
        self.assertTrue(os.path.isdir(st["checkpoint"]))
        with sqlite3.connect(db) as c:
            self.assertEqual(c.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        # back with a service: the resume does the eval the death cut off, then what is left
        proc, url = start_service(db)
        try:
            rc, events, err = run_engine(dict(cfg, stage="sft", resume=True), url=url)
        finally:
            stop_service(proc)
        self.assertEqual(rc, 0, err[-3000:])
        cut = st["stage"] in ("sft", "selfsup") and st["evals"].get(st["stage"], -1) < st["round"]
        # (almost always stage 1's eval; the death may land later on a slow machine)
        self.assertEqual([(e["event"], e["stage"], e["round"]) for e in events],
                         [("eval", st["stage"], st["round"])] if cut else [])


@unittest.skipUnless(HAVE_TRL, NO_TRL)
class ScriptedRounds(unittest.TestCase):
    """A selfsup round and a GRPO round in this process, their samples scripted (one correct,
    one not) so the update is certain: the model's weights move, the events count the pass."""

    @classmethod
    def setUpClass(cls):
        os.environ.update(CUDAL1_SERVE_URL=URL, CUDAL1_SERVE_TOKEN=TOKEN, HF_HUB_OFFLINE="1",
                          TRL_EXPERIMENTAL_SILENCE="1")
        from cudal1.train import embedded, events, trl_engine
        events.quiet_progress()
        cls.trl_engine = trl_engine
        cls.out = os.path.join(TMP, "scripted")
        path = embedded.build(ROOT, os.path.join(cls.out, "model-init"), "tiny", 0)
        cls.cfg = config(cls.out, run_id=RUN_ID + 1, sft_max_steps=2)
        cls.model, cls.tok = trl_engine.load_model(path, cls.cfg)
        cls.path = path

    def weights(self, model):
        return {k: v.detach().clone() for k, v in model.state_dict().items()}

    def changed(self, before, model):
        import torch
        return [k for k, v in model.state_dict().items() if not torch.equal(before[k], v)]

    def run_quiet(self, fn, *args):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            res = fn(*args)
        return res, events_of(buf.getvalue())

    def test_a_selfsup_round_fine_tunes_on_its_correct_samples(self):
        ctx = self.trl_engine.Ctx(dict(self.cfg, temperature=0.7, gen_batch=5))
        temps, batches = [], []

        def generate(model, tok, prompts, k, max_new, batch, seed, temperature):
            temps.append(temperature)
            batches.append(batch)
            return [[reply(LEGIT[TASKS[0]]), "no code here"][:k] for _ in prompts], 7

        ctx.generate = generate
        before = self.weights(self.model)
        model, events = self.run_quiet(self.trl_engine.selfsup_round, ctx, self.model, self.tok, 0)
        (rnd,) = of(events, "round", "selfsup", 0)
        self.assertEqual(rnd["n_samples"], 4)
        self.assertEqual(rnd["n_correct"], 1)  # the ReLU code passes its own task, not Softmax
        self.assertEqual(rnd["success_rate"], 0.25)
        self.assertGreater(rnd["speedup_mean"], 0)
        # sft_epochs (1) over the one correct reply: sft_max_steps (2) bounds stage 1 only
        self.assertEqual(len(of(events, "step", "selfsup", 0)), 1)
        self.assertEqual(set(temps), {0.7})  # the round's samples and its eval, at the config's
        self.assertEqual(set(batches), {5})  # and in the config's generate() batches
        self.assertEqual(rnd["verdicts"], {"no_code": 2, "pass": 1, "incorrect": 1})
        self.assertTrue(self.changed(before, model))
        self.assertEqual(of(events, "eval", "selfsup", 0)[0]["n_samples"], 4)
        kinds = sorted(m["kind"] for m, _, _ in store_rows(os.path.join(TMP, "db"), RUN_ID + 1)
                       if m["stage"] == "selfsup")
        self.assertEqual(kinds, ["eval"] * 4 + ["sample"] * 4)

    def test_a_selfsup_round_trains_at_selfsup_lr_not_at_the_sft_rate(self):
        # lr 5e-4 moves the tiny model (the test above); a selfsup_lr below fp32's resolution
        # leaves every weight as it was: stage 2 reads its own rate
        ctx = self.trl_engine.Ctx(dict(self.cfg, tasks=TASKS[:1], run_id=RUN_ID + 8, selfsup_lr=1e-30))
        ctx.generate = lambda model, tok, prompts, k, *a: ([[reply(LEGIT[TASKS[0]])] * k for _ in prompts], 1)
        before = self.weights(self.model)
        model, events = self.run_quiet(self.trl_engine.selfsup_round, ctx, self.model, self.tok, 0)
        self.assertEqual(len(of(events, "step", "selfsup", 0)), 1)
        self.assertFalse(self.changed(before, model), "stage 2 moved the weights at selfsup_lr 1e-30")

    def test_with_sft_exemplars_a_round_also_trains_under_the_contrastive_prompt(self):
        ctx = self.trl_engine.Ctx(dict(self.cfg, tasks=TASKS[:1], run_id=RUN_ID + 7, sft_exemplars=1))
        ctx.generate = lambda model, tok, prompts, k, *a: ([[reply(LEGIT[TASKS[0]]), "no code"][:k]
                                                            for _ in prompts], 1)
        seen, real = [], self.trl_engine.sft_dataset

        def capture(tok, triples, max_len):
            seen.extend(triples)
            return real(tok, triples, max_len)

        self.trl_engine.sft_dataset = capture
        try:
            _, events = self.run_quiet(self.trl_engine.selfsup_round, ctx, self.model, self.tok, 0)
        finally:
            self.trl_engine.sft_dataset = real
        self.assertEqual(len(seen), 2)  # the correct reply, then the same under a contrastive prompt
        (plain, r1, t1), (contrastive, r2, t2) = seen
        self.assertEqual((r1, t1), (r2, t2))
        self.assertNotIn("## Earlier solutions", plain[-1]["content"])  # the round-1 prompt, fitted
        self.assertIn("## Earlier solutions", contrastive[-1]["content"])  # the pass just stored
        self.assertEqual(len(of(events, "step", "selfsup", 0)), 2)

    def test_sft_exemplar_rows_put_each_reply_under_distinct_prompts(self):
        # the service's prompts stubbed: what is tested is how replies are spread over them
        asked = []

        def prompts(client, tasks, n, k, seed):
            asked.append((tuple(tasks), n, k))
            pids = {"a": ["p1", "p2", "p1", "p3"], "b": ["q1", "q1", "q1", "q1"]}
            return [{"task": t, "prompt_id": p, "messages": [{"role": "user", "content": f"{t}:{p}"}]}
                    for t in tasks for p in pids[t][:n]]

        good = [("r1", "A1", "a"), ("r1", "A2", "a"), ("r1", "B1", "b")]
        ctx = types.SimpleNamespace(client=None, cfg=dict(self.cfg, sft_exemplars=1, sft_exemplar_rows=2))
        real = self.trl_engine.sampling.fetch_prompts
        self.trl_engine.sampling.fetch_prompts = prompts
        try:
            rows = self.trl_engine.contrastive_copies(ctx, good, 5)
            ctx.cfg["sft_exemplar_rows"] = 1
            one = self.trl_engine.contrastive_copies(ctx, good, 5)
        finally:
            self.trl_engine.sampling.fetch_prompts = real
        self.assertEqual(asked, [(("a", "b"), 4, 1), (("a", "b"), 2, 1)])  # 2 replies of a x 2 rows
        got = [(p[0]["content"], r) for p, r, _ in rows]
        # a's three distinct prompts: A1 under p1 and p2, A2 under p3 and p1; b's one prompt once
        self.assertEqual(got, [("a:p1", "A1"), ("a:p2", "A1"), ("a:p3", "A2"), ("a:p1", "A2"), ("b:q1", "B1")])
        self.assertEqual([(p[0]["content"], r) for p, r, _ in one], [("a:p1", "A1"), ("a:p2", "A2"), ("b:q1", "B1")])

    def test_with_lora_a_round_trains_an_adapter_and_checkpoints_the_merged_model(self):
        from transformers import AutoModelForCausalLM
        ctx = self.trl_engine.Ctx(dict(self.cfg, lora=True, tasks=TASKS[:1], run_id=RUN_ID + 4, lr=1e-2))
        ctx.generate = lambda model, tok, prompts, k, *a: ([[reply(LEGIT[TASKS[0]])] * k for _ in prompts], 1)
        before = self.weights(self.model)
        model, events = self.run_quiet(self.trl_engine.selfsup_round, ctx, self.model, self.tok, 0)
        self.assertEqual(type(model).__name__, "LlamaForCausalLM")  # merged, not a PeftModel
        self.assertTrue(self.changed(before, model))
        path = of(events, "checkpoint", "selfsup", 0)[0]["path"]
        self.assertFalse(os.path.exists(os.path.join(path, "adapter_config.json")))
        saved = AutoModelForCausalLM.from_pretrained(path).state_dict()
        self.assertFalse(self.changed(saved, model))

    def scripted_grpo_ctx(self, **cfg):
        """A GRPO context whose rollouts are scripted: each group of 2 holds the legit solution,
        then a wrong one (the legit solution is ~200 tokens: the completion length lets it
        through whole)."""
        ctx = self.trl_engine.Ctx(dict(self.cfg, **dict(dict(tasks=TASKS[:1], max_completion_len=400), **cfg)))
        tok, limit = self.tok, ctx.cfg["max_completion_len"]

        def rollout(prompts, trainer):  # each group of 2: the legit solution, then a wrong one
            ids = [tok.apply_chat_template(p, add_generation_prompt=True, tokenize=True)["input_ids"]
                   for p in prompts]
            texts = [reply(LEGIT[TASKS[0]]) if i % 2 == 0 else "```c\nint x;\n```" for i in range(len(prompts))]
            comp = [tok(t, add_special_tokens=False)["input_ids"][:limit - 1] + [tok.eos_token_id] for t in texts]
            return {"prompt_ids": ids, "completion_ids": comp, "logprobs": None}

        ctx.rollout = rollout
        return ctx

    def test_a_grpo_round_with_a_pass_and_a_failure_in_a_group_moves_the_weights(self):
        ctx = self.scripted_grpo_ctx(run_id=RUN_ID + 2)
        before = self.weights(self.model)
        model, events = self.run_quiet(self.trl_engine.grpo_round, ctx, self.model, self.tok, 0)
        steps = of(events, "step", "grpo", 0)
        self.assertEqual(len(steps), 2)
        for e in steps:
            self.assertEqual(e["success_rate"], 0.5)
            self.assertGreater(e["speedup_best"], 0)
            self.assertGreater(e["reward_std"], 0)
        self.assertTrue(self.changed(before, model), "GRPO left every weight as it was")
        rows = store_rows(os.path.join(TMP, "db"), RUN_ID + 2)
        self.assertEqual(sorted(m["step"] for m, _, _ in rows), [1, 1, 2, 2])

    def test_with_grpo_iterations_each_step_trains_mu_times_on_one_set_of_rollouts(self):
        ctx = self.scripted_grpo_ctx(run_id=RUN_ID + 12, grpo_iterations=3)
        calls = []
        script = ctx.rollout
        ctx.rollout = lambda prompts, trainer: calls.append(len(prompts)) or script(prompts, trainer)
        updates = []
        real = self.trl_engine.step_callback

        def counting(stage, rnd, extra=None, group=1):
            cb = real(stage, rnd, extra, group)
            on_log = cb.on_log

            def logged(args, state, control, logs=None, **kw):
                if logs and "loss" in logs:
                    updates.append(state.global_step)
                return on_log(args, state, control, logs, **kw)

            cb.on_log = logged
            return cb

        self.trl_engine.step_callback = counting
        try:
            before = self.weights(self.model)
            model, events = self.run_quiet(self.trl_engine.grpo_round, ctx, self.model, self.tok, 0)
        finally:
            self.trl_engine.step_callback = real
        self.assertEqual(updates, [1, 2, 3, 4, 5, 6])  # 2 steps x mu 3 optimizer steps
        self.assertEqual(len(calls), 2)  # rollouts once a step, not once an update
        steps = of(events, "step", "grpo", 0)
        self.assertEqual([e["step"] for e in steps], [1, 2])  # one event a GRPO step
        for e in steps:
            self.assertEqual((e["n_samples"], e["success_rate"]), (2, 0.5))
            self.assertIsNotNone(e["reward_mean"])  # TRL logs it at the step's first update only
            self.assertIsNotNone(e["loss"])
        self.assertTrue(self.changed(before, model), "GRPO left every weight as it was")
        rows = store_rows(os.path.join(TMP, "db"), RUN_ID + 12)
        self.assertEqual(sorted(m["step"] for m, _, _ in rows), [1, 1, 2, 2])

    def test_the_grpo_probe_samples_the_same_prompts_and_seed_before_and_after_a_round(self):
        # --grpo-probe: the steps' own figures move with each step's prompts (35-75% passing on
        # the H100); the probe's only with the model
        out = os.path.join(TMP, "probe")
        os.makedirs(out, exist_ok=True)  # run() makes it before any stage
        ctx = self.scripted_grpo_ctx(run_id=RUN_ID + 10, grpo_probe=2, grpo_rounds=1, out=out,
                                     rl_temperature=0.9)
        calls = []

        def generate(model, tok, prompts, k, max_new, batch, seed, temperature):
            calls.append((prompts, k, seed, temperature))
            return [[reply(LEGIT[TASKS[0]])] * k for _ in prompts], 5

        ctx.generate = generate
        _, events = self.run_quiet(self.trl_engine.stage_grpo, ctx, self.model, self.tok)
        probes = of(events, "eval", "grpo")
        self.assertEqual([e.get("round") for e in probes], [None, 0])  # before round 0, after it
        for e in probes:
            self.assertTrue(e["probe"])
            self.assertEqual(e["n_samples"], 2)
            self.assertEqual(e["success_rate"], 1.0)
        self.assertEqual(len(calls), 2)
        self.assertEqual(calls[0], calls[1])  # the same prompts, k, seed and temperature
        # 2 samples of the one task spread over 2 of its prompts, one sample each
        self.assertEqual(len(calls[0][0]), 2)
        self.assertEqual(calls[0][1:], (1, calls[0][2], 0.9))
        self.assertEqual(len(of(events, "step", "grpo", 0)), 2)
        kinds = [m.get("kind") for m, _, _ in store_rows(os.path.join(TMP, "db"), RUN_ID + 10)]
        self.assertEqual(kinds.count("probe"), 4)
        # a resumed run shows the prompts the state kept, and owes a probe cut off after a round
        again = self.trl_engine.Ctx(dict(ctx.cfg))
        self.assertTrue(again.state.load())
        self.assertEqual(self.trl_engine.probe_rows(again), self.trl_engine.probe_rows(ctx))
        again.state.data.update(stage="grpo", round=0, evals={"grpo": -1})
        self.assertEqual(again.state.eval_missing(True), ("grpo", 0))
        self.assertIsNone(again.state.eval_missing(False))
        again.generate = generate
        _, events = self.run_quiet(self.trl_engine.owed_eval, again, self.model, self.tok,
                                   *again.state.eval_missing(True))
        (owed,) = of(events, "eval", "grpo", 0)
        self.assertTrue(owed["probe"])
        self.assertEqual(calls[-1], calls[0])  # the same prompts and seed as the run's probes
        self.assertIsNone(again.state.eval_missing(True))
        # a state kept before the samples were spread holds one prompt a task: all 2 under it
        again.state.data["grpo_probe_rows"] = again.state.data["grpo_probe_rows"][:1]
        self.run_quiet(self.trl_engine.probe, again, self.model, self.tok, 0)
        self.assertEqual((len(calls[-1][0]), calls[-1][1]), (1, 2))

    def test_replies_that_ran_out_of_tokens_train_no_token_with_mask_truncated(self):
        # a group of two replies cut at the length limit, one whose code passes and one with
        # none: different rewards, but every token masked, so the step moves no weight (without
        # the mask this group was 25-69 % of a step's tokens on the H100)
        model, steps = self.truncated_round(RUN_ID + 11, mask_truncated=True)
        self.assertFalse(self.changed(self.before, model), "truncated replies trained tokens")

    def test_replies_that_ran_out_of_tokens_train_by_default(self):
        # the same group without --mask-truncated: a reply that ran out is a failure like any
        # other, and its tokens are pushed down (masked, run-on grew at 1e-4 on the H100)
        model, steps = self.truncated_round(RUN_ID + 13)
        self.assertTrue(self.changed(self.before, model), "the unmasked group moved no weight")

    def truncated_round(self, run_id, **cfg):
        """A GRPO round whose every rollout ran out of tokens, rewards differing in each group:
        (the model, its step events); self.before holds the weights before it."""
        ctx = self.scripted_grpo_ctx(run_id=run_id, **cfg)
        tok, limit = self.tok, ctx.cfg["max_completion_len"]
        ramble = " and so on" * 400

        def rollout(prompts, trainer):
            ids = [tok.apply_chat_template(p, add_generation_prompt=True, tokenize=True)["input_ids"]
                   for p in prompts]
            texts = [reply(LEGIT[TASKS[0]]) + ramble if i % 2 == 0 else "no code" + ramble
                     for i in range(len(prompts))]
            comp = [tok(t, add_special_tokens=False)["input_ids"][:limit] for t in texts]
            assert all(len(c) == limit and c[-1] != tok.eos_token_id for c in comp)
            return {"prompt_ids": ids, "completion_ids": comp, "logprobs": None}

        ctx.rollout = rollout
        self.before = self.weights(self.model)
        model, events = self.run_quiet(self.trl_engine.grpo_round, ctx, self.model, self.tok, 0)
        steps = of(events, "step", "grpo", 0)
        self.assertEqual(len(steps), 2)
        self.assertTrue(all(e["reward_std"] > 0 for e in steps))  # the rewards did differ
        from cudal1.train import grpo
        self.assertEqual(grpo.config(ctx, 0).mask_truncated_completions, bool(cfg.get("mask_truncated")))
        return model, steps

    def test_grpo_trains_at_rl_lr_not_at_the_sft_rate(self):
        # the same signal as above, at rl_lr 0 with lr 5e-4: stage 3 reads its own rate
        ctx = self.scripted_grpo_ctx(run_id=RUN_ID + 6, rl_lr=0)
        before = self.weights(self.model)
        model, events = self.run_quiet(self.trl_engine.grpo_round, ctx, self.model, self.tok, 0)
        self.assertEqual(len(of(events, "step", "grpo", 0)), 2)
        self.assertGreater(ctx.cfg["lr"], 0)
        self.assertFalse(self.changed(before, model), "GRPO moved the weights at rl_lr 0")

    def test_each_grpo_step_draws_every_task_once_when_the_batch_holds_them(self):
        # by_task_in_turn + shuffle_dataset off: rl_batch_size 2 over 2 tasks, each step's rollouts
        # come from both tasks (a shuffle drew 2 of 5 at random on the H100)
        ctx = self.scripted_grpo_ctx(run_id=RUN_ID + 9, tasks=TASKS, rl_batch_size=2)
        scripted, calls = ctx.rollout, []

        def rollout(prompts, trainer):
            calls.append(sorted({t for p in prompts for t in TASKS
                                 if "`" + t.split("/")[1] in p[-1]["content"] or t in p[-1]["content"]}))
            return scripted(prompts, trainer)

        ctx.rollout = rollout
        _, events = self.run_quiet(self.trl_engine.grpo_round, ctx, self.model, self.tok, 0)
        self.assertEqual(len(of(events, "step", "grpo", 0)), 2)
        self.assertEqual(calls, [sorted(TASKS)] * 2)
        from cudal1.train import grpo
        self.assertFalse(grpo.config(ctx, 0).shuffle_dataset)

    def test_probe_samples_spread_over_up_to_four_prompts_a_task(self):
        f = self.trl_engine.probe_prompts_per_task
        self.assertEqual([f(n) for n in (16, 8, 4, 6, 2, 5, 1)], [4, 4, 4, 2, 2, 1, 1])

    def test_by_task_in_turn_orders_rows_one_task_after_another(self):
        from cudal1.train.grpo import by_task_in_turn
        rows = [{"task": t, "i": i} for i, t in enumerate("aaabbc")] + [{"task": "z", "i": 6}]
        got = [(r["task"], r["i"]) for r in by_task_in_turn(rows, ["c", "b", "a"])]
        self.assertEqual(got, [("c", 5), ("b", 3), ("a", 0), ("z", 6), ("b", 4), ("a", 1), ("a", 2)])

    def test_grpo_samples_at_its_own_temperature_and_batch(self):
        # --rl-temperature and --rl-batch reach TRL's GRPOConfig; the evals keep --temperature
        from cudal1.train import grpo
        ctx = self.trl_engine.Ctx(dict(self.cfg, temperature=0.5, rl_temperature=1.2,
                                       batch_size=2, rl_batch_size=3, num_generations=4))
        args = grpo.config(ctx, 0)
        self.assertAlmostEqual(args.temperature, 1.2)
        self.assertEqual(args.per_device_train_batch_size, 12)  # 3 prompts x 4 rollouts
        self.assertEqual(args.num_generations, 4)
        self.assertEqual(ctx.gen_batch, 12)  # the evals' generate() batch follows GRPO's

    def test_static_cache_samples_what_the_grown_cache_samples(self):
        # --static-cache: the KV cache allocated once at full length, the same samples (seeded)
        from cudal1.train import grpo, sampling
        # both from the checkpoint: the class's model has been trained by the tests before
        plain, ptok = self.trl_engine.load_model(self.path, self.cfg)
        model, tok = self.trl_engine.load_model(self.path, dict(self.cfg, static_cache=True))
        self.assertEqual(model.generation_config.cache_implementation, "static")
        prompts = [[{"role": "user", "content": "write a relu kernel"}],
                   [{"role": "user", "content": "softmax, please"}]]
        grown, n1 = sampling.generate(plain, ptok, prompts, 2, 16, 4, 7, temperature=0.9)
        static, n2 = sampling.generate(model, tok, prompts, 2, 16, 4, 7, temperature=0.9)
        self.assertEqual(grown, static)
        self.assertEqual(n1, n2)
        args = grpo.config(self.trl_engine.Ctx(dict(self.cfg, static_cache=True)), 0)
        self.assertEqual(args.generation_kwargs, {"cache_implementation": "static"})
        # TRL builds its GenerationConfig from them with disable_compile of its own: given twice,
        # the H100's first GRPO trainer failed with a TypeError
        from datasets import Dataset
        from trl import GRPOTrainer

        def reward(completions, **kw):
            return [0.0] * len(completions)
        trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, processing_class=tok,
                              train_dataset=Dataset.from_list([{"prompt": "write a relu kernel"}]))
        self.assertEqual(trainer.generation_config.cache_implementation, "static")
        self.assertTrue(trainer.generation_config.disable_compile)
        self.assertIsNone(grpo.config(self.trl_engine.Ctx(self.cfg), 0).generation_kwargs)
        # under a GPU trainer's bf16 autocast the rollouts keep the grown cache, said explicitly
        self.assertEqual(grpo.rollout_cache(dict(self.cfg, static_cache=True), True),
                         {"cache_implementation": "dynamic"})

    def test_on_a_gpu_attention_keeps_off_cudnn(self):
        # cuDNN builds a plan per new shape: a decode step's key length is new at every token
        import torch
        self.addCleanup(torch.backends.cuda.enable_cudnn_sdp, torch.backends.cuda.cudnn_sdp_enabled())
        torch.backends.cuda.enable_cudnn_sdp(True)
        self.assertFalse(self.trl_engine.no_cudnn_attention(dict(self.cfg, device="cpu")))
        self.assertTrue(torch.backends.cuda.cudnn_sdp_enabled())  # the CPU's runs leave it be
        self.assertTrue(self.trl_engine.no_cudnn_attention(dict(self.cfg, device="cuda")))
        self.assertFalse(torch.backends.cuda.cudnn_sdp_enabled())

    def test_a_trained_model_comes_back_outside_the_trainers_autocast(self):
        # Accelerate patches forward with bf16 autocast and leaves it so after train(): the
        # engine's evals sampled in bf16 under it, and a static cache failed on the H100
        import accelerate
        import torch
        from transformers import LlamaConfig, LlamaForCausalLM
        m = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=1, num_attention_heads=2,
                                         num_key_value_heads=2))
        from accelerate.state import AcceleratorState
        # Accelerate's state is one per process, and the trainers before this test set it up
        AcceleratorState._reset_state(reset_partial_state=True)
        self.addCleanup(AcceleratorState._reset_state, reset_partial_state=True)
        acc = accelerate.Accelerator(mixed_precision="bf16", cpu=True)
        trainer = types.SimpleNamespace(accelerator=acc, model=acc.prepare(m))
        seen = []
        m.model.layers[0].self_attn.k_proj.register_forward_hook(lambda mod, i, o: seen.append(o.dtype))

        def key_dtype(model):
            with torch.no_grad():
                model(torch.tensor([[1, 2, 3]]))
            return seen.pop()
        self.assertEqual(key_dtype(trainer.model), torch.bfloat16)  # what train() leaves
        model = self.trl_engine.released(trainer)
        self.assertIs(model, m)
        self.assertEqual(key_dtype(model), torch.float32)


class RewardHooks(unittest.TestCase):
    """What the engine asks of cudal1.trl.make_reward: per-call meta from TRL's trainer_state, a
    hook with each batch's results and time, and an exception rather than no signal when the
    service is gone."""

    def test_meta_from_the_trainer_state_and_the_results_hook(self):
        import asyncio
        import types

        import cudal1.trl
        seen = []
        f = cudal1.trl.make_reward(URL, TOKEN, retries=0,
                                   meta=lambda kw: {"run": RUN_ID + 5, "step": kw["trainer_state"].global_step + 1},
                                   on_results=lambda items, results, t: seen.append((len(items), results, t)))
        r = asyncio.run(f(prompts=["p", "p"], completions=[reply(LEGIT[TASKS[0]]), "nothing"], task=[TASKS[0]] * 2,
                          prompt_id=["a", "b"], trainer_state=types.SimpleNamespace(global_step=2)))
        self.assertEqual(len(r), 2)
        self.assertGreater(r[0], r[1])
        ((n, results, t),) = seen
        self.assertEqual((n, [x["verdict"] for x in results][0]), (2, "pass"))
        self.assertGreater(t, 0)
        metas = sorted((m["step"], m["prompt_id"]) for m, _, _ in store_rows(os.path.join(TMP, "db"), RUN_ID + 5))
        self.assertEqual(metas, [(3, "a"), (3, "b")])

    def test_a_service_that_is_gone_raises_when_asked_to(self):
        import asyncio
        import socket

        import cudal1
        import cudal1.trl
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{s.getsockname()[1]}"
        kw = dict(prompts=["p"], completions=["x"], task=[TASKS[0]])
        quiet = cudal1.trl.make_reward(dead, TOKEN, retries=0)
        self.assertEqual(asyncio.run(quiet(**kw)), [None])
        loud = cudal1.trl.make_reward(dead, TOKEN, retries=0, raise_on_service_error=True)
        with self.assertRaises(cudal1.ServiceError):
            asyncio.run(loud(**kw))


@unittest.skipUnless(HAVE_VERL_DEPS, "transformers/tokenizers/torch/pyarrow are not installed")
class Embedded(unittest.TestCase):
    def test_the_embedded_model_is_the_same_for_a_seed_and_a_checkpoint(self):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from cudal1.train import embedded
        a = embedded.build(ROOT, os.path.join(TMP, "emb-a"), "tiny", 3)
        b = embedded.build(ROOT, os.path.join(TMP, "emb-b"), "tiny", 3)
        c = embedded.build(ROOT, os.path.join(TMP, "emb-c"), "tiny", 4)
        ma, mb, mc = (AutoModelForCausalLM.from_pretrained(p) for p in (a, b, c))
        sa, sb, sc = ma.state_dict(), mb.state_dict(), mc.state_dict()
        self.assertTrue(all(torch.equal(sa[k], sb[k]) for k in sa))
        self.assertFalse(all(torch.equal(sa[k], sc[k]) for k in sa))
        self.assertEqual(read(os.path.join(a, "tokenizer.json")), read(os.path.join(b, "tokenizer.json")))
        tok = AutoTokenizer.from_pretrained(a)
        code = LEGIT[TASKS[0]]
        self.assertEqual(tok.decode(tok(code)["input_ids"]), code)  # byte-level: code comes back exactly
        self.assertEqual(ma.config.num_hidden_layers, 2)
        self.assertEqual(ma.config.hidden_size, 128)
        self.assertEqual(ma.config.vocab_size, len(tok))
        self.assertEqual(tok.eos_token, "<|end|>")
        text = tok.apply_chat_template([{"role": "user", "content": "x"}], add_generation_prompt=True, tokenize=False)
        self.assertEqual(text, "<|user|>x<|end|><|assistant|>")


@unittest.skipUnless(HAVE_VERL_DEPS, "transformers/tokenizers/torch/pyarrow are not installed")
class Verl(unittest.TestCase):
    """Without verl: the files it would read, and its reward function as verl calls it."""

    @classmethod
    def setUpClass(cls):
        cls.db2 = os.path.join(TMP, "db2")
        cls.proc2, cls.url2 = start_service(cls.db2)
        cls.out = os.path.join(TMP, "verl")
        cls.cfg = config(cls.out, engine="verl", stage="grpo", run_id=RUN_ID + 3, rl_lr=2e-4, temperature=0.3,
                         rl_temperature=0.6, rl_batch_size=3, grpo_iterations=2)
        # two evaluation services: the prompts come from the one beside the store (URL)
        cls.rc, cls.events, cls.err = run_engine(cls.cfg, extra_env={"CUDAL1_SERVE_URLS": f"{URL},{cls.url2}"})

    @classmethod
    def tearDownClass(cls):
        stop_service(cls.proc2)

    def test_it_writes_the_data_reward_module_and_overrides_and_says_verl_did_not_run(self):
        if have("verl"):
            self.skipTest("verl is installed here: the engine would run it")
        self.assertEqual(self.rc, 0, self.err[-3000:])
        (done,) = of(self.events, "done", "grpo")
        self.assertFalse(done["ran"])
        self.assertIn("verl.trainer.main_ppo", done["command"])
        self.assertIn("verl is not installed", done["note"])
        import pyarrow.parquet as pq
        vdir = os.path.join(self.out, "verl")
        train = pq.read_table(os.path.join(vdir, "train.parquet")).to_pylist()
        val = pq.read_table(os.path.join(vdir, "val.parquet")).to_pylist()
        self.assertEqual(len(train), 6)  # 2 steps x 3 prompts (rl_batch_size) over 2 tasks
        self.assertEqual(len(val), 2)
        for row in train + val:
            self.assertEqual(row["data_source"], "cudal1")
            self.assertIn(row["reward_model"]["ground_truth"], TASKS)
            self.assertEqual(row["extra_info"]["task"], row["reward_model"]["ground_truth"])
            self.assertEqual(row["extra_info"]["run"], RUN_ID + 3)
            self.assertEqual([m["role"] for m in row["prompt"]], ["system", "user"])
        ov = dict(line.split("=", 1) for line in read(os.path.join(vdir, "overrides.txt")).split())
        want = {"algorithm.adv_estimator": "grpo", "actor_rollout_ref.rollout.n": "2",
                "actor_rollout_ref.rollout.tensor_model_parallel_size": "1",
                "reward.custom_reward_function.path": os.path.join(vdir, "reward.py"),
                "reward.custom_reward_function.name": "compute_score",
                "data.train_files": os.path.join(vdir, "train.parquet"),
                "data.val_files": os.path.join(vdir, "val.parquet"),
                "actor_rollout_ref.model.path": os.path.join(self.out, "model-init"),
                "actor_rollout_ref.actor.use_kl_loss": "False", "trainer.total_training_steps": "2",
                "actor_rollout_ref.actor.optim.lr": "0.0002",  # stage 3's rate, not the SFT's
                "actor_rollout_ref.rollout.temperature": "0.6",  # GRPO's own, not the evals'
                "data.train_batch_size": "3", "actor_rollout_ref.actor.ppo_mini_batch_size": "3",
                "actor_rollout_ref.actor.ppo_epochs": "2"}  # GRPO's mu: verl's epochs a batch
        for k, v in want.items():
            self.assertEqual(ov.get(k), v, k)
        self.assertFalse(any(k.startswith("custom_reward_function") for k in ov))

    def test_the_reward_module_scores_as_verl_calls_it_spread_by_task(self):
        import pyarrow.parquet as pq
        vdir = os.path.join(self.out, "verl")
        row = pq.read_table(os.path.join(vdir, "train.parquet")).to_pylist()[0]
        task = row["reward_model"]["ground_truth"]
        old = {k: os.environ.get(k) for k in ("CUDAL1_SERVE_URLS", "CUDAL1_SERVE_URL", "CUDAL1_SERVE_TOKEN")}
        os.environ.pop("CUDAL1_SERVE_URLS", None)  # the services the engine was given, kept in the module
        os.environ.pop("CUDAL1_SERVE_URL", None)
        os.environ["CUDAL1_SERVE_TOKEN"] = TOKEN
        try:
            spec = importlib.util.spec_from_file_location("cl1_verl_reward", os.path.join(vdir, "reward.py"))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            extra = dict(row["extra_info"], num_turns=1, rollout_reward_scores={})  # verl adds these
            good = mod.compute_score(row["data_source"], reply(LEGIT[task]) + "\n/* verl */", task, extra)
            bad = mod.compute_score(data_source=row["data_source"], solution_str="no code", ground_truth=task,
                                    extra_info=extra)
        finally:
            for k, v in old.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        self.assertEqual(set(good), set(bad))
        self.assertEqual((good["pass"], good["infra"]), (1.0, 0.0))
        self.assertEqual((bad["pass"], bad["infra"]), (0.0, 0.0))
        self.assertGreater(good["score"], bad["score"])
        first = store_rows(os.path.join(TMP, "db"), RUN_ID + 3)  # a task's calls: one service
        second = store_rows(self.db2, RUN_ID + 3)
        chosen = mod.compute_score.client_for(task).base_url
        self.assertEqual((len(first), len(second)), (2, 0) if chosen == URL else (0, 2))
        tasks = [f"level1/{i}_T" for i in range(64)]
        self.assertEqual({mod.compute_score.client_for(t).base_url for t in tasks}, {URL, self.url2})
        self.assertTrue(all(mod.compute_score.client_for(t) is mod.compute_score.client_for(t)
                            for t in tasks))
        for m, _, _ in first + second:
            self.assertEqual((m["stage"], m["task"], m["prompt_id"]), ("grpo", task, row["extra_info"]["prompt_id"]))
        self.assertEqual([c.base_url for c in mod.compute_score.clients], [URL, self.url2])

    def test_verl_console_lines_become_step_events(self):
        from cudal1.train.verl_engine import parse_step
        f = parse_step("(TaskRunner pid=1) step:3 - actor/pg_loss:0.012 - critic/score/mean:-1.25 - "
                       "timing_s/gen:4.5 - timing_s/reward:1.5 - timing_s/update_actor:2.0 - timing_s/step:8.25")
        self.assertEqual(f, {"step": 3, "loss": 0.012, "reward_mean": -1.25, "t_generate": 4.5,
                             "t_reward": 1.5, "t_update": 2.0, "t_step": 8.25})
        self.assertIsNone(parse_step("Training Progress: 10%"))


if __name__ == "__main__":
    unittest.main()
