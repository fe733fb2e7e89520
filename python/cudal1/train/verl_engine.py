"""verl_engine.py — stage 3 at scale on verl (`"engine": "verl"`): writes what verl's
`main_ppo` reads and runs it when verl is installed, else prints the command and says so.

OUT/verl/
  train.parquet, val.parquet  verl's RL layout (cudal1.parquet): data_source, prompt (a chat
                              list), reward_model.ground_truth = the task id, extra_info (task,
                              prompt_id, index, run, stage). Train: contrastive prompts with
                              exemplars from the store; val: the first-round prompt per task.
  reward.py                   verl's custom reward function: cudal1.verl.make_compute_score over
                              the service URL(s), a task's calls always to the same one
  overrides.txt               the hydra overrides, one per line (GRPO, Dr. GRPO's aggregation,
                              no KL, rollout n and TP 1, the custom reward keys verl 0.9 reads)

Stages 1 and 2 (when the config asks for them) run on TRL first, in this process; verl starts
from their last checkpoint. The reward module takes the service from $CUDAL1_SERVE_URLS
(comma-separated, one `cudal1 serve` per evaluation node) or $CUDAL1_SERVE_URL, and the token
from $CUDAL1_SERVE_TOKEN, at verl's run time: the token is never written to disk."""
import importlib.util
import os
import re
import shlex
import subprocess
import sys

from .config import EXIT_INPUT, EngineError
from .events import State, emit, log, quiet_progress

STEP_LINE = re.compile(r"^\(?[^)]*\)?\s*step:(\d+) - (.*)$")
# verl's console metrics -> the step event's fields
METRICS = {"actor/pg_loss": "loss", "critic/score/mean": "reward_mean", "critic/rewards/mean": "reward_mean",
           "reward_extra_info/pass/mean": "success_rate", "timing_s/gen": "t_generate",
           "timing_s/reward": "t_reward", "timing_s/update_actor": "t_update", "timing_s/step": "t_step",
           "response_length/mean": "completion_len"}


def service_urls():
    """(the service that holds the store: prompts come from it, the reward services: the
    evaluation nodes' $CUDAL1_SERVE_URLS, or that same service)."""
    own = os.environ.get("CUDAL1_SERVE_URL")
    if not own:
        raise EngineError(EXIT_INPUT, "CUDAL1_SERVE_URL is not set (cudal1 train sets it for the engine)")
    urls = [u.strip() for u in os.environ.get("CUDAL1_SERVE_URLS", "").split(",") if u.strip()]
    return own, urls or [own]


def verl_rows(tok, rows, cfg, split):
    """The service's prompt rows in verl's layout, each prompt fitted to max_prompt_len."""
    from .chat import fit_prompt
    out = []
    for i, r in enumerate(rows):
        out.append({"data_source": "cudal1", "prompt": fit_prompt(tok, r["messages"], cfg["max_prompt_len"]),
                    "ability": "cuda" if cfg["device"] == "cuda" else "host",
                    "reward_model": {"style": "rule", "ground_truth": r["task"]},
                    "extra_info": {"task": r["task"], "prompt_id": r["prompt_id"], "index": i, "split": split,
                                   "run": cfg["run_id"], "stage": "grpo"}})
    return out


REWARD_PY = '''"""reward.py — written by cudal1's verl engine (run {run}): verl's custom reward function.
    reward.custom_reward_function.path={path}
    reward.custom_reward_function.name=compute_score
Services: $CUDAL1_SERVE_URLS (comma-separated), else $CUDAL1_SERVE_URL, else the one of the
run that wrote this file; token: $CUDAL1_SERVE_TOKEN. Every item's meta holds the run and stage."""
import os
import sys

sys.path.insert(0, {python!r})
from cudal1.verl import make_compute_score  # noqa: E402

_URLS = os.environ.get("CUDAL1_SERVE_URLS") or os.environ.get("CUDAL1_SERVE_URL") or {urls!r}
compute_score = make_compute_score(_URLS, token=os.environ.get("CUDAL1_SERVE_TOKEN") or None,
                                   meta={{"run": {run}, "stage": "grpo"}})
'''


