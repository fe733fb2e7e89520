"""config.py — OUT/train-config.json as `cudal1 train` writes it (see the contract in the README's
training section): loaded, every key checked for its type and range, and the engine's error type
whose code is the process's exit status.

The C side fills every key; a missing or mistyped one is the user's (or a hand-written file's)
mistake and stops the engine with exit 2 naming the key, never a silent default. The one optional
key is "embedded" ("small", the demo's default model, or "tiny", 2 layers for tests), read only
when "model" is null."""
import json
import os

EXIT_DONE, EXIT_INPUT, EXIT_INFRA, EXIT_OOM, EXIT_DEPS = 0, 2, 3, 4, 5
STAGES = ("sft", "selfsup", "grpo")
PIP_LINE = ("pip install -e python[train]  (or: python3 -m pip install trl==1.16.0 transformers peft "
            "tokenizers datasets pyarrow accelerate)")
OOM_HINT = "lower batch_size, max_completion_len or num_generations (or use lora)"


class EngineError(Exception):
    """An error that ends the engine: code is the exit status (2 input, 3 infrastructure, 4 out of
    memory, 5 a missing dependency), message says what and where, hint what to do."""

    def __init__(self, code, message, hint=""):
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint


def _num(lo=None, whole=False):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return "expected a number"
        if whole and v != int(v):
            return "expected a whole number"
        if lo is not None and v < lo:
            return f"expected >= {lo}"
        return None
    return check


def _oneof(*vals):
    return lambda v: None if v in vals else f"expected one of {', '.join(map(json.dumps, vals))}"


def _typ(t, desc, nullable=False):
    return lambda v: None if isinstance(v, t) or (nullable and v is None) else f"expected {desc}"


def _str_list(v):
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
        return "expected a non-empty list of suite ids"
    return None


def _path(nullable):
    def check(v):
        if v is None and nullable:
            return None
        if not isinstance(v, str) or not v:
            return "expected a path" + (" or null" if nullable else "")
        return None
    return check


def _server(v):
    """vllm_server: null or an http(s) URL."""
    if v is None or (isinstance(v, str) and v.startswith(("http://", "https://"))):
        return None
    return "expected null or an http:// URL"


SCHEMA = {
    "version": _oneof(1),
    "run_id": _num(0, whole=True),
    "stage": _oneof("sft", "selfsup", "grpo", "all"),
    "engine": _oneof("trl", "verl"),
    "model": _path(True),
    "out": _path(False),
    "repo": _path(False),
    "tasks": _str_list,
    "sft_data": _path(True),
    "device": _oneof("cpu", "cuda"),
    "seed": _num(0, whole=True),
    "lora": _typ(bool, "true or false"),
    "static_cache": _typ(bool, "true or false"),
    "lr": _num(0),
    "selfsup_lr": _num(0),
    "rl_lr": _num(0),
    "temperature": _num(0.01),
    "rl_temperature": _num(0.01),
    "rl_batch_size": _num(1, whole=True),
    "sft_epochs": _num(0),
    "sft_max_steps": _num(0, whole=True),
    "selfsup_rounds": _num(0, whole=True),
    "samples_per_task": _num(1, whole=True),
    "grpo_rounds": _num(0, whole=True),
    "grpo_steps_per_round": _num(1, whole=True),
    "num_generations": _num(2, whole=True),
    "exemplars": _num(0, whole=True),
    "max_prompt_len": _num(32, whole=True),
    "max_completion_len": _num(1, whole=True),
    "batch_size": _num(1, whole=True),
    "gen_batch": _num(0, whole=True),
    "sft_exemplars": _num(0, whole=True),
    "vllm_server": _server,
    "resume": _typ(bool, "true or false"),
}
OPTIONAL = {"embedded": ("small", _oneof("small", "tiny")), "grpo_probe": (0, _num(0, whole=True)),
            "grpo_iterations": (1, _num(1, whole=True)), "sft_exemplar_rows": (1, _num(1, whole=True)),
            "mask_truncated": (False, _typ(bool, "true or false"))}


def load(path):
    """The config at path as a dict, checked; EngineError(2) naming the file and key otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
    except OSError as e:
        raise EngineError(EXIT_INPUT, f"{path}: cannot read the config ({e.strerror})")
    except ValueError as e:
        raise EngineError(EXIT_INPUT, f"{path}: not JSON ({e})")
    if not isinstance(cfg, dict):
        raise EngineError(EXIT_INPUT, f"{path}: expected a JSON object")
    return check(cfg, path)


def check(cfg, path="train-config.json"):
    for key, fn in SCHEMA.items():
        if key not in cfg:
            raise EngineError(EXIT_INPUT, f"{path}: \"{key}\": missing")
        why = fn(cfg[key])
        if why:
            raise EngineError(EXIT_INPUT, f"{path}: \"{key}\": {why}, not {json.dumps(cfg[key])[:80]}")
    for key, (dflt, fn) in OPTIONAL.items():
        if key in cfg and fn(cfg[key]):
            raise EngineError(EXIT_INPUT, f"{path}: \"{key}\": {fn(cfg[key])}")
        cfg.setdefault(key, dflt)
    for key in ("out", "repo"):
        if not os.path.isabs(cfg[key]):
            raise EngineError(EXIT_INPUT, f"{path}: \"{key}\": expected an absolute path, not {cfg[key]!r}")
    if not os.path.isdir(cfg["repo"]):
        raise EngineError(EXIT_INPUT, f"{path}: \"repo\": {cfg['repo']} is not a directory")
    if cfg["model"] is not None:
        check_model_dir(cfg["model"])
    return cfg


def check_model_dir(model):
    """A user's checkpoint: a directory with a config, weights and a tokenizer (exit 2 otherwise,
    naming the path and what is missing). Checked before anything heavy is imported."""
    if not os.path.isdir(model):
        raise EngineError(EXIT_INPUT, f"model {model}: no such directory",
                          "give --model a checkpoint directory (config.json, *.safetensors, tokenizer.json), "
                          "or leave it out for the embedded default model")
    files = os.listdir(model)
    if "config.json" not in files:
        raise EngineError(EXIT_INPUT, f"model {model}: no config.json there (not a transformers checkpoint)")
    if not any(f.endswith((".safetensors", ".bin")) for f in files):
        raise EngineError(EXIT_INPUT, f"model {model}: no weights there (*.safetensors)")
    if "tokenizer.json" not in files and "tokenizer_config.json" not in files:
        raise EngineError(EXIT_INPUT, f"model {model}: no tokenizer there (tokenizer.json)",
                          "save the tokenizer beside the weights (tokenizer.save_pretrained(PATH))")
