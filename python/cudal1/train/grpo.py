"""grpo.py — one round of stage 3: TRL's GRPOTrainer on contrastive prompts, rewarded by the
service through cudal1.trl.make_reward, with each step's parts measured.

A step is generate (the trainer's _generate, timed by a wrapper), reward (the service's batch,
timed inside the reward function) and update (the rest of the step: log-probs, loss, backward,
optimizer); on CUDA, the GPU's busy share over the step (gpubusy.py). Each rollout is scored
with meta {run, stage "grpo", round, step, prompt_id}, so the store holds it with its reward;
the step event carries the pass rate and the passes' speedups.
The reward function raises when the service is gone, which ends train() (the caller stops with
exit 3) rather than training on no signal."""
import os
import time
import warnings

from .gpubusy import GpuBusy


class StepRecorder:
    """Per-step generation and reward times, and the reward results, for the step events."""

    def __init__(self, busy=None):
        self.t_generate = self.t_reward = 0.0
        self.results = []      # this step's
        self.all_results = []  # the round's
        self.busy = busy       # a gpubusy.GpuBusy on CUDA, else None

    def on_results(self, items, results, seconds):
        self.t_reward += seconds
        self.results.extend(results)
        self.all_results.extend(results)

    def wrap_generate(self, trainer):
        orig = trainer._generate

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return orig(*args, **kwargs)
            finally:
                self.t_generate += time.perf_counter() - t0

        trainer._generate = timed

    def step_fields(self, step, t_step, logs):
        """The step's numbers (called once per GRPO step, after its mu updates, from the
        callback), then reset."""
        passed = [r for r in self.results if r.get("verdict") == "pass"]
        speedups = [float(r["speedup"]) for r in passed if r.get("speedup")]
        t_update = max(0.0, t_step - self.t_generate - self.t_reward)
        now = time.monotonic()  # the step ended just now (on_log follows on_step_end)
        gpu_busy = self.busy.share(now - t_step, now) if self.busy else None
        out = dict(reward_mean=logs.get("reward"), reward_std=logs.get("reward_std"),
                   success_rate=(len(passed) / len(self.results)) if self.results else None,
                   n_samples=len(self.results),
                   speedup_mean=(sum(speedups) / len(speedups)) if speedups else None,
                   speedup_best=max(speedups) if speedups else None,
                   t_generate=round(self.t_generate, 4), t_reward=round(self.t_reward, 4),
                   t_update=round(t_update, 4), gpu_busy=gpu_busy,
                   completion_len=logs.get("completions/mean_length"))
        self.t_generate = self.t_reward = 0.0
        self.results = []
        return out


def by_task_in_turn(rows, tasks):
    """rows reordered one task after another (tasks' order; each task's rows in their order), so
    that every rl_batch_size consecutive prompts hold as many tasks as they can: with the
    dataset unshuffled, a step draws each task once (rl_batch_size = the number of tasks) rather
    than whichever tasks a shuffle gave it, and the steps' means stay comparable. On the H100
    (train-demo-lr1e4), steps that drew 2 of 5 tasks at random had means that followed the draw."""
    order = list(tasks) + [r["task"] for r in rows if r["task"] not in tasks]
    queues = {t: [r for r in rows if r["task"] == t] for t in dict.fromkeys(order)}
    out = []
    while any(queues.values()):
        for q in queues.values():
            if q:
                out.append(q.pop(0))
    assert len(out) == len(rows)
    return out


