"""trl_engine.py — CUDA-L1's three stages on TRL (the default engine: one GPU, or a CPU for tests).

  sft      SFTTrainer on config.sft_data (`cudal1 dataset sft` rows), completion-only loss; then
           an eval (k samples per task, scored) — stage 1's success rate.
  selfsup  rounds of: k samples per task from the current model -> scored by the service ->
           SFT on the correct ones (REINFORCE with a 0/1 reward) -> eval. A round's samples are
           the previous eval's when that eval sampled the same model.
  grpo     rounds of: contrastive prompts from POST /v1/prompts (exemplars from the store, so
           the faster solutions training finds show up in the next round) -> GRPOTrainer steps
           with the service's reward (loss dr_grpo, no std scaling, beta 0: timing noise is not
           amplified by per-group normalisation, and no reference model is loaded).

batch_size is the number of sequences per SFT step and the number of PROMPTS per GRPO step (each
with num_generations completions). Every round ends in a checkpoint (OUT/ckpt/<stage>-r<round>,
a full model: with LoRA the round's adapter is merged first) and OUT/state.json; --resume
continues after the last one. Optimizer state is per round (a new trainer each round)."""
import collections
import os
import shutil
import time

from . import sampling
from .chat import fit_prompt, load_sft_rows, sft_dataset
from .config import EXIT_INFRA, EXIT_INPUT, STAGES, EngineError
from .events import State, emit, log, quiet_progress


class Ctx:
    """What every stage needs: the config, the service's client, the state, the device."""

    def __init__(self, cfg):
        from ..client import Client
        self.cfg = cfg
        self.out = cfg["out"]
        self.url = os.environ.get("CUDAL1_SERVE_URL")
        self.token = os.environ.get("CUDAL1_SERVE_TOKEN") or None
        if not self.url:
            raise EngineError(EXIT_INPUT, "CUDAL1_SERVE_URL is not set (cudal1 train sets it for the engine)")
        # a local service: a dead one is known in seconds, a busy one answers 503 + Retry-After
        self.client = Client(self.url, self.token, timeout=900.0, retries=3, backoff=0.5)
        self.state = State(self.out)
        self.generate = sampling.generate
        # sampling is memory-light next to training: a larger batch is most of an eval's speed
        self.gen_batch = cfg["gen_batch"] or cfg["rl_batch_size"] * cfg["num_generations"]
        self.pending = None  # the last eval's samples while the model has not changed since
        self.rollout = None  # a TRL rollout_func replacing GRPO's generation (tests script rollouts)

    def meta(self, stage, rnd, step, **extra):
        return dict(run=self.cfg["run_id"], stage=stage, round=rnd, step=step, **extra)


# ---- model, checkpoints ----------------------------------------------------------------------

def no_cudnn_attention(cfg):
    """On a GPU, SDPA without its cuDNN backend. On the H100 a GRPO step's rollouts took 87-149 s
    the first time in a process and 22-35 s after; the stacks (CUDAL1_TRAIN_STACKS) sat in
    scaled_dot_product_attention with the GPU 15-24 % busy, while fp32 sampling (which cuDNN
    does not take) paid nothing. torch sends bf16 attention with a padding mask to cuDNN first
    on recent GPUs (measured with torch 2.11 on a B200: FunASR issue 3704), and cuDNN builds an
    execution plan for every shape it has not met; in a decode every step is a new key length.
    With cuDNN off (train-demo-3rounds, H100), GRPO's first step generated in 21.7 s against
    103 s before. Flash and memory-efficient attention need no plans. Process-wide, set before
    any model runs."""
    if cfg["device"] != "cuda":
        return False
    import torch
    torch.backends.cuda.enable_cudnn_sdp(False)
    return True


def device_args(cfg):
    """The trainers' device and precision arguments (bf16 only on a GPU that has it)."""
    import torch
    if cfg["device"] == "cuda":
        if not torch.cuda.is_available():
            raise EngineError(EXIT_INPUT, "device \"cuda\": torch sees no GPU",
                              "train on the CPU (cudal1 train --train-device cpu), or check the driver")
        return dict(use_cpu=False, bf16=torch.cuda.is_bf16_supported())
    return dict(use_cpu=True, bf16=False)


