"""__main__.py — `python3 -m cudal1.train --config OUT/train-config.json`: the engine `cudal1
train` runs as a child. Reads the config, checks the dependencies, runs the TRL or verl engine,
and turns every way of failing into one error event and the contract's exit status:
2 the user's input, 3 the service, 4 out of memory, 5 a missing Python dependency, 130 Ctrl-C."""
import argparse
import importlib
import os
import signal
import sys
import threading
import time
import traceback

from .config import EXIT_DEPS, EXIT_INFRA, EXIT_INPUT, EXIT_OOM, OOM_HINT, PIP_LINE, EngineError, load
from .events import emit, log

TRAIN_DEPS = ("trl", "transformers", "peft", "datasets", "tokenizers", "accelerate", "pyarrow", "torch")


def check_deps(names, pip=PIP_LINE):
    """Imports each module; EngineError(5) with the pip line for the first that fails."""
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as e:
            raise EngineError(EXIT_DEPS, f"the Python package '{name}' cannot be imported ({e})", pip)


def _is_oom(e):
    try:
        import torch
        if isinstance(e, torch.OutOfMemoryError):
            return True
    except ImportError:
        pass
    return isinstance(e, MemoryError) or (isinstance(e, RuntimeError) and "out of memory" in str(e).lower())


def stack_sampler(out, env=os.environ):
    """CUDAL1_TRAIN_STACKS=S: every thread's Python stack written to OUT/stacks.log every S
    seconds, for finding where a slow step's time goes on a machine without a profiler: the
    demo's first generate() of a process took 87-149 s on the H100, its later ones 22-35 s, and
    a bench of generate() alone showed no such cost. A daemon thread that takes the GIL like any
    other (sys._current_frames): faulthandler's watchdog, which reads the frames without it,
    crashed the engine with SIGSEGV within minutes on the H100 (2026-12-07). Returns the thread's
    stop Event, or None when unset."""
    v = env.get("CUDAL1_TRAIN_STACKS")
    if not v:
        return None
    try:
        every = float(v)
    except ValueError:
        every = 0.0
    if not 0 < every < 1e6:
        raise EngineError(EXIT_INPUT, f"CUDAL1_TRAIN_STACKS={v!r}: not a number of seconds above 0")
    os.makedirs(out, exist_ok=True)
    path, stop = os.path.join(out, "stacks.log"), threading.Event()
    t0 = time.monotonic()

    def sample():
        while not stop.wait(every):
            me = threading.get_ident()
            parts = [f"--- {time.monotonic() - t0:.1f} s\n"]
            for ident, frame in sys._current_frames().items():
                if ident != me:
                    parts.append(f"thread {ident}:\n" + "".join(traceback.format_stack(frame)))
            with open(path, "a") as f:
                f.write("".join(parts))

    threading.Thread(target=sample, name="cudal1-stacks", daemon=True).start()
    return stop


def _on_sigterm(signum, frame):
    raise KeyboardInterrupt


def run(cfg):
    """Runs the configured engine; returns the exit status."""
    if cfg["engine"] == "verl":
        from . import verl_engine
        return verl_engine.run(cfg)
    check_deps(TRAIN_DEPS)
    if cfg["vllm_server"]:
        # TRL's server mode syncs weights through vLLM's communicator
        check_deps(["vllm"], "pip install vllm (and serve the model with `trl vllm-serve --model PATH`)")
    from . import trl_engine
    return trl_engine.run(cfg)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m cudal1.train",
                                 description="cudal1's training engine (run by `cudal1 train`)")
    ap.add_argument("--config", required=True, help="OUT/train-config.json")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded, nothing pings the Hub
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        cfg = load(args.config)
        stack_sampler(cfg["out"])
        return run(cfg)
    except EngineError as e:
        emit("error", message=e.message, hint=e.hint or None, code=e.code)
        log(f"error: {e.message}" + (f" ({e.hint})" if e.hint else ""))
        return e.code
    except KeyboardInterrupt:
        emit("error", message="interrupted", hint="continue with --resume", code=130)
        log("interrupted: state.json holds the last checkpoint")
        return 130
    except Exception as e:  # noqa: BLE001 — every failure ends as one event and a status
        if _is_oom(e):
            emit("error", message=f"out of memory: {str(e).splitlines()[0][:300]}", hint=OOM_HINT, code=EXIT_OOM)
            log(f"error: out of memory ({OOM_HINT})")
            return EXIT_OOM
        from ..client import ServiceError
        if isinstance(e, ServiceError):
            emit("error", message=f"the reward service failed: {e}", hint="continue with --resume",
                 code=EXIT_INFRA)
            log(f"error: {e}")
            return EXIT_INFRA
        traceback.print_exc()
        emit("error", message=f"{type(e).__name__}: {e}", hint="a bug in the engine: see the log", code=1)
        return 1


if __name__ == "__main__":
    sys.exit(main())
