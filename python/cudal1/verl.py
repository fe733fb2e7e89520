"""verl.py — verl's custom reward function, backed by `cudal1 serve`.

    reward.custom_reward_function.path=<site-packages>/cudal1/verl.py
    reward.custom_reward_function.name=compute_score

with $CUDAL1_SERVE_URL (and $CUDAL1_SERVE_TOKEN) in the workers' environment. The data's
`reward_model.ground_truth` is the task id (`cudal1 dataset rl --format verl-jsonl`, then
`python -m cudal1.parquet`). verl aggregates the returned keys across samples, so every call
returns the same keys with numbers, and it never raises: an exception would end the run. An
infrastructure failure scores $CUDAL1_INFRA_SCORE (default 0.0) with `infra` = 1, so it can be
told apart and left out downstream."""
import os

from .client import Client

_client = None


def _get_client():
    global _client
    if _client is None:
        _client = Client(timeout=float(os.environ.get("CUDAL1_TIMEOUT", "900")))
    return _client


def _row(score, passed=0.0, speedup=0.0, infra=0.0, cached=0.0):
    return {"score": float(score), "pass": float(passed), "speedup": float(speedup),
            "infra": float(infra), "cached": float(cached)}


def _score_one(client, data_source, solution_str, ground_truth, extra_info, meta=None):
    """One response's row (see compute_score); never raises."""
    infra_score = float(os.environ.get("CUDAL1_INFRA_SCORE", "0.0"))
    field = os.environ.get("CUDAL1_REWARD_FIELD", "reward")
    try:
        if not ground_truth or solution_str is None:
            return _row(infra_score, infra=1.0)
        item = {"task": str(ground_truth), "completion": str(solution_str)}
        m = dict(meta or {})
        if isinstance(extra_info, dict):
            m.update({k: v for k, v in extra_info.items() if isinstance(v, (str, int, float, bool))})
        if m:
            item["meta"] = m
        r = client.score([item])[0]
        if r.get("status") != "ok" or r.get(field) is None:
            return _row(infra_score, infra=1.0)
        return _row(r[field], passed=r.get("verdict") == "pass", speedup=r.get("speedup") or 0.0,
                    cached=bool(r.get("cached")))
    except Exception:  # noqa: BLE001 — verl must never see an exception
        return _row(infra_score, infra=1.0)


def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None, **kwargs):
    """The reward of one response (solution_str) for the task ground_truth."""
    return _score_one(_get_client(), data_source, solution_str, ground_truth, extra_info)


def make_compute_score(urls, token=None, meta=None, timeout=900.0, retries=5):
    """A compute_score that spreads its calls over several services (one `cudal1 serve` per
    evaluation node) by task: a task's samples always go to the same service (a hash of the task
    id), so its store answers retries and repeated samples from cache and its per-task reward
    statistics stay in one place; meta is recorded with every item (the item's extra_info adds
    to it). verl runs a synchronous compute_score in a thread pool, so the calls of a batch
    overlap across the services."""
    import hashlib
    if isinstance(urls, str):
        urls = [u for u in urls.split(",") if u.strip()]
    if not urls:
        raise ValueError("make_compute_score: no service URL")
    clients = [Client(u.strip(), token, timeout=timeout, retries=retries) for u in urls]

    def client_for(task):
        h = int(hashlib.sha256(str(task).encode()).hexdigest()[:8], 16)
        return clients[h % len(clients)]

    def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None, **kwargs):
        return _score_one(client_for(ground_truth), data_source, solution_str, ground_truth, extra_info, meta)

    compute_score.client_for = client_for
    compute_score.clients = clients
    return compute_score