def load_model(path, cfg):
    """(model, tokenizer) from a checkpoint directory, checked for what training needs."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    try:
        tok = AutoTokenizer.from_pretrained(path)
    except (OSError, ValueError) as e:
        raise EngineError(EXIT_INPUT, f"model {path}: cannot load its tokenizer ({str(e).splitlines()[0]})")
    if not tok.chat_template:
        raise EngineError(EXIT_INPUT, f"model {path}: its tokenizer has no chat_template",
                          "the prompts are chat turns: set tokenizer.chat_template and save it")
    if tok.eos_token is None:
        raise EngineError(EXIT_INPUT, f"model {path}: its tokenizer has no eos_token")
    if tok.pad_token is None:
        log(f"model {path}: the tokenizer has no pad token; padding with its eos token {tok.eos_token!r}")
        tok.pad_token = tok.eos_token
    # full fine-tuning keeps fp32 master weights (the trainers' bf16 is autocast); with LoRA on a
    # GPU the frozen base can stay bf16, half the memory of a large checkpoint
    dtype = torch.bfloat16 if cfg["lora"] and cfg["device"] == "cuda" else torch.float32
    try:
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype)
    except (OSError, ValueError) as e:
        raise EngineError(EXIT_INPUT, f"model {path}: cannot load it ({str(e).splitlines()[0]})")
    if cfg["device"] == "cuda":
        model = model.to("cuda")
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    if cfg.get("static_cache"):
        # the KV cache at its full length once, not grown a token at a time; no torch.compile
        model.generation_config.cache_implementation = "static"
        model.generation_config.disable_compile = True
    check_positions(path, model, cfg)
    return model, tok


def check_positions(path, model, cfg):
    """A prompt and its reply must fit the model's positions: past them a model generates on
    untrained positions (RoPE) or fails (learned ones), and transformers only warns."""
    limit = getattr(model.config, "max_position_embeddings", None)
    want = cfg["max_prompt_len"] + cfg["max_completion_len"]
    if isinstance(limit, int) and want > limit:
        raise EngineError(EXIT_INPUT, f"model {path}: max_prompt_len {cfg['max_prompt_len']} + "
                          f"max_completion_len {cfg['max_completion_len']} = {want} tokens, past its "
                          f"{limit} positions (config.json max_position_embeddings)",
                          "lower --max-prompt-len or --max-completion-len")


def starting_model(ctx):
    """The checkpoint to start from: the resume point, the user's model, or the embedded one."""
    cfg = ctx.cfg
    if cfg["resume"]:
        try:
            found = ctx.state.load()
        except (OSError, ValueError) as e:
            raise EngineError(EXIT_INPUT, f"--resume: {ctx.state.path}: {e}")
        if not found:
            raise EngineError(EXIT_INPUT, f"--resume: {ctx.state.path} not found: nothing to resume",
                              "run without --resume to start from the beginning")
        ck = ctx.state.data.get("checkpoint")
        if ck:
            if not os.path.isdir(ck):
                raise EngineError(EXIT_INPUT, f"--resume: {ctx.state.path} names the checkpoint {ck}, which is gone")
            log(f"resuming after {ctx.state.data['stage']} round {ctx.state.data['round']} "
                f"(done: {', '.join(ctx.state.data['done']) or 'nothing'}) from {ck}")
            return ck
    elif os.path.exists(ctx.state.path):
        log(f"{ctx.state.path}: an earlier run's state; starting afresh (not --resume)")
    if cfg["model"]:
        return cfg["model"]
    from . import embedded
    path = os.path.join(ctx.out, "model-init")
    t0 = time.perf_counter()
    embedded.build(cfg["repo"], path, cfg["embedded"], cfg["seed"])
    log(f"embedded {cfg['embedded']} model at {path} ({time.perf_counter() - t0:.1f} s)")
    return path


def checkpoint(ctx, model, tok, stage, rnd, done):
    """Saves model and tokenizer to OUT/ckpt/<stage>-r<round> (written beside, then renamed into
    place), then state.json, then the event."""
    path = os.path.join(ctx.out, "ckpt", f"{stage}-r{rnd}")
    tmp = path + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    shutil.rmtree(path, ignore_errors=True)
    os.replace(tmp, path)
    ctx.state.save(stage, rnd, path, done=done)
    emit("checkpoint", stage=stage, round=rnd, path=path)
    return path


