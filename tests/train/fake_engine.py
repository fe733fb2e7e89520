#!/usr/bin/env python3
"""tests/train/fake_engine.py: a stand-in for `python3 -m cudal1.train` that keeps the contract
(/work/briefs/contract.md, README "Training") without torch, so tests/test_train.c can drive
`cudal1 train` in a second: it reads --config, checks every key and the environment it was given,
talks to the real child service (GET /healthz, a POST /v1/score without the token must be a 401,
then with it one real host candidate, tests/legit/host/19_ReLU.c, with the contract's item meta),
prints CL1TRAIN events for each stage, round and step, and keeps OUT/state.json and a checkpoint
folder per round, so --resume can be checked. Standard library only.

Told by the environment what to do besides:
  FAKE_ENGINE_FAIL=2|3|4|5   after the first step: an error event, then that exit status
  FAKE_ENGINE_AFTER=checkpoint  the above after the first checkpoint instead of the first step
  FAKE_ENGINE_SLEEP=S        after the first step: sleep (a Ctrl-C ends it: exit 130)
  FAKE_ENGINE_POLL_SERVICE=1 after the first step: poll /healthz until the service is gone,
                             then exit 3 as the contract says
  FAKE_ENGINE_EXPECT_RESUME=1  "resume" must be true and OUT/state.json there
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

KEYS = ["version", "run_id", "stage", "engine", "model", "embedded", "out", "repo", "tasks", "sft_data",
        "device", "seed", "lora", "static_cache", "lr", "selfsup_lr", "rl_lr", "temperature", "rl_temperature", "rl_batch_size", "sft_epochs", "sft_max_steps", "selfsup_rounds",
        "samples_per_task", "grpo_rounds", "grpo_steps_per_round", "num_generations",
        "exemplars", "max_prompt_len", "max_completion_len", "batch_size", "gen_batch", "sft_exemplars", "grpo_probe",
        "grpo_iterations", "vllm_server", "resume"]
ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TRANSFORMERS_OFFLINE": "1",
       "TOKENIZERS_PARALLELISM": "false"}


def event(**kw):
    print("CL1TRAIN " + json.dumps(kw), flush=True)


def die(code, message, hint=None):
    ev = {"event": "error", "message": message}
    if hint:
        ev["hint"] = hint
    event(**ev)
    sys.exit(code)


def http(method, path, body=None, token=True):
    url = os.environ["CUDAL1_SERVE_URL"] + path
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + os.environ["CUDAL1_SERVE_TOKEN"])
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


def check_config(cfg):
    missing = [k for k in KEYS if k not in cfg]
    if missing:
        die(2, "train-config.json lacks " + ", ".join(missing))
    for k, v in ENV.items():
        if os.environ.get(k) != v:
            die(2, "env %s is %r, not %r" % (k, os.environ.get(k), v))
    want = os.path.join(cfg["repo"], "python")
    if os.environ.get("PYTHONPATH", "").split(":")[0] != want:
        die(2, "PYTHONPATH does not start with " + want)
    if not os.environ.get("CUDAL1_SERVE_URL", "").startswith("http://127.0.0.1:"):
        die(2, "CUDAL1_SERVE_URL is not a loopback URL")
    if len(os.environ.get("CUDAL1_SERVE_TOKEN", "")) < 32:
        die(2, "CUDAL1_SERVE_TOKEN is not a fresh token")
    print("fake engine: token %s, CUDAL1_SERVE_URLS=%s" % (
        os.environ["CUDAL1_SERVE_TOKEN"][:6], os.environ.get("CUDAL1_SERVE_URLS", "")), flush=True)


def score(cfg, stage, rnd, step):
    """One rollout through the service: the real ReLU candidate, the contract's meta."""
    with open(os.path.join(cfg["repo"], "tests/legit/host/19_ReLU.c")) as f:
        code = f.read()
    meta = {"run": cfg["run_id"], "stage": stage, "round": rnd, "step": step,
            "prompt_id": "fake-%s-%d" % (stage, rnd)}
    try:
        st, doc = http("POST", "/v1/score", {"items": [{"id": "r%d-%d" % (rnd, step),
                                                         "task": cfg["tasks"][0],
                                                         "code": code, "meta": meta}]})
    except OSError as e:
        die(3, "the reward service is unreachable: %s" % e)
    if st != 200:
        die(3, "POST /v1/score answered %d" % st)
    return doc["results"][0]


def state_path(cfg):
    return os.path.join(cfg["out"], "state.json")


def checkpoint(cfg, stage, rnd, done):
    path = os.path.join(cfg["out"], "ckpt", "%s-r%d" % (stage, rnd))
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "weights.txt"), "w") as f:
        f.write("fake\n")
    with open(state_path(cfg), "w") as f:
        json.dump({"stage": stage, "round": rnd, "checkpoint": path, "done": done}, f)
    event(event="checkpoint", stage=stage, round=rnd, path=path)


