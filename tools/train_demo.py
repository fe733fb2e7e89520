#!/usr/bin/env python3
"""tools/train_demo.py DB OUT.json — the numbers of a `cudal1 train` run (the newest in the store)
as issue 21's demo reports them: the success rate of sampled solutions after stage 1 and after
each stage-2 round, stage 3's reward and speedup over its steps (first steps against last), the
GRPO step's time split (generate / reward / update), the rollouts the store recorded, and every
step's record. With --grpo-probe, the first and the last probe sample by sample (the same prompts
and sampling seed: which samples turned from failing to passing and back, which moved to faster
or slower code, and exact sign tests on those). A round cut short by a call's limit and run again
after --resume counts once: its last attempt's steps and rollouts. Reads the store's train_runs,
train_events and scores; writes nothing else."""
import collections
import json
import math
import sqlite3
import statistics
import sys
import time


def mean(xs):
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.mean(xs) if xs else None


def last_attempts(events):
    """(the step events of each (stage, round)'s last attempt, {(stage, round): the time its last
    attempt began} for the rounds run more than once). An attempt is what follows a stage's
    `start` event: a run cut mid-round and resumed starts the stage again and redoes the round."""
    attempt, began, tagged = {}, {}, []  # tagged: (the step's attempt, its (stage, round), it)
    for e in events:
        st = e.get("stage")
        if e["event"] == "start":
            attempt[st] = attempt.get(st, -1) + 1
            began[(st, attempt[st])] = e.get("t")
        elif e["event"] == "step":
            tagged.append((attempt.get(st, 0), (st, e.get("round")), e))
    newest = {}
    for a, key, _ in tagged:
        newest[key] = max(newest.get(key, 0), a)
    rerun = {key: began.get((key[0], newest[key])) for a, key, _ in tagged if a < newest[key]}
    return [e for a, key, e in tagged if a == newest[key]], rerun


def superseded(rerun, rnd, created):
    """Whether a GRPO rollout of round rnd, stored at created, belongs to an attempt run again
    (the store writes both times as ISO UTC with milliseconds, so they compare as text)."""
    t = rerun.get(("grpo", rnd))
    return t is not None and created is not None and created < t


def by_task(con, run_id, first, last, rerun):
    """Each task's GRPO rollouts in the first and the last (round, step)s: their mean reward and
    success. A step draws a few prompts, so a step's mean moves with which tasks it drew; a task's
    own first-against-last does not."""
    out = {}
    for task, reward, verdict, rnd, step, created in con.execute(
            "SELECT task_id, reward, verdict, json_extract(meta, '$.round'), "
            "json_extract(meta, '$.step'), created_at FROM scores WHERE json_extract(meta, '$.run') = ? "
            "AND json_extract(meta, '$.stage') = 'grpo' AND json_extract(meta, '$.kind') IS NULL",
            (run_id,)):
        if superseded(rerun, rnd, created):
            continue
        for name, keys in (("first", first), ("last", last)):
            if (rnd, step) in keys:
                d = out.setdefault(task, {}).setdefault(name, {"n": 0, "rewards": [], "passed": 0})
                d["n"] += 1
                d["passed"] += verdict == "pass"
                if reward is not None:
                    d["rewards"].append(reward)
    for sides in out.values():
        for d in sides.values():
            d["reward_mean"] = mean(d.pop("rewards"))
            d["success_rate"] = d["passed"] / d["n"]
    return dict(sorted(out.items()))


PROBE_KEYS = ("round", "n_samples", "success_rate", "reward_mean", "speedup_mean")


def probe_fields(e, more=()):
    return {k: e.get(k) for k in PROBE_KEYS + more}


def sign_test(a, b):
    """Two-sided exact sign test: the chance of a split of a + b changes at least as uneven as
    a against b if each change were a coin's toss."""
    n = a + b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(a, b) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def p_value(p):
    """Three significant figures: a strong result's p is not rounded to 0."""
    return float(f"{p:.3g}")