def with_lora(model, cfg):
    """A fresh LoRA adapter on model (merged back after the round), or model as it is."""
    if not cfg["lora"]:
        return model
    from peft import LoraConfig, get_peft_model
    return get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules="all-linear",
                                            task_type="CAUSAL_LM"))


def released(trainer):
    """A trainer's model as the rest of the engine uses it: LoRA merged, and outside the
    trainer's precision wrapper. On a GPU, Accelerate patches the model's forward with bf16
    autocast and leaves it patched after train(): the evals and probes then sampled in bf16 while
    the checkpoints hold fp32, and a static KV cache failed at its first update (RoPE's keys come
    out fp32 and the values bf16; H100, 2026-12-07)."""
    model = trainer.accelerator.unwrap_model(trainer.model, keep_fp32_wrapper=False)
    return model.merge_and_unload() if hasattr(model, "merge_and_unload") else model


def common_args(ctx, stage, rnd):
    """TrainingArguments every trainer here shares."""
    cfg = ctx.cfg
    return dict(output_dir=os.path.join(ctx.out, "trl", f"{stage}-r{rnd}"), learning_rate=cfg["lr"],
                lr_scheduler_type="constant", warmup_steps=0, logging_steps=1, save_strategy="no",
                report_to="none", seed=cfg["seed"] + rnd,
                disable_tqdm=True, dataloader_num_workers=0, **device_args(cfg))


# ---- stage 1 and the SFT of stage 2 --------------------------------------------------------------

