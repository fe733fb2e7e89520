#!/usr/bin/env python3
"""twin_check.py — checks every task's C reference against its PyTorch twin.

For each task under suite/ (or each --task), exports one instance with
`BUILD/cudal1 suite export ID --shapes S --seed K OUTDIR --device D` (inputs, params and the
reference's outputs as .npy files plus meta.json), builds the task's twin.py with
make(dims, attrs), loads the exported params into its state_dict by name (strict), runs it on
the exported inputs and compares with the task's tolerance: |out - ref| <= atol + rtol * |ref|,
ref = the twin's output. By default the twin runs on the CPU in float64; with
--twin-device cuda it runs on the GPU in float32 with PyTorch's default TF32 settings.
Prints `ok <id> max_abs=.. max_rel=.. max_ratio=..` (max_ratio: the largest error over its
bound atol + rtol * |ref|; below 1 passes) or `FAIL <id> reason` per task and ends with
`twin: N passed, N failed`; exits 1 if any failed.

--variant NAME exports the instance under a verification variant (docs/verify-variants.md):
tasks the variant does not change print `n/a`; a reference output that is not finite is a
failure (the reference is ill-defined there); tasks whose task.json opts out of the variant
are marked `[opted out]` and do not count as failures (the run re-measures them). --inits
small checks at the shape set's dims with the small set's inits (what verification draws at
`small`), through a temporary copy of the task whose init_test overrides are replaced.
--timeout S reports a task whose export takes longer as `timeout` (not checked, not failed).
"""
import argparse
import importlib.util
import json
import os
import shutil
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


def inits_suite(args, tid, task, root):
    """A suite under root holding tid with every tensor's init_<shapes> replaced by the init the
    `inits` set uses, and the task's siblings linked (a reference may live in one)."""
    level, name = tid.split("/")
    src_level = os.path.join(args.suite, level)
    os.makedirs(os.path.join(root, level, name))
    for other in os.listdir(src_level):
        if other != name:
            os.symlink(os.path.join(src_level, other), os.path.join(root, level, other))
    for f in os.listdir(os.path.join(src_level, name)):
        if f != "task.json":
            os.symlink(os.path.join(src_level, name, f), os.path.join(root, level, name, f))
    task = json.loads(json.dumps(task))
    for group in ("inputs", "params"):
        for t in task.get(group, []):
            init = t.get("init_" + args.inits, t["init"])
            t.pop("init_" + args.shapes, None)
            t["init_" + args.shapes] = init
    with open(os.path.join(root, level, name, "task.json"), "w") as f:
        json.dump(task, f, indent=1)


def export(args, tid, task, out, variant=None):
    """Runs cudal1 suite export (under args.variant unless variant says); returns (ok, message)."""
    variant = args.variant if variant is None else variant
    cmd = [os.path.join(args.build, "cudal1"), "suite", "export", tid, "--shapes", args.shapes,
           "--seed", str(args.seed), out, "--device", args.device]
    if variant != "none":
        cmd += ["--variant", variant]
    env = dict(os.environ)
    if args.inits and args.inits != args.shapes:
        root = out + ".suite"
        inits_suite(args, tid, task, root)
        env["CUDAL1_SUITE"] = root
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {args.timeout:g} s"
    finally:
        if args.inits and args.inits != args.shapes:
            shutil.rmtree(out + ".suite", ignore_errors=True)
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return False, msg[-1] if msg else f"exit {p.returncode}"
    return True, ""


def magnitude(a):
    """The judge's magnitude (src/eval/verify.c, cl1_cmp_magnitude): RMS and largest absolute
    value of the finite values of at most 2^20 evenly strided elements."""
    a = a.reshape(-1).astype(np.float64)
    step = a.size // (1 << 20) if a.size > (1 << 20) else 1
    a = a[::step]
    a = a[np.isfinite(a)]
    return (float(np.sqrt(np.mean(a * a))), float(np.abs(a).max())) if a.size else (0.0, 0.0)


def atol_scale(own, var):
    """How much the judge widens atol on the `wide` and `extreme` checks (src/eval/judge.c,
    scaled_tolerance): the outputs' growth over the task's own draw, by RMS or by largest value,
    whichever grew more, never below 1."""
    k = 1.0
    for o, w in zip(magnitude(own), magnitude(var)):
        if o > 0 and w / o > k:
            k = w / o
    return k