def gpu_index():
    """nvidia-smi's index of the GPU the trainer runs on: the first of CUDA_VISIBLE_DEVICES when
    it names one by number (a UUID works as --id too), else 0."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip()
    return first or "0"


def config(ctx, rnd):
    """GRPOConfig of a round: rl_batch_size prompts a step, num_generations rollouts each, sampled
    at rl_temperature; stage 3's rate; Dr. GRPO's loss, no KL, rewards not rescaled; the prompts
    in the order by_task_in_turn gave them (not shuffled). Replies that ran out of tokens train
    like the rest unless mask_truncated: then they keep their reward in their group's mean but
    train no token (DAPO's overlong filtering). Dr. GRPO's loss sums tokens, and on the H100
    (train-demo-t08-lr5e5) the 4-11 such replies of a 40-rollout step held 25-69 % of its
    completion tokens; but masked, nothing discourages run-on text, and at 1e-4 (train-demo-rl1e4)
    such replies grew from 2 to 12 a step. Here a reply that ran out holds no finished code: it
    is a failure like any other.
    grpo_iterations (GRPO's mu) optimizer steps train on each step's rollouts, the ratio to the
    rollouts' own log-probs clipped as PPO: TRL counts optimizer steps, so max_steps is the
    round's GRPO steps times mu."""
    from trl import GRPOConfig

    from .trl_engine import common_args
    cfg = ctx.cfg
    vllm = dict(use_vllm=True, vllm_mode="server", vllm_server_base_url=cfg["vllm_server"]) \
        if cfg["vllm_server"] else {}
    mu = cfg["grpo_iterations"]
    common = common_args(ctx, "grpo", rnd)
    return GRPOConfig(max_steps=cfg["grpo_steps_per_round"] * mu, num_iterations=mu,
                      per_device_train_batch_size=cfg["rl_batch_size"] * cfg["num_generations"],
                      num_generations=cfg["num_generations"], max_completion_length=cfg["max_completion_len"],
                      beta=0.0, loss_type="dr_grpo", scale_rewards="none", temperature=cfg["rl_temperature"],
                      mask_truncated_completions=cfg["mask_truncated"],
                      log_completions=False, shuffle_dataset=False, **vllm,
                      generation_kwargs=rollout_cache(cfg, common.get("bf16")),
                      **dict(common, learning_rate=cfg["rl_lr"]))


def rollout_cache(cfg, bf16):
    """GRPO's generation_kwargs for --static-cache (None without it). The trainer generates its
    rollouts under its own bf16 autocast on a GPU, where RoPE's keys come out fp32 and the values
    bf16, which one static cache of one dtype cannot hold (the H100's first try failed at the
    cache's first update, 2026-12-07): there the rollouts keep the grown cache, said explicitly,
    since load_model put "static" in the model's own generation config. TRL adds
    disable_compile=True itself (a second one was a TypeError on the H100), so a static cache's
    forward is not compiled, as load_model asks for the engine's own generate()."""
    if not cfg.get("static_cache"):
        return None
    return {"cache_implementation": "dynamic" if bf16 else "static"}


def train(ctx, model, tok, prompts, rnd):
    """grpo_steps_per_round GRPO steps on prompts ({"prompt", "task", "prompt_id"} rows);
    returns (the trained model, merged when LoRA, and the round's reward results)."""
    from datasets import Dataset
    from trl import GRPOTrainer

    from ..trl import make_reward
    from .trl_engine import quiet, released, step_callback
    cfg = ctx.cfg
    mu = cfg["grpo_iterations"]
    rec = StepRecorder(GpuBusy(gpu_index()) if cfg["device"] == "cuda" else None)
    # TRL 1.16 asks transformers the deprecated way at each GRPO trainer: not the user's concern
    warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)

    def meta(kwargs):
        st = kwargs.get("trainer_state")  # rollouts come at the first of a step's mu updates
        return ctx.meta("grpo", rnd, (st.global_step // mu + 1) if st is not None else None)

    reward = make_reward(ctx.url, ctx.token, field="reward", retries=3, backoff=0.5, meta=meta,
                         on_results=rec.on_results, raise_on_service_error=True)
    reward.__name__ = "cudal1"
    args = config(ctx, rnd)
    data = Dataset.from_list(by_task_in_turn(prompts, cfg["tasks"]))
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=data,
                          processing_class=tok, callbacks=[step_callback("grpo", rnd, rec.step_fields, group=mu)],
                          rollout_func=ctx.rollout)
    quiet(trainer)
    rec.wrap_generate(trainer)
    try:
        trainer.train()
    finally:
        if rec.busy:
            rec.busy.stop()
    return released(trainer), rec.all_results