def overrides(cfg, model, vdir, n_gpus):
    """verl 0.9's hydra overrides for this config (a list of key=value)."""
    steps = cfg["grpo_rounds"] * cfg["grpo_steps_per_round"]
    g = cfg["num_generations"]
    o = [f"data.train_files={vdir}/train.parquet", f"data.val_files={vdir}/val.parquet",
         f"data.train_batch_size={cfg['rl_batch_size']}", f"data.max_prompt_length={cfg['max_prompt_len']}",
         f"data.max_response_length={cfg['max_completion_len']}", "data.truncation=middle",
         "algorithm.adv_estimator=grpo", "algorithm.norm_adv_by_std_in_grpo=False",
         "algorithm.use_kl_in_reward=False",
         f"actor_rollout_ref.model.path={model}", f"actor_rollout_ref.actor.optim.lr={cfg['rl_lr']}",
         f"actor_rollout_ref.actor.ppo_mini_batch_size={cfg['rl_batch_size']}",
         f"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={g}",
         f"actor_rollout_ref.actor.ppo_epochs={cfg['grpo_iterations']}",
         "actor_rollout_ref.actor.use_kl_loss=False",
         "actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm",
         "actor_rollout_ref.rollout.name=vllm", f"actor_rollout_ref.rollout.n={g}",
         f"actor_rollout_ref.rollout.temperature={cfg['rl_temperature']}",
         "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
         "actor_rollout_ref.rollout.gpu_memory_utilization=0.4",
         f"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu={g}",
         f"reward.custom_reward_function.path={vdir}/reward.py",
         "reward.custom_reward_function.name=compute_score",
         f"trainer.n_gpus_per_node={n_gpus}", "trainer.nnodes=1", f"trainer.total_training_steps={steps}",
         f"trainer.save_freq={cfg['grpo_steps_per_round']}", f"trainer.test_freq={cfg['grpo_steps_per_round']}",
         "trainer.val_before_train=False", "trainer.logger=[console]", "trainer.project_name=cudal1",
         f"trainer.experiment_name=run-{cfg['run_id']}", f"trainer.default_local_dir={vdir}/ckpt",
         f"trainer.resume_mode={'auto' if cfg['resume'] else 'disable'}"]
    if cfg["lora"]:
        o += ["actor_rollout_ref.model.lora_rank=16", "actor_rollout_ref.model.lora_alpha=32",
              "actor_rollout_ref.model.target_modules=all-linear"]
    return o


def parse_step(line):
    """A step event's fields from one of verl's console metric lines, None for any other line."""
    m = STEP_LINE.match(line.strip())
    if not m:
        return None
    fields = {"step": int(m.group(1))}
    for part in m.group(2).split(" - "):
        key, _, val = part.partition(":")
        name = METRICS.get(key.strip())
        if name and name not in fields:
            try:
                fields[name] = float(val)
            except ValueError:
                pass
    return fields