def check_one(args, tid, torch):
    tdir = os.path.join(args.suite, tid)
    with open(os.path.join(tdir, "task.json")) as f:
        task = json.load(f)
    with tempfile.TemporaryDirectory(prefix="cl1twin.") as out:
        ok, msg = export(args, tid, task, out)
        if not ok:
            if "does not apply" in msg or "timed out after" in msg:
                return None, msg, {}
            return False, "export failed: " + msg, {}
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
        tol = task.get("tolerance", {})
        atol = float(meta.get("atol", tol.get("atol", 1e-4)))
        rtol = float(meta.get("rtol", tol.get("rtol", 1e-4)))

        def arrays(group, d=out, m=meta):
            return [(e["name"], np.load(os.path.join(d, e["file"]))) for e in m[group]]

        inputs, params, outputs = arrays("inputs"), arrays("params"), arrays("outputs")
        atols = [atol] * len(outputs)
        if args.variant in ("wide", "extreme"):  # the judge's atol there (scaled_tolerance)
            base = out + ".own"
            ok, msg = export(args, tid, task, base, "none")
            if not ok:
                return False, "export failed (the task's own draw): " + msg, {}
            with open(os.path.join(base, "meta.json")) as f:
                own = arrays("outputs", base, json.load(f))
            shutil.rmtree(base, ignore_errors=True)
            atols = [atol * atol_scale(o, w) for (_, o), (_, w) in zip(own, outputs)]
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
        worst = {"max_abs": 0.0, "max_rel": 0.0, "max_ratio": 0.0}
        if args.variant != "none":  # the reference must be well-defined on the variant's inputs
            for name, got in outputs:
                nonfin = int(np.size(got) - np.count_nonzero(np.isfinite(got.astype(np.float64))))
                if nonfin:
                    return False, (f"output {name}: the reference gives {nonfin} non-finite values "
                                   f"of {np.size(got)}"), worst
        for k, ((name, got), want) in enumerate(zip(outputs, res)):
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
            bound = atols[k] + rtol * want.abs()
            worst["max_abs"] = max(worst["max_abs"], float(err.max()))
            worst["max_rel"] = max(worst["max_rel"],
                                   float((err / want.abs().clamp_min(1e-30)).max()))
            worst["max_ratio"] = max(worst["max_ratio"], float((err / bound.clamp_min(1e-300)).max()))
            bad = err > bound
            nbad = int(bad.sum())
            if nbad:
                flat = int(torch.argmax(err - bound))
                i = np.unravel_index(flat, tuple(err.shape))
                return False, (f"output {name}: {nbad} of {err.numel()} elements out of "
                               f"tolerance (atol {atols[k]:g} rtol {rtol:g}); worst at {tuple(int(v) for v in i)}: "
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
    ap.add_argument("--variant", default="none",
                    choices=["none", "off_default", "offset", "wide", "extreme"])
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds an export may take; a task past it is reported, not failed")
    ap.add_argument("--inits", default=None, choices=["test", "small", "large"],
                    help="draw with this set's inits at --shapes dims (default: --shapes' own)")
    args = ap.parse_args()
    if args.twin_device == "cuda" and args.device != "cuda":
        ap.error("--twin-device cuda needs --device cuda")
    import torch
    if args.twin_device == "cuda":
        # PyTorch's defaults, stated: full FP32 matmul, TF32 in cuDNN convolutions.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = True
    tasks = args.task or find_tasks(args.suite)
    passed = failed = na = optout_failed = timeouts = 0
    rows = []
    for tid in tasks:
        try:
            ok, why, stats = check_one(args, tid, torch)
        except Exception as e:  # a broken twin is a failed check, not a crashed run
            ok, why, stats = False, f"{type(e).__name__}: {e}", {}
        optout = None
        if args.variant != "none":
            with open(os.path.join(args.suite, tid, "task.json")) as f:
                optout = json.load(f).get("verify_variants", {}).get(args.variant)
        mark = " [opted out]" if optout else ""
        stat = " ".join(f"{k}={v:.3g}" for k, v in stats.items())
        if ok is None and "timed out" in why:
            timeouts += 1
            print(f"timeout {tid} export {why}{mark}")
        elif ok is None:
            na += 1
            print(f"n/a {tid}{mark}")
        elif ok:
            passed += 1
            print(f"ok {tid} {stat}{mark}")
        elif optout:
            optout_failed += 1
            print(f"FAIL {tid} {why}" + (f" ({stat})" if stat else "") + mark)
        else:
            failed += 1
            print(f"FAIL {tid} {why}" + (f" ({stat})" if stat else ""))
        rows.append({"task": tid, "ok": ok, "reason": why, "shapes": args.shapes,
                     "device": args.device, "twin_device": args.twin_device,
                     "variant": args.variant, "opted_out": optout, **stats})
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"shapes": args.shapes, "seed": args.seed, "device": args.device,
                       "twin_device": args.twin_device, "variant": args.variant,
                       "inits": args.inits or args.shapes, "results": rows}, f, indent=1)
    extra = ""
    if args.variant != "none":
        extra = f", {na} n/a, {optout_failed} failed where opted out"
    if timeouts:
        extra += f", {timeouts} timed out (not checked)"
    print(f"twin: {passed} passed, {failed} failed{extra}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