def after_first_step():
    fail = os.environ.get("FAKE_ENGINE_FAIL")
    if fail:
        code = int(fail)
        hints = {2: ("no tokenizer in the model folder", "give a checkpoint with tokenizer.json"),
                 3: ("the reward service is unreachable", None),
                 4: ("CUDA out of memory", "lower batch_size, max_completion_len or num_generations"),
                 5: ("No module named 'trl'", "pip install -e python[train]")}
        die(code, *hints[code])
    if os.environ.get("FAKE_ENGINE_SLEEP"):
        try:  # before the line the test waits for: its Ctrl-C may follow at once
            print("fake engine: sleeping", flush=True)
            time.sleep(float(os.environ["FAKE_ENGINE_SLEEP"]))
        except KeyboardInterrupt:
            print("fake engine: interrupted, state kept", flush=True)
            sys.exit(130)
    if os.environ.get("FAKE_ENGINE_POLL_SERVICE"):
        print("fake engine: polling the service", flush=True)
        for _ in range(600):
            try:
                http("GET", "/healthz", token=False)
            except OSError:
                die(3, "the reward service is unreachable")
            time.sleep(0.05)
        die(1, "the service never went away")


def run_stage(cfg, stage, start_round, done, first):
    if stage == "sft":
        with open(cfg["sft_data"]) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        if not rows or "messages" not in rows[0]:
            die(2, "no SFT rows with messages in " + cfg["sft_data"])
    event(event="start", stage=stage)
    rounds = {"sft": 1, "selfsup": cfg["selfsup_rounds"], "grpo": cfg["grpo_rounds"]}[stage]
    steps = cfg["grpo_steps_per_round"] if stage == "grpo" else 1
    if stage == "grpo" and cfg["grpo_probe"] and start_round == 0:  # the probe before round 0
        event(event="eval", stage="grpo", round=None, probe=True, n_samples=cfg["grpo_probe"],
              success_rate=0.5, reward_mean=-0.25, speedup_mean=0.9)
    for rnd in range(start_round, rounds):
        for step in range(steps):
            res = score(cfg, stage, rnd, step)
            g = rnd * steps + step
            event(event="step", stage=stage, round=rnd, step=step, loss=1.0 / (1 + g),
                  reward_mean=res["reward"] + 0.1 * g, reward_std=0.5,
                  success_rate=1.0 if res["verdict"] == "pass" else 0.0,
                  speedup_mean=1.0 + 0.1 * g, speedup_best=1.5 + 0.1 * g, tokens=64,
                  t_generate=0.5, t_reward=0.25, t_update=0.25, t_step=1.0,
                  gpu_busy=0.75 if stage == "grpo" else None)
            if first[0] and os.environ.get("FAKE_ENGINE_AFTER") != "checkpoint":
                first[0] = False
                after_first_step()
        if stage != "sft":
            event(event="round", stage=stage, round=rnd, n_samples=4,
                  success_rate=0.25 * (rnd + 1), reward_mean=0.2 * rnd,
                  speedup_mean=1.0 + 0.05 * rnd, speedup_best=1.2 + 0.1 * rnd)
        checkpoint(cfg, stage, rnd, done)
        if first[0] and os.environ.get("FAKE_ENGINE_AFTER") == "checkpoint":
            first[0] = False
            after_first_step()
    event(event="eval", stage=stage, round=max(rounds - 1, 0), n_samples=8,
          success_rate={"sft": 0.25, "selfsup": 0.5, "grpo": 0.625}[stage], speedup_mean=1.1)
    done.append(stage)
    with open(state_path(cfg), "w") as f:
        json.dump({"stage": stage, "round": rounds - 1, "checkpoint": None, "done": done}, f)
    event(event="done", stage=stage)


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "--config":
        print("usage: fake_engine.py --config PATH", file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[2]) as f:
        cfg = json.load(f)
    check_config(cfg)
    st, doc = http("GET", "/healthz", token=False)
    if st != 200:
        die(3, "GET /healthz answered %d" % st)
    st, _ = http("POST", "/v1/score", {"items": []}, token=False)
    if st != 401:
        die(2, "the service took a request without its token (%d)" % st)
    state = {"done": [], "stage": None, "round": -1}
    if os.environ.get("FAKE_ENGINE_EXPECT_RESUME"):
        if not cfg["resume"] or not os.path.exists(state_path(cfg)):
            die(2, "expected resume: true and a state.json")
    if cfg["resume"] and os.path.exists(state_path(cfg)):
        with open(state_path(cfg)) as f:
            state = json.load(f)
        print("fake engine: resuming after %s round %s" % (state["stage"], state["round"]),
              flush=True)
    stages = ["sft", "selfsup", "grpo"] if cfg["stage"] == "all" else [cfg["stage"]]
    first = [True]
    for stage in stages:
        if stage in state["done"]:
            continue
        start = state["round"] + 1 if state.get("stage") == stage else 0
        run_stage(cfg, stage, start, list(state["done"]), first)
        state["done"].append(stage)
    print("fake engine: finished", flush=True)


if __name__ == "__main__":
    main()
