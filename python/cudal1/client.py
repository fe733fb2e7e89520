"""client.py — talking to `cudal1 serve`: POST /v1/score (or submit and poll through /v1/jobs)
with retries a trainer can afford.

Scoring is idempotent on the service side (the same task and code give the stored evaluation),
and every item carries an id derived from its content, so a retry after a timeout or a 503 never
makes the service run work twice. Retries: connection errors, 429/502/503/504 (honouring
Retry-After), with exponential backoff; a 4xx other than 429 is the caller's mistake and raises
at once with the service's message."""
import asyncio
import hashlib
import json
import os
import time
import urllib.error
import urllib.request

RETRY_STATUS = (429, 502, 503, 504)


class ServiceError(Exception):
    """The service could not be reached or refused the request (status 0: no answer)."""

    def __init__(self, status, message):
        super().__init__(f"cudal1 serve: {message}" + (f" (HTTP {status})" if status else ""))
        self.status = status
        self.message = message


def item_id(task, text, format=None):
    """A stable id for (task, completion or code, format): the same sample keeps its id across
    retries. The C ABI's ids ("cabi" or None) are those of before formats existed."""
    h = hashlib.sha256()
    h.update(task.encode())
    h.update(b"\0")
    h.update(text.encode())
    if format not in (None, "cabi"):
        h.update(b"\0")
        h.update(str(format).encode())
    return h.hexdigest()[:24]


class Client:
    """A synchronous client. base_url: e.g. http://127.0.0.1:8421; token: the service's bearer
    token ($CUDAL1_SERVE_TOKEN when None); timeout: seconds one HTTP request may take (a batch
    of evaluations can take minutes); retries: attempts after the first."""

    def __init__(self, base_url=None, token=None, timeout=900.0, retries=5, backoff=1.0):
        self.base_url = (base_url or os.environ.get("CUDAL1_SERVE_URL") or "http://127.0.0.1:8421").rstrip("/")
        self.token = token if token is not None else os.environ.get("CUDAL1_SERVE_TOKEN") or None
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        last = None
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
            wait = self.backoff * (2 ** attempt)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    return json.loads(r.read().decode() or "null")
            except urllib.error.HTTPError as e:
                text = e.read().decode(errors="replace")
                try:
                    msg = json.loads(text).get("error", text)
                except (ValueError, AttributeError):
                    msg = text
                if e.code not in RETRY_STATUS:
                    raise ServiceError(e.code, msg) from None
                last = ServiceError(e.code, msg)
                ra = e.headers.get("Retry-After") if e.headers else None
                if ra and ra.strip().isdigit():
                    wait = max(wait, float(ra))
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
                last = ServiceError(0, f"{self.base_url}{path}: {getattr(e, 'reason', e)}")
            if attempt < self.retries:
                time.sleep(wait)
        raise last

    def score(self, items, deadline_s=None, fresh=False):
        """items: dicts with "task" and "completion" (a raw policy reply) or "code", optionally
        "id", "meta" and "format" ("cabi" or "kernelbench"). Returns one result dict per item, in
        order (see the README)."""
        body, n = self._score_body(items, deadline_s, fresh)
        return self._results(self._request("POST", "/v1/score", body), n)

    def submit_job(self, items, deadline_s=None, fresh=False):
        """The same batch as score(), submitted: returns the job id at once (POST /v1/jobs)."""
        body, _ = self._score_body(items, deadline_s, fresh)
        res = self._request("POST", "/v1/jobs", body)
        if not isinstance(res, dict) or not isinstance(res.get("job"), str):
            raise ServiceError(202, f"expected a job id, got {res!r:.200}")
        return res["job"]

    def job(self, job_id):
        """GET /v1/jobs/{id}: {"status": "running"|"done", "items", "done", "results" once done}."""
        return self._request("GET", f"/v1/jobs/{job_id}")

    def score_job(self, items, deadline_s=None, fresh=False, poll_s=1.0, wait_s=None):
        """score() for batches longer than an HTTP timeout: submit, then poll every poll_s until
        done (wait_s: give up after it, None: no limit). A job the service no longer knows (it
        restarted) is submitted again: the items that finished come from its store."""
        items = list(items)
        t0 = time.monotonic()
        job_id = self.submit_job(items, deadline_s, fresh)
        while True:
            try:
                st = self.job(job_id)
            except ServiceError as e:
                if e.status != 404:
                    raise
                job_id = self.submit_job(items, deadline_s, fresh)
                continue
            if st.get("status") == "done":
                return self._results(st, len(items))
            if wait_s is not None and time.monotonic() - t0 > wait_s:
                raise ServiceError(0, f"job {job_id}: {st.get('done')}/{st.get('items')} items "
                                      f"done after {wait_s} s")
            time.sleep(poll_s)

    @staticmethod
    def _results(res, n):
        results = res.get("results") if isinstance(res, dict) else None
        if not isinstance(results, list) or len(results) != n:
            raise ServiceError(200, f"expected {n} results, got {res!r:.200}")
        return results

    def _score_body(self, items, deadline_s, fresh):
        out = []
        for it in items:
            it = dict(it)
            if "id" not in it:
                it["id"] = item_id(it["task"], it.get("completion", it.get("code", "")),
                                   it.get("format"))
            if fresh:
                it["fresh"] = True
            out.append(it)
        body = {"items": out}
        if deadline_s is not None:
            body["deadline_s"] = deadline_s
        return body, len(out)

    def prompts(self, tasks, n=1, exemplars=2, seed=1, tau=None, format=None):
        """POST /v1/prompts: n contrastive prompts per task, exemplars drawn from the store's
        passing solutions; rows {"task", "prompt_id", "index", "messages", "exemplar_ids"}.
        format: "kernelbench" for prompts asking for a Python ModelNew (None: the C ABI's)."""
        body = {"tasks": list(tasks), "n": int(n), "exemplars": int(exemplars), "seed": int(seed)}
        if tau is not None:
            body["tau"] = float(tau)
        if format is not None:
            body["format"] = format
        res = self._request("POST", "/v1/prompts", body)
        rows = res.get("prompts") if isinstance(res, dict) else None
        if not isinstance(rows, list) or len(rows) != n * len(body["tasks"]):
            raise ServiceError(200, f"expected {n * len(body['tasks'])} prompts, got {res!r:.200}")
        return rows

    def healthz(self):
        return self._request("GET", "/healthz")

    def stats(self):
        return self._request("GET", "/v1/stats")


class AsyncClient:
    """The same calls for asyncio code (TRL gathers async reward functions concurrently): each
    runs the synchronous client in a thread, so many ranks' batches can wait at once."""

    def __init__(self, *args, **kwargs):
        self.sync = Client(*args, **kwargs)

    async def score(self, items, deadline_s=None, fresh=False):
        return await asyncio.to_thread(self.sync.score, items, deadline_s, fresh)

    async def score_job(self, items, deadline_s=None, fresh=False, poll_s=1.0, wait_s=None):
        return await asyncio.to_thread(self.sync.score_job, items, deadline_s, fresh, poll_s, wait_s)

    async def prompts(self, tasks, n=1, exemplars=2, seed=1, tau=None, format=None):
        return await asyncio.to_thread(self.sync.prompts, tasks, n, exemplars, seed, tau, format)

    async def healthz(self):
        return await asyncio.to_thread(self.sync.healthz)

    async def stats(self):
        return await asyncio.to_thread(self.sync.stats)
