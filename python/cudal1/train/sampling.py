"""sampling.py — sampling solutions from the current model and scoring them through the service:
stage 2's rounds and the eval after each stage.

Prompts come from the service (POST /v1/prompts, the builder `optimize` uses), replies from plain
transformers generate() in batches, rewards from POST /v1/score with the run, stage, round and
prompt id in each item's meta, so the store holds every sampled solution with its verdict."""
import collections
import math
import time

from .chat import fit_prompt
from .config import EXIT_INFRA, EXIT_INPUT, EngineError


def service_call(what, fn, *args, **kwargs):
    """fn(*args) with the service's failures as the engine's: unreachable or dying (no status, a
    5xx) is infrastructure (exit 3), a refusal (4xx) names the request's mistake (exit 2)."""
    from ..client import ServiceError
    try:
        return fn(*args, **kwargs)
    except ServiceError as e:
        if not 400 <= e.status < 500:  # no answer, a 5xx, or an answer not of the protocol
            raise EngineError(EXIT_INFRA, f"{what}: the reward service failed: {e}",
                              "training stopped cleanly; start again with --resume")
        raise EngineError(EXIT_INPUT, f"{what}: the service refused it: {e}")


def fetch_prompts(client, tasks, n, exemplars, seed):
    """n prompt rows per task: {"task", "prompt_id", "messages", "exemplar_ids"}."""
    return service_call("POST /v1/prompts", client.prompts, tasks, n, exemplars, seed)


def generate(model, tok, prompts, k, max_new_tokens, batch_seqs, seed, temperature=1.0):
    """k sampled replies (text) per prompt (a chat list each) at temperature, batch_seqs
    sequences per generate() call; returns (replies per prompt, completion tokens in all)."""
    import torch
    torch.manual_seed(seed)
    per_call = max(1, batch_seqs // k)
    out, n_tokens = [], 0
    model.eval()
    tok.padding_side = "left"  # decoder-only: the replies start where the prompts end
    for i in range(0, len(prompts), per_call):
        chunk = [tok.apply_chat_template(p, add_generation_prompt=True, tokenize=False)
                 for p in prompts[i:i + per_call]]
        enc = tok(chunk, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
        with torch.no_grad():
            seqs = model.generate(**enc, do_sample=True, temperature=temperature, top_p=1.0, top_k=0,
                                  max_new_tokens=max_new_tokens, num_return_sequences=k,
                                  eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
        gen = seqs[:, enc["input_ids"].shape[1]:]
        n_tokens += int((gen != tok.pad_token_id).sum())
        texts = tok.batch_decode(gen, skip_special_tokens=True)
        out.extend(texts[j:j + k] for j in range(0, len(texts), k))
    return out, n_tokens


def score(client, samples, meta):
    """Scores samples ({"task", "prompt_id", "text"}) in one batch; sets each one's "result"."""
    items = [{"task": s["task"], "completion": s["text"],
              "meta": dict(meta, prompt_id=s["prompt_id"], index=i)} for i, s in enumerate(samples)]
    results = service_call("POST /v1/score", client.score, items)
    for s, r in zip(samples, results):
        s["result"] = r
    return samples


def summarize(samples):
    """n_samples, success_rate (verdict pass), reward_mean and the passes' speedups (absent when
    nothing passed) of scored samples. Infrastructure errors count as samples but not as passes:
    they have no reward."""
    res = [s["result"] for s in samples]
    rewards = [r["reward"] for r in res if r.get("status") == "ok" and r.get("reward") is not None]
    speedups = [float(r["speedup"]) for r in res if r.get("verdict") == "pass" and r.get("speedup")]
    out = {"n_samples": len(res),
           "success_rate": (sum(r.get("verdict") == "pass" for r in res) / len(res)) if res else 0.0,
           "reward_mean": (sum(rewards) / len(rewards)) if rewards else None,
           "speedup_mean": (sum(speedups) / len(speedups)) if speedups else None,
           "speedup_best": max(speedups) if speedups else None,
           # why the others failed, most common first (a run stuck at 0% says which way)
           "verdicts": dict(sorted(collections.Counter(
               str(r.get("verdict") or r.get("status") or "?") for r in res).items(),
               key=lambda kv: (-kv[1], kv[0])))}
    if len(rewards) > 1:
        m = out["reward_mean"]
        out["reward_std"] = math.sqrt(sum((x - m) ** 2 for x in rewards) / (len(rewards) - 1))
    return out


def sample_and_score(ctx, model, tok, tasks, k, seed, meta):
    """k samples per task from model, scored: (samples, summary with timings and tokens)."""
    rows = fetch_prompts(ctx.client, tasks, 1, 0, seed)
    return sample_rows_and_score(ctx, model, tok, rows, k, seed, meta, ctx.cfg["temperature"])


def sample_rows_and_score(ctx, model, tok, rows, k, seed, meta, temperature):
    """k samples per prompt row ({"task", "prompt_id", "messages"}) at temperature, scored."""
    prompts = [fit_prompt(tok, r["messages"], ctx.cfg["max_prompt_len"]) for r in rows]
    t0 = time.perf_counter()
    replies, n_tokens = ctx.generate(model, tok, prompts, k, ctx.cfg["max_completion_len"],
                                     ctx.gen_batch, seed, temperature)
    t1 = time.perf_counter()
    samples = [{"task": r["task"], "prompt_id": r["prompt_id"], "prompt": p, "text": text}
               for r, p, texts in zip(rows, prompts, replies) for text in texts]
    score(ctx.client, samples, meta)
    summary = summarize(samples)
    summary.update(tokens=n_tokens, t_generate=round(t1 - t0, 4),
                   t_reward=round(time.perf_counter() - t1, 4))
    return samples, summary