def write_files(cfg, tok, model, own, urls):
    """OUT/verl/{train,val}.parquet (prompts from own, the service beside the store), reward.py
    (scoring on urls) and overrides.txt; returns (dir, overrides)."""
    from ..client import Client
    from ..parquet import write_rows
    from .sampling import fetch_prompts
    vdir = os.path.join(cfg["out"], "verl")
    os.makedirs(vdir, exist_ok=True)
    client = Client(own, os.environ.get("CUDAL1_SERVE_TOKEN") or None, retries=3, backoff=0.5)
    tasks = cfg["tasks"]
    n = min(64, -(-cfg["grpo_steps_per_round"] * cfg["rl_batch_size"] // len(tasks)))
    train = fetch_prompts(client, tasks, n, cfg["exemplars"], cfg["seed"] + 1)
    val = fetch_prompts(client, tasks, 1, 0, cfg["seed"])
    write_rows(verl_rows(tok, train, cfg, "train"), os.path.join(vdir, "train.parquet"))
    write_rows(verl_rows(tok, val, cfg, "val"), os.path.join(vdir, "val.parquet"))
    python_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    reward_path = os.path.join(vdir, "reward.py")
    with open(reward_path, "w", encoding="utf-8") as f:
        f.write(REWARD_PY.format(run=cfg["run_id"], path=reward_path, python=python_dir, urls=",".join(urls)))
    n_gpus = 1
    if cfg["device"] == "cuda":
        import torch
        n_gpus = max(1, torch.cuda.device_count())
    ov = overrides(cfg, model, vdir, n_gpus)
    with open(os.path.join(vdir, "overrides.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(ov) + "\n")
    log(f"verl: {len(train)} train and {len(val)} val prompts, reward module and overrides in {vdir}")
    return vdir, ov


def run_verl(cmd, env):
    """Runs verl, passing its output on and its metric lines on as step events; returns its status."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            bufsize=1)
    for line in proc.stdout:
        sys.stderr.write(line)
        fields = parse_step(line)
        if fields:
            emit("step", stage="grpo", round=0, engine="verl", **fields)
    return proc.wait()


def starting_model(cfg):
    """The TRL stages' last checkpoint, the user's model, or the embedded one."""
    st = State(cfg["out"])
    try:
        if st.load() and st.data.get("checkpoint") and os.path.isdir(st.data["checkpoint"]):
            return st.data["checkpoint"]
    except (OSError, ValueError) as e:
        raise EngineError(EXIT_INPUT, f"{st.path}: {e}")
    if cfg["model"]:
        return cfg["model"]
    from . import embedded
    path = os.path.join(cfg["out"], "model-init")
    embedded.build(cfg["repo"], path, cfg["embedded"], cfg["seed"])
    return path


def run(cfg):
    from .__main__ import TRAIN_DEPS, check_deps
    before = [s for s in ("sft", "selfsup") if cfg["stage"] in (s, "all")]
    if before:
        check_deps(TRAIN_DEPS)
        from . import trl_engine
        trl_engine.run(cfg, stages=before)
    if cfg["stage"] not in ("grpo", "all"):
        return 0
    if cfg["grpo_probe"]:  # said, not skipped: a run asked for figures it would not get
        raise EngineError(EXIT_INPUT, "\"grpo_probe\": the GRPO probe is engine trl's; verl's GRPO "
                          "runs as verl's own job", "drop --grpo-probe, or train with --engine trl")
    if cfg["mask_truncated"]:  # verl's GRPO has no such switch (DAPO's recipe is its own trainer)
        raise EngineError(EXIT_INPUT, "\"mask_truncated\": masking replies that ran out of tokens is "
                          "engine trl's", "drop --mask-truncated, or train with --engine trl")
    check_deps(("transformers", "tokenizers", "pyarrow"))
    from transformers import AutoTokenizer
    quiet_progress()
    own, urls = service_urls()
    model = starting_model(cfg)
    tok = AutoTokenizer.from_pretrained(model)
    emit("start", stage="grpo", engine="verl", rounds=cfg["grpo_rounds"])
    vdir, ov = write_files(cfg, tok, model, own, urls)
    cmd = [sys.executable, "-m", "verl.trainer.main_ppo", *ov]
    shown = " ".join(shlex.quote(c) for c in cmd)
    if importlib.util.find_spec("verl") is None:
        note = ("verl is not installed (pip install 'verl[vllm]'); run the command with a `cudal1 serve` "
                "reachable at $CUDAL1_SERVE_URL (token $CUDAL1_SERVE_TOKEN)")
        log(f"{note}:\n{shown}")
        emit("done", stage="grpo", engine="verl", ran=False, dir=vdir, command=shown, note=note)
        return 0
    env = dict(os.environ, CUDAL1_SERVE_URLS=",".join(urls))
    log(f"running verl: {shown}")
    rc = run_verl(cmd, env)
    if rc != 0:
        raise EngineError(1, f"verl exited with status {rc} (its log is above)", f"the command: {shown}")
    emit("done", stage="grpo", engine="verl", ran=True, dir=vdir, checkpoints=os.path.join(vdir, "ckpt"))
    return 0
