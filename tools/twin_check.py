#!/usr/bin/env python3
"""twin_check.py — checks every task's C reference against its PyTorch twin.

For each task under suite/ (or each --task), exports one instance with
`BUILD/cudal1 suite export ID --shapes S --seed K OUTDIR --device D` (inputs, params and the
reference's outputs as .npy files plus meta.json), builds the task's twin.py with
make(dims, attrs), loads the exported params into its state_dict by name (strict), runs it on
the exported inputs and compares with the task's tolerance: |out - ref| <= atol + rtol * |ref|,
ref = the twin's output. By default the twin runs on the CPU in float64; with
--twin-device cuda it runs on the GPU in float32 with PyTorch's default TF32 settings.
Prints `ok <id> max_abs=.. max_rel=..` or `FAIL <id> reason` per task and ends with
`twin: N passed, N failed`; exits 1 if any failed.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_tasks(suite):
    out = []
    for level in sorted(os.listdir(suite)):
        ldir = os.path.join(suite, level)
        if not os.path.isdir(ldir):
            continue
        for name in sorted(os.listdir(ldir)):
            if os.path.isfile(os.path.join(ldir, name, "task.json")):
                out.append(f"{level}/{name}")
    return out


def load_twin(path):
    spec = importlib.util.spec_from_file_location("twin_" + str(abs(hash(path))), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not hasattr(mod, "make"):
        raise RuntimeError(f"{path}: no make(dims, attrs)")
    return mod


def check_one(args, tid, torch):
    tdir = os.path.join(args.suite, tid)
    with open(os.path.join(tdir, "task.json")) as f:
        task = json.load(f)
    with tempfile.TemporaryDirectory(prefix="cl1twin.") as out:
        cmd = [os.path.join(args.build, "cudal1"), "suite", "export", tid, "--shapes", args.shapes,
               "--seed", str(args.seed), out, "--device", args.device]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
            return False, "export failed: " + (msg[-1] if msg else f"exit {p.returncode}"), {}
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
        tol = task.get("tolerance", {})
        atol = float(meta.get("atol", tol.get("atol", 1e-4)))
        rtol = float(meta.get("rtol", tol.get("rtol", 1e-4)))

        def arrays(group):
            return [(e["name"], np.load(os.path.join(out, e["file"]))) for e in meta[group]]

        inputs, params, outputs = arrays("inputs"), arrays("params"), arrays("outputs")
        twin = load_twin(os.path.join(tdir, "twin.py"))
        model = twin.make(meta["dims"], meta["attrs"])
        if args.twin_device == "cuda":  # attr conv_tf32 = 0: the task's convolutions are full FP32
            torch.backends.cudnn.allow_tf32 = meta["attrs"].get("conv_tf32", 1) != 0
        on_gpu = args.twin_device == "cuda"
        dtype = torch.float32 if on_gpu else torch.float64
        dev = torch.device("cuda" if on_gpu else "cpu")
        model = model.to(device=dev, dtype=dtype)
        sd = model.state_dict()
        given = dict(params)
        missing = [k for k in sd if k not in given]
        extra = [k for k in given if k not in sd]
        if missing or extra:
            return False, f"state_dict mismatch: missing {missing} unexpected {extra}", {}
        new_sd = {}
        for k, v in sd.items():
            if tuple(v.shape) != given[k].shape:
                return False, (f"param {k}: twin shape {tuple(v.shape)} != exported "
                               f"{given[k].shape}"), {}
            new_sd[k] = torch.from_numpy(np.ascontiguousarray(given[k])).to(device=dev, dtype=dtype)
        model.load_state_dict(new_sd, strict=True)
        model.eval()
        xs = [torch.from_numpy(np.ascontiguousarray(a)).to(device=dev, dtype=dtype) for _, a in inputs]
        with torch.no_grad():
            res = model(*xs)
        if not isinstance(res, (tuple, list)):
            res = (res,)
        if len(res) != len(outputs):
            return False, f"twin returned {len(res)} outputs, task has {len(outputs)}", {}
        worst = {"max_abs": 0.0, "max_rel": 0.0}
        for (name, got), want in zip(outputs, res):
            # compare where the twin ran: large shapes hold billions of elements
            want = want.detach().to(dev, torch.float64)
            if tuple(want.shape) != got.shape:
                return False, f"output {name}: twin shape {tuple(want.shape)} != exported {got.shape}", worst
            g = torch.from_numpy(np.ascontiguousarray(got)).to(dev, torch.float64)
            fin_g, fin_w = torch.isfinite(g), torch.isfinite(want)
            if not bool(torch.equal(fin_g, fin_w)):
                return False, f"output {name}: non-finite values differ from the twin's", worst
            if g.numel() == 0:
                continue
            err = torch.where(fin_g, (g - want).abs(), torch.zeros_like(g))
            bound = atol + rtol * want.abs()
            worst["max_abs"] = max(worst["max_abs"], float(err.max()))
            worst["max_rel"] = max(worst["max_rel"],
                                   float((err / want.abs().clamp_min(1e-30)).max()))
            bad = err > bound
            nbad = int(bad.sum())
            if nbad:
                flat = int(torch.argmax(err - bound))
                i = np.unravel_index(flat, tuple(err.shape))
                return False, (f"output {name}: {nbad} of {err.numel()} elements out of "
                               f"tolerance (atol {atol:g} rtol {rtol:g}); worst at {tuple(int(v) for v in i)}: "
                               f"reference {float(g.reshape(-1)[flat]):.8g} twin {float(want.reshape(-1)[flat]):.8g}"), worst
            del g, want, err, bound, bad
        return True, "", worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--suite", default=os.path.join(ROOT, "suite"))
    ap.add_argument("--task", action="append", default=[])
    ap.add_argument("--shapes", default="test", choices=["test", "small", "large"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="host", choices=["host", "cuda"])
    ap.add_argument("--twin-device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.twin_device == "cuda" and args.device != "cuda":
        ap.error("--twin-device cuda needs --device cuda")
    import torch
    if args.twin_device == "cuda":
        # PyTorch's defaults, stated: full FP32 matmul, TF32 in cuDNN convolutions.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = True
    tasks = args.task or find_tasks(args.suite)
    passed = failed = 0
    rows = []
    for tid in tasks:
        try:
            ok, why, stats = check_one(args, tid, torch)
        except Exception as e:  # a broken twin is a failed check, not a crashed run
            ok, why, stats = False, f"{type(e).__name__}: {e}", {}
        stat = " ".join(f"{k}={v:.3g}" for k, v in stats.items())
        if ok:
            passed += 1
            print(f"ok {tid} {stat}")
        else:
            failed += 1
            print(f"FAIL {tid} {why}" + (f" ({stat})" if stat else ""))
        rows.append({"task": tid, "ok": ok, "reason": why, "shapes": args.shapes,
                     "device": args.device, "twin_device": args.twin_device, **stats})
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"shapes": args.shapes, "seed": args.seed, "device": args.device,
                       "twin_device": args.twin_device, "results": rows}, f, indent=1)
    print(f"twin: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
