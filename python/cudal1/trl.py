"""trl.py — a reward function for TRL's GRPOTrainer that takes its rewards from `cudal1 serve`.

    from cudal1.trl import make_reward
    trainer = GRPOTrainer(..., reward_funcs=[make_reward("http://127.0.0.1:8421")])

or `reward_funcs=[cudal1.trl.reward]` with $CUDAL1_SERVE_URL / $CUDAL1_SERVE_TOKEN set. The
dataset needs a `task` column (the suite id; `cudal1 dataset rl` writes it), which TRL passes to
the function repeated per generation. One batched POST per call, that is per rank and step; an
infrastructure failure is `None` (TRL leaves it out of the group's statistics: no signal, never a
penalty for the machine); the verdict and speedup go to TRL's extra logs when it offers them."""
import time

from .client import AsyncClient, ServiceError

FIELDS = ("reward", "score01", "speedup")


def _text(completion):
    """A completion as TRL hands it: a string, or a conversation (a list of messages) whose last
    assistant message is the reply."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        for m in reversed(completion):
            if isinstance(m, dict) and m.get("role", "assistant") == "assistant":
                return str(m.get("content", ""))
    return str(completion)


def _log(kwargs, results):
    """Per-sample verdicts and speedups, and the batch's pass rate, through the hooks TRL passes
    (log_extra, log_metric) when it passes them; logging never fails the step."""
    log_extra, log_metric = kwargs.get("log_extra"), kwargs.get("log_metric")
    try:
        if callable(log_extra):
            log_extra("cudal1_verdict", [r.get("verdict") for r in results])
            log_extra("cudal1_speedup", [r.get("speedup") for r in results])
        if callable(log_metric) and results:
            passed = [r for r in results if r.get("verdict") == "pass"]
            log_metric("cudal1/pass_rate", len(passed) / len(results))
            log_metric("cudal1/infra_errors", sum(r.get("status") == "infra_error" for r in results))
            if passed:
                log_metric("cudal1/speedup_mean", sum(r.get("speedup") or 0 for r in passed) / len(passed))
    except Exception:  # noqa: BLE001 — a logging hook's signature is not worth a training step
        pass


def make_reward(base_url=None, token=None, field="reward", timeout=900.0, retries=5, meta=None,
                on_results=None, raise_on_service_error=False, backoff=1.0):
    """The reward function. field: which number to return — "reward" (CUDA-L1's normalised and
    clipped speedup reward, the default), "score01" (bounded to [0, 1]) or "speedup" (None, no
    signal, for anything but a pass). meta: a dict recorded with every scored item, or a function
    of the call's keyword arguments returning one (e.g. the step from TRL's trainer_state).
    on_results(items, results, seconds): called after each scored batch (a trainer's own
    bookkeeping). raise_on_service_error: re-raise a ServiceError (the service is gone) instead of
    returning None for the batch — a trainer that must stop rather than train without signal."""
    if field not in FIELDS:
        raise ValueError(f"field must be one of {FIELDS}, not {field!r}")
    client = AsyncClient(base_url, token, timeout=timeout, retries=retries, backoff=backoff)

    async def cudal1_reward(prompts=None, completions=None, task=None, **kwargs):
        completions = completions or []
        if task is None:
            raise ValueError("cudal1 reward: the dataset needs a 'task' column (the suite id)")
        tasks = task if isinstance(task, list) else [task] * len(completions)
        pids = kwargs.get("prompt_id")  # `cudal1 dataset rl`'s column, recorded with each score
        base = meta(kwargs) if callable(meta) else meta
        items = []
        for i, (t, c) in enumerate(zip(tasks, completions)):
            it = {"task": t, "completion": _text(c)}
            m = dict(base or {})
            if isinstance(pids, list) and i < len(pids):
                m["prompt_id"] = pids[i]
            if m:
                it["meta"] = dict(m, index=i)
            items.append(it)
        t0 = time.perf_counter()
        try:
            results = await client.score(items)
        except ServiceError:
            if raise_on_service_error:
                raise
            return [None] * len(completions)  # the service is down: no signal, not a penalty
        if on_results is not None:
            on_results(items, results, time.perf_counter() - t0)
        _log(kwargs, results)
        # JSON's 0 arrives as an int: TRL stacks the values into a float tensor
        return [None if r.get("status") != "ok" or r.get(field) is None else float(r[field])
                for r in results]

    return cudal1_reward


reward = make_reward()