def step_callback(stage, rnd, extra=None, group=1):
    """A TrainerCallback that emits one step event per group optimizer steps (from TRL's logs),
    with the steps' wall time and tokens; extra(step, t_step, logs) adds a step's own numbers
    (GRPO's). A group is GRPO's step of mu updates on one set of rollouts: its event is step
    global_step // group, with the updates' mean loss and grad norm, and the generation's
    figures, which TRL logs at the group's first update only."""
    from transformers import TrainerCallback

    class Steps(TrainerCallback):
        def __init__(self):
            self.t0 = self.t_step = None
            self.tokens = 0
            self.acc = []  # the (t_step, logs) of the group's updates so far

        def on_step_begin(self, args, state, control, **kw):
            self.t0 = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            self.t_step = time.perf_counter() - self.t0

        def on_log(self, args, state, control, logs=None, **kw):
            logs = logs or {}
            if "loss" not in logs or self.t_step is None:
                return  # the end-of-training summary, not a step
            self.acc.append((self.t_step, logs))
            self.t_step = None
            if state.global_step % group:
                return
            t_step = sum(t for t, _ in self.acc)
            first_seen = {}  # each key as the group's first log gave it
            for _, lg in self.acc:
                for k, v in lg.items():
                    first_seen.setdefault(k, v)
            fields = dict(loss=_mean(lg.get("loss") for _, lg in self.acc),
                          grad_norm=_mean(lg.get("grad_norm") for _, lg in self.acc),
                          t_step=round(t_step, 4))
            tokens = max((lg["num_tokens"] for _, lg in self.acc if lg.get("num_tokens") is not None),
                         default=None)
            if tokens is not None:
                fields["tokens"] = int(tokens - self.tokens)
                self.tokens = tokens
            if extra:
                fields.update(extra(state.global_step // group, t_step, first_seen))
            else:
                fields["t_update"] = fields["t_step"]
            emit("step", stage=stage, round=rnd, step=state.global_step // group, **fields)
            self.acc = []

    return Steps()


def _mean(values):
    vs = [v for v in values if v is not None]
    return sum(vs) / len(vs) if vs else None


def quiet(trainer):
    """Drops the printer of every log dict: the step events carry the numbers."""
    from transformers.trainer_callback import PrinterCallback
    trainer.remove_callback(PrinterCallback)


def train_sft(ctx, model, tok, ds, stage, rnd, max_steps=0, lr=None):
    """SFT on ds (prompt/completion rows, completion-only loss) for sft_epochs, or max_steps when
    given (stage 1's sft_max_steps), at lr (default the config's); returns the trained model."""
    from trl import SFTConfig, SFTTrainer
    cfg = ctx.cfg
    # the rate falls linearly to zero over the stage (transformers' default): at a constant 1e-3
    # the embedded model's loss stalled near 0.05 a token (H100, 2026-12-06), too high for a
    # 700-token sample to come out whole
    args = SFTConfig(num_train_epochs=cfg["sft_epochs"], max_steps=max_steps or -1,
                     per_device_train_batch_size=cfg["batch_size"], completion_only_loss=True,
                     max_length=cfg["max_prompt_len"] + cfg["max_completion_len"], packing=False,
                     **dict(common_args(ctx, stage, rnd), lr_scheduler_type="linear",
                            learning_rate=lr or cfg["lr"]))
    ctx.pending = None
    model = with_lora(model, cfg)
    trainer = SFTTrainer(model=model, args=args, train_dataset=ds, processing_class=tok,
                         callbacks=[step_callback(stage, rnd)])
    quiet(trainer)
    trainer.train()
    return released(trainer)


def sample_seed(cfg, stage, rnd, kind):
    """A distinct sampling seed per stage, round and kind, all derived from the config's seed."""
    return cfg["seed"] + 1000003 * STAGES.index(stage) + 7919 * rnd + (104729 if kind == "eval" else 0)


def evaluate(ctx, model, tok, stage, rnd):
    """k samples per task from model, scored; the eval event. Kept for the next selfsup round."""
    cfg = ctx.cfg
    samples, summ = sampling.sample_and_score(ctx, model, tok, cfg["tasks"], cfg["samples_per_task"],
                                              sample_seed(cfg, stage, rnd, "eval"),
                                              ctx.meta(stage, rnd, 0, kind="eval"))
    emit("eval", stage=stage, round=rnd, **summ)
    ctx.state.save_eval(stage, rnd)
    ctx.pending = samples
    return summ


def stage_sft(ctx, model, tok):
    cfg = ctx.cfg
    if not cfg["sft_data"]:
        raise EngineError(EXIT_INPUT, "stage sft: \"sft_data\" is null", "give the stage its data (cudal1 dataset sft)")
    triples = load_sft_rows(cfg["sft_data"])
    log(f"sft: {len(triples)} rows from {cfg['sft_data']}")
    model = train_sft(ctx, model, tok, sft_dataset(tok, triples, cfg["max_prompt_len"]), "sft", 0,
                      cfg["sft_max_steps"])
    checkpoint(ctx, model, tok, "sft", 0, done=True)
    evaluate(ctx, model, tok, "sft", 0)
    return model


# ---- stage 2 -------------------------------------------------------------------------------------

def correct_pairs(samples):
    """The passing samples as (prompt, reply, task), one per distinct reply of a task."""
    seen, out = set(), []
    for s in samples:
        key = (s["task"], s["text"])
        if s["result"].get("verdict") == "pass" and key not in seen:
            seen.add(key)
            out.append((s["prompt"], s["text"], s["task"]))
    return out


def contrastive_copies(ctx, good, seed):
    """With sft_exemplars: each correct (prompt, reply, task) again under up to sft_exemplar_rows
    distinct contrastive prompts of its task (POST /v1/prompts with that many exemplars), so
    stage 2 keeps the prompt stage 3 shows in the model's training (on the H100 a model tuned on
    round-1 prompts only answered every contrastive prompt with no code or broken code), and a
    prompt meets more than one of the task's replies (dataset_sft.c says why)."""
    k, per = ctx.cfg["sft_exemplars"], ctx.cfg.get("sft_exemplar_rows", 1)
    if not k or not good:
        return []
    per_task = collections.Counter(task for _, _, task in good)
    rows = sampling.fetch_prompts(ctx.client, sorted(per_task), min(64, max(per_task.values()) * per), k, seed)
    distinct = collections.defaultdict(dict)  # task -> prompt_id -> messages
    for r in rows:
        distinct[r["task"]].setdefault(r["prompt_id"], r["messages"])
    by_task = {task: list(d.values()) for task, d in distinct.items()}
    out, nth = [], collections.Counter()
    for _, reply, task in good:
        prompts = by_task.get(task, [])
        i = nth[task]
        nth[task] += 1
        for j in range(min(per, len(prompts))):  # reply i of its task: prompts i*per, i*per+1, ...
            out.append((prompts[(i * per + j) % len(prompts)], reply, task))
    return out


def selfsup_round(ctx, model, tok, rnd):
    """One round: samples (the last eval's when it sampled this model), the round event, SFT on
    the correct ones (none: said in the event, no update) for sft_epochs, checkpoint, eval."""
    cfg = ctx.cfg
    if ctx.pending is not None:
        samples = ctx.pending
        summ = dict(sampling.summarize(samples), reused_eval=True)
    else:
        samples, summ = sampling.sample_and_score(ctx, model, tok, cfg["tasks"], cfg["samples_per_task"],
                                                  sample_seed(cfg, "selfsup", rnd, "sample"),
                                                  ctx.meta("selfsup", rnd, 0, kind="sample"))
    good = correct_pairs(samples)
    note = None if good else "no correct samples: nothing to fine-tune on this round"
    emit("round", stage="selfsup", round=rnd, n_correct=len(good), note=note, **summ)
    if good:
        rows = good + contrastive_copies(ctx, good, sample_seed(cfg, "selfsup", rnd, "sample") + 1)
        model = train_sft(ctx, model, tok, sft_dataset(tok, rows, cfg["max_prompt_len"]), "selfsup", rnd,
                          lr=cfg["selfsup_lr"])
    else:
        log(f"selfsup round {rnd}: {note}")
    checkpoint(ctx, model, tok, "selfsup", rnd, done=rnd == cfg["selfsup_rounds"] - 1)
    evaluate(ctx, model, tok, "selfsup", rnd)
    return model


def stage_selfsup(ctx, model, tok):
    for rnd in range(ctx.state.last_round("selfsup") + 1, ctx.cfg["selfsup_rounds"]):
        model = selfsup_round(ctx, model, tok, rnd)
    return model


# ---- stage 3 -------------------------------------------------------------------------------------

def grpo_round(ctx, model, tok, rnd):
    """GRPO steps on this round's contrastive prompts; the round event and checkpoint."""
    from ..client import ServiceError
    from . import grpo
    cfg = ctx.cfg
    n_per_task = min(64, -(-cfg["grpo_steps_per_round"] * cfg["rl_batch_size"] // len(cfg["tasks"])))
    rows = sampling.fetch_prompts(ctx.client, cfg["tasks"], n_per_task, cfg["exemplars"], cfg["seed"] + rnd + 1)
    prompts = [{"prompt": fit_prompt(tok, r["messages"], cfg["max_prompt_len"]), "task": r["task"],
                "prompt_id": r["prompt_id"]} for r in rows]
    with_ex = sum(bool(r.get("exemplar_ids")) for r in rows)
    log(f"grpo round {rnd}: {len(prompts)} prompts, {with_ex} with exemplars from the store")
    ctx.pending = None
    try:
        model, results = grpo.train(ctx, with_lora(model, cfg), tok, prompts, rnd)
    except ServiceError as e:
        raise EngineError(EXIT_INFRA, f"grpo round {rnd}: the reward service failed: {e}",
                          "training stopped cleanly; continue with --resume")
    summ = sampling.summarize([{"result": r} for r in results])
    emit("round", stage="grpo", round=rnd, prompts_with_exemplars=with_ex, **summ)
    checkpoint(ctx, model, tok, "grpo", rnd, done=rnd == cfg["grpo_rounds"] - 1)
    return model


def probe_prompts_per_task(n):
    """How many prompts a task's n probe samples spread over: 4 when n is a multiple of 4, else 2
    when even, else 1. One prompt a task let one prompt decide a task: on the H100
    (train-demo-mu2) LeakyReLU and GELU failed all 16 samples under theirs, before GRPO and after,
    while their steps' rollouts passed 19-69 %."""
    return 4 if n % 4 == 0 else 2 if n % 2 == 0 else 1


def probe_rows(ctx):
    """Stage 3's probe prompts: contrastive prompts per task (probe_prompts_per_task), fetched
    the first time and kept in state.json, so every probe of the run (a resumed one too) shows
    the same prompts."""
    cfg = ctx.cfg
    rows = ctx.state.data.get("grpo_probe_rows")
    if not rows:
        rows = sampling.fetch_prompts(ctx.client, cfg["tasks"], probe_prompts_per_task(cfg["grpo_probe"]),
                                      cfg["exemplars"], sample_seed(cfg, "grpo", 0, "eval"))
        ctx.state.save_probe(rows)
    return rows


def probe(ctx, model, tok, rnd):
    """grpo_probe samples per task under the probe's prompts, at GRPO's temperature, with one
    sampling seed for every probe (common random numbers: between two probes only the model
    differs); the eval event of round rnd (-1: before the first round). GRPO's steps each show
    new prompts, and on the H100 a step's pass rate swung 35-75% with them, which hid any trend."""
    cfg = ctx.cfg
    rows = probe_rows(ctx)
    # grpo_probe samples a task in all, whatever number of prompts the kept rows hold (a run
    # resumed from before the prompts were spread holds one a task)
    k = max(1, cfg["grpo_probe"] * len(cfg["tasks"]) // len(rows))
    samples, summ = sampling.sample_rows_and_score(
        ctx, model, tok, rows, k, sample_seed(cfg, "grpo", 0, "eval"),
        ctx.meta("grpo", rnd, 0, kind="probe"), cfg["rl_temperature"])
    # the contract's rounds are never negative: the probe before round 0 has none
    emit("eval", stage="grpo", round=rnd if rnd >= 0 else None, probe=True,
         temperature=cfg["rl_temperature"], **summ)
    ctx.state.save_eval("grpo", rnd)
    return summ


def stage_grpo(ctx, model, tok):
    cfg = ctx.cfg
    if cfg["grpo_probe"] and ctx.state.last_round("grpo") < 0 and not ctx.state.has_eval("grpo"):
        probe(ctx, model, tok, -1)
    for rnd in range(ctx.state.last_round("grpo") + 1, cfg["grpo_rounds"]):
        model = grpo_round(ctx, model, tok, rnd)
        if cfg["grpo_probe"]:
            probe(ctx, model, tok, rnd)
    return model


STAGE_FNS = {"sft": stage_sft, "selfsup": stage_selfsup, "grpo": stage_grpo}
ROUNDS = {"sft": lambda c: 1, "selfsup": lambda c: c["selfsup_rounds"], "grpo": lambda c: c["grpo_rounds"]}


def owed_eval(ctx, model, tok, stage, rnd):
    """The eval (stage 3: the probe) of a round whose checkpoint was saved before it ran."""
    log(f"{stage} round {rnd}: its {'probe' if stage == 'grpo' else 'eval'} did not run; running it first")
    return probe(ctx, model, tok, rnd) if stage == "grpo" else evaluate(ctx, model, tok, stage, rnd)


def run(cfg, ctx=None, stages=None):
    """The stages the config asks for (or stages), after the resume point; returns 0."""
    ctx = ctx or Ctx(cfg)
    os.makedirs(ctx.out, exist_ok=True)
    quiet_progress()
    device_args(cfg)  # a GPU asked for and not there: said before anything is built
    no_cudnn_attention(cfg)
    path = starting_model(ctx)
    model, tok = load_model(path, cfg)
    n = sum(p.numel() for p in model.parameters())
    log(f"model {path}: {n / 1e6:.2f} M parameters, vocabulary {len(tok)}, device {cfg['device']}")
    missing = ctx.state.eval_missing(cfg["grpo_probe"] > 0) if cfg["resume"] else None
    if missing:  # stopped between its checkpoint and its eval: the model loaded is that round's
        owed_eval(ctx, model, tok, *missing)
    stages = stages or (STAGES if cfg["stage"] == "all" else (cfg["stage"],))
    for stage in stages:
        rounds = ROUNDS[stage](cfg)
        if ctx.state.finished(stage, rounds):
            log(f"{stage}: done in an earlier run (state.json), skipped")
            continue
        emit("start", stage=stage, rounds=rounds, first_round=ctx.state.last_round(stage) + 1)
        model = STAGE_FNS[stage](ctx, model, tok)
        if not ctx.state.finished(stage, rounds):  # a stage of zero rounds still counts as done
            ctx.state.save(stage, ctx.state.last_round(stage), ctx.state.data.get("checkpoint"), done=True)
        emit("done", stage=stage)
    return 0
