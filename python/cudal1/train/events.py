"""events.py — what the engine tells `cudal1 train`: CL1TRAIN event lines on stdout (one JSON
object each; C records them in the store) and OUT/state.json, the resume point.

state.json is replaced atomically (write a temporary file, fsync, rename) after each checkpoint,
so a crash or a kill at any moment leaves either the old state or the new one, never half."""
import json
import math
import os
import sys

PREFIX = "CL1TRAIN "


def _clean(v):
    """JSON has no NaN or infinity: such a number is left out (null-safe fields)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def emit(event, **fields):
    """Prints one event line; fields whose value is None are left out."""
    obj = {"event": event}
    for k, v in fields.items():
        v = _clean(v)
        if v is not None:
            obj[k] = v
    sys.stdout.write(PREFIX + json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return obj


def log(msg):
    """A human line for the log (stderr: stdout carries the events)."""
    sys.stderr.write(f"cudal1.train: {msg}\n")
    sys.stderr.flush()


def quiet_progress():
    """No progress bars in the log C keeps (dataset maps, weight loading, checkpoint writing)."""
    import transformers
    transformers.utils.logging.disable_progress_bar()
    try:
        import datasets
        datasets.disable_progress_bars()
    except ImportError:
        pass


class State:
    """OUT/state.json: {"stage", "round", "checkpoint", "done": [stages], "rounds": {stage: last
    round}, "evals": {stage: last round evaluated (grpo: -1, the probe before round 0)},
    "grpo_probe_rows": [the probe's prompt rows]} — the last checkpoint, the stages finished,
    each stage's last checkpointed round (so a resumed run asking for more rounds of a finished
    stage does them) and the evals done (a run stopped between a checkpoint and its eval does
    that eval first when resumed)."""

    def __init__(self, out):
        self.path = os.path.join(out, "state.json")
        self.data = {"stage": None, "round": -1, "checkpoint": None, "done": [], "rounds": {}, "evals": {}}

    def load(self):
        """The saved state; False when there is none. A state file that is not ours is an error
        (exit 2 through the caller) rather than a silent fresh start."""
        if not os.path.exists(self.path):
            return False
        with open(self.path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict) or not isinstance(data.get("done"), list):
            raise ValueError(f"{self.path}: not a state file (expected an object with \"done\")")
        self.data.update(data)
        return True

    def finished(self, stage, rounds):
        """Whether stage's rounds (0 .. rounds-1) are all checkpointed."""
        return stage in self.data["done"] and self.last_round(stage) >= rounds - 1

    def last_round(self, stage):
        """The last round of stage that was checkpointed, -1 when none."""
        rounds = self.data.get("rounds")
        if isinstance(rounds, dict) and stage in rounds:
            return int(rounds[stage])
        if self.data.get("stage") == stage:
            return int(self.data.get("round", -1))
        return -1

    def save(self, stage, rnd, checkpoint, done=False):
        self.data.update(stage=stage, round=rnd, checkpoint=checkpoint)
        if not isinstance(self.data.get("rounds"), dict):
            self.data["rounds"] = {}
        self.data["rounds"][stage] = max(rnd, self.last_round(stage))
        if done and stage not in self.data["done"]:
            self.data["done"].append(stage)
        self._write()

    def eval_missing(self, grpo_probe=False):
        """(stage, round) of the last checkpoint when it is a round that evals (GRPO's with a
        probe) and its eval was not done, else None."""
        stage, rnd = self.data.get("stage"), self.data.get("round", -1)
        evals = self.data.get("evals") if isinstance(self.data.get("evals"), dict) else {}
        evaluating = ("sft", "selfsup", "grpo") if grpo_probe else ("sft", "selfsup")
        if stage in evaluating and rnd is not None and rnd >= 0 and evals.get(stage, -2) < rnd:
            return stage, rnd
        return None

    def has_eval(self, stage):
        evals = self.data.get("evals")
        return isinstance(evals, dict) and stage in evals

    def save_probe(self, rows):
        self.data["grpo_probe_rows"] = rows
        self._write()

    def save_eval(self, stage, rnd):
        if not isinstance(self.data.get("evals"), dict):
            self.data["evals"] = {}
        self.data["evals"][stage] = rnd
        self._write()

    def _write(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.data, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