class Sample(collections.namedtuple("Sample", "passed text speedup")):  # one probe sample, as paired
    @property
    def speedup_or_0(self):
        return 0.0 if self.speedup is None else self.speedup  # only a pass has a speedup


def paired_probes(con, run_id):
    """The first and the last probe's samples paired by (task, sample index): the prompts and the
    sampling seed are the same, so where the model did not move a sample is the same reply, and
    the samples that changed verdict say which way it moved. None with fewer than two probes."""
    by_round = {}
    for task, verdict, rnd, idx, text, speedup in con.execute(
            "SELECT task_id, verdict, json_extract(meta, '$.round'), json_extract(meta, '$.index'), "
            "completion, json_extract(result, '$.speedup') FROM scores WHERE "
            "json_extract(meta, '$.run') = ? AND json_extract(meta, '$.kind') = 'probe'", (run_id,)):
        by_round.setdefault(rnd, {})[(task, idx)] = Sample(verdict == "pass", text,
                                                            speedup if verdict == "pass" else None)
    if len(by_round) < 2:
        return None
    r0, r1 = min(by_round), max(by_round)
    a, b = by_round[r0], by_round[r1]
    keys = sorted(set(a) & set(b), key=lambda k: (k[0], k[1] if k[1] is not None else -1))
    up = sum(not a[k].passed and b[k].passed for k in keys)
    down = sum(a[k].passed and not b[k].passed for k in keys)
    by_task = collections.defaultdict(list)  # task -> its keys
    for k in keys:
        by_task[k[0]].append(k)
    # a task's passes' mean speedup: where the model knows two solutions of a task, GRPO's
    # choice between them shows here (on the H100, Softmax's passes moved from its naive kernel
    # to its fast one while the pass count fell)
    tasks = {task: {"n": len(mine), "passed_first": sum(a[k].passed for k in mine),
                    "passed_last": sum(b[k].passed for k in mine),
                    "speedup_mean_first": mean([a[k].speedup for k in mine]),
                    "speedup_mean_last": mean([b[k].speedup for k in mine])}
             for task, mine in by_task.items()}
    # a pass's speed moves too: a probe whose passes stayed passes can still have moved to faster
    # code, which is what stage 3 is for. Paired on the measured speedup, a failure counting 0;
    # not on the reward, whose yardstick moves: the service normalises a task's reward with its
    # running mean and std, which training's own samples shift (on the H100 one ReLU reply, the
    # same text at the same 1.13x, scored 0.71 in the first probe and 0.98 in the last)
    diffs = [b[k].speedup_or_0 - a[k].speedup_or_0 for k in keys]
    s_up, s_down = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    return {"first_round": r0, "last_round": r1, "pairs": len(keys),
            "same_reply": sum(a[k].text == b[k].text for k in keys),
            "fail_to_pass": up, "pass_to_fail": down, "sign_test_p": p_value(sign_test(up, down)),
            "speedup_up": s_up, "speedup_down": s_down, "speedup_change_mean": mean(diffs),
            "speedup_sign_test_p": p_value(sign_test(s_up, s_down)),
            "by_task": dict(sorted(tasks.items()))}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n")[0])
    db, out = sys.argv[1], sys.argv[2]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    run = con.execute("SELECT id, stage, engine, model, status, config FROM train_runs "
                      "ORDER BY id DESC LIMIT 1").fetchone()
    if not run:
        sys.exit(f"{db}: no training run in the store")
    run_id = run[0]
    events = [dict(json.loads(d), event=e, stage=s, round=r, step=st, t=t)
              for e, s, r, st, d, t in con.execute(
                  "SELECT event, stage, round, step, data, t FROM train_events WHERE run_id=? "
                  "ORDER BY id", (run_id,))]
    evals = [e for e in events if e["event"] == "eval" and not e.get("probe")]
    probes = [e for e in events if e["event"] == "eval" and e.get("probe")]
    rounds = [e for e in events if e["event"] == "round"]
    kept, rerun = last_attempts(events)
    steps = [e for e in kept if e.get("stage") == "grpo"]
    k = max(1, len(steps) // 3)
    first, last = steps[:k], steps[-k:]
    rollouts = con.execute("SELECT count(*), sum(verdict = 'pass') FROM scores WHERE "
                           "json_extract(meta, '$.run') = ?", (run_id,)).fetchone()
    order = [(s["round"], s["step"]) for s in steps]
    t_step = sum(s.get("t_step") or 0 for s in steps)
    doc = {
        "tool": "tools/train_demo.py",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "run": {"id": run_id, "stage": run[1], "engine": run[2], "model": run[3], "status": run[4],
                "config": json.loads(run[5])},
        "success_after": [{"stage": e["stage"], "round": e["round"], "n_samples": e.get("n_samples"),
                           "success_rate": e.get("success_rate"), "speedup_mean": e.get("speedup_mean")}
                          for e in evals],
        "grpo": {
            "steps": len(steps),
            # rounds cut by a call's limit and run again: only their last attempt counts
            "rerun_rounds": sorted(r for st, r in rerun if st == "grpo"),
            "first_steps": {"n": len(first), "reward_mean": mean(s.get("reward_mean") for s in first),
                            "speedup_mean": mean(s.get("speedup_mean") for s in first),
                            "success_rate": mean(s.get("success_rate") for s in first)},
            "last_steps": {"n": len(last), "reward_mean": mean(s.get("reward_mean") for s in last),
                           "speedup_mean": mean(s.get("speedup_mean") for s in last),
                           "success_rate": mean(s.get("success_rate") for s in last)},
            "time_s": {key: round(sum(s.get(key) or 0 for s in steps), 3)
                       for key in ("t_generate", "t_reward", "t_update", "t_step")},
            "reward_share_of_step": round(sum(s.get("t_reward") or 0 for s in steps) / t_step, 3)
            if t_step else None,
            # the mean of the steps' own figures (gpubusy.py; None where no step measured it)
            "gpu_busy_mean": mean(s.get("gpu_busy") for s in steps),
        },
        # --grpo-probe: the same prompts and sampling seed before round 0 (round null) and after
        # each round, so first against last differs only by the model
        "grpo_probe": {"evals": [probe_fields(e, ("speedup_best", "verdicts")) for e in probes],
                       "first": probe_fields(probes[0]) if probes else None,
                       "last": probe_fields(probes[-1]) if len(probes) > 1 else None,
                       "paired": paired_probes(con, run_id)},
        "rollouts_in_store": {"n": rollouts[0], "passed": rollouts[1] or 0},
        "grpo_by_task": by_task(con, run_id, order[:k], order[-k:], rerun),
        "rounds": rounds,
        "step_records": kept,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    sa = ", ".join(f"{e['stage']} r{e['round']}: {e['success_rate']}" for e in doc["success_after"])
    g = doc["grpo"]
    pr = doc["grpo_probe"]
    if pr["last"]:
        sa += (f"; GRPO probe {pr['first']['success_rate']} -> {pr['last']['success_rate']} passing, reward "
               f"{pr['first']['reward_mean']} -> {pr['last']['reward_mean']}, speedup "
               f"{pr['first']['speedup_mean']} -> {pr['last']['speedup_mean']}")
    if pr["paired"]:
        p = pr["paired"]
        sa += (f" (sample by sample: {p['fail_to_pass']} failing -> passing, {p['pass_to_fail']} "
               f"passing -> failing, sign test p {p['sign_test_p']}; speedup (a failure 0) up in "
               f"{p['speedup_up']}, down in {p['speedup_down']}, p {p['speedup_sign_test_p']})")
    print(f"train demo (run {run_id}, {run[4]}): success after {sa}; GRPO {g['steps']} steps, reward "
          f"mean {g['first_steps']['reward_mean']} -> {g['last_steps']['reward_mean']}, speedup mean "
          f"{g['first_steps']['speedup_mean']} -> {g['last_steps']['speedup_mean']}; reward "
          f"{g['reward_share_of_step']} of the step time; {doc['rollouts_in_store']['n']} rollouts stored")


if __name__ == "__main__":
    main()
