"""kbtask.py — a KernelBench problem (`class Model`, `get_inputs()`, `get_init_inputs()`) as a
cudal1 task folder: `python3 -m cudal1.kbtask PROBLEM.py DIR [options]`, run by `cudal1 task
import` (src/cli/cmd_task.c) confined to DIR.

The module is run once per shape set: its top-level integers are the task's dims (a set given with
--set NAME:k=v,... rebinds them before get_init_inputs()/get_inputs() are called), shapes come
from a run on PyTorch's meta device (real tensors when an op has no meta kernel and the set is
small), and each input's distribution from the generator that made it (torch.randn is normal(0, 1),
torch.rand uniform(0, 1), torch.randint randint) or, for a derived tensor, from its values. The
module's parameters and float buffers are the task's params, drawn like PyTorch's initialisation
drew them (the range of the values a CPU construction gave). Writes DIR/task.json (the reference
is DIR/reference.py, a copy of the problem) and prints one JSON line of what it found."""
import argparse
import inspect
import json
import math
import os
import re
import shutil
import sys

import torch

_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64",
          torch.int32: "i32", torch.int64: "i64", torch.uint8: "u8", torch.bool: "bool"}
REAL_LIMIT = 1 << 28  # input elements a set may hold and still be run on the CPU (1 GiB of f32)


class ImportError_(Exception):
    """A problem that cannot become a task: the message names what and why."""


def load_module(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("cl1_problem", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for need in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(mod, need):
            raise ImportError_(f"{path}: defines no {need} (a KernelBench problem defines class "
                               f"Model, get_inputs() and get_init_inputs())")
    return mod


def module_dims(mod):
    """Top-level positive ints of the module (not bools, not private): the sizes get_inputs()
    reads. Zero and negative ones (a padding of 0, a clamp bound of -1) are no size: they stay
    constants of the problem."""
    return {k: v for k, v in vars(mod).items()
            if isinstance(v, int) and not isinstance(v, bool) and v >= 1 and not k.startswith("_")
            and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)}


class Tagged:
    """torch's generators wrapped so each tensor they return remembers its distribution."""
    GEN = ("randn", "rand", "randint", "ones", "zeros", "full")

    def __init__(self, device):
        self.device, self.saved, self.tags = device, {}, {}

    def _wrap(self, name, fn):
        def w(*a, **k):
            k.setdefault("device", self.device)
            t = fn(*a, **k)
            self.tags[id(t)] = (name, a, k, t)  # t held: its id is not reused while tagged
            return t
        return w

    def __enter__(self):
        for n in self.GEN:
            self.saved[n] = getattr(torch, n)
            setattr(torch, n, self._wrap(n, self.saved[n]))
        return self

    def __exit__(self, *exc):
        for n, f in self.saved.items():
            setattr(torch, n, f)


def tag_of(tags, x):
    tag = tags.get(id(x))
    return tag if tag is not None and tag[3] is x else None


def init_from_tag(tag):
    name, a, k, _ = tag
    if name == "randn":
        return {"dist": "normal", "mean": 0, "std": 1}
    if name == "rand":
        return {"dist": "uniform", "low": 0, "high": 1}
    if name == "ones":
        return {"dist": "ones"}
    if name == "zeros":
        return {"dist": "zeros"}
    if name == "full":
        return {"dist": "const", "value": float(a[1] if len(a) > 1 else k["fill_value"])}
    if name == "randint":  # randint(high, size) or randint(low, high, size)
        ints = [x for x in a if isinstance(x, int)]
        low, high = (0, ints[0]) if len(ints) == 1 else (ints[0], ints[1])
        return {"dist": "randint", "low": low, "high": high}
    return None


def init_from_values(t):
    """A distribution that draws values like these (derived tensors, parameters)."""
    if t.dtype == torch.bool:
        return {"dist": "bernoulli", "p": round(float(t.float().mean()), 4)}
    if not t.is_floating_point():
        return {"dist": "randint", "low": int(t.min()), "high": int(t.max()) + 1}
    x = t.detach().double().flatten()
    lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        return {"dist": "ones"} if lo == 1 else {"dist": "zeros"} if lo == 0 else \
            {"dist": "const", "value": lo}
    mean, std = float(x.mean()), float(x.std()) if x.numel() > 1 else 0.0
    # a normal keeps ~68% within one std and has tails past 2.5 std; a uniform ~58% and none
    within = float(((x - mean).abs() <= std).double().mean()) if std > 0 else 1.0
    tails = float(((x - mean).abs() > 2.5 * std).double().mean()) if std > 0 else 0.0
    if x.numel() >= 64 and within > 0.64 and tails > 0.004:
        return {"dist": "normal", "mean": round(mean, 6), "std": round(std, 6)}
    return {"dist": "uniform", "low": lo, "high": hi}


def run_set(mod, dims, real):
    """get_init_inputs(), get_inputs() and a forward at these dims: (init, inputs, tags, model,
    outputs). real: run on the CPU (values available), else on the meta device."""
    for k, v in dims.items():
        setattr(mod, k, v)
    dev = "cpu" if real else "meta"
    torch.manual_seed(0)
    init = list(mod.get_init_inputs())
    with Tagged(dev) as tg:
        with torch.device(dev):
            inputs = list(mod.get_inputs())
    with torch.device(dev):
        model = mod.Model(*init)
    with torch.no_grad():
        tensors = [x.to(dev) if isinstance(x, torch.Tensor) else x for x in inputs]
        out = model(*tensors)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for i, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            raise ImportError_(f"Model.forward's output {i} is a {type(o).__name__}, not a tensor")
    return init, inputs, tg.tags, model, outs


def inputs_numel(mod, dims):
    """get_inputs()'s elements at these dims, counted on the meta device."""
    for k, v in dims.items():
        setattr(mod, k, v)
    with torch.device("meta"):
        return numel_of(list(mod.get_inputs()))


def numel_of(inputs):
    return sum(x.numel() for x in inputs if isinstance(x, torch.Tensor))


def shape_exprs(values_per_set, dims_per_set):
    """Each shape entry as the dim name equal to it in every set, else the number (which must
    then be the same in every set)."""
    sets = list(values_per_set)
    n = len(values_per_set[sets[0]])
    out = []
    for i in range(n):
        vals = {s: values_per_set[s][i] for s in sets}
        name = next((d for d in dims_per_set[sets[0]]
                     if all(dims_per_set[s].get(d) == vals[s] for s in sets)), None)
        if name is None and len(set(vals.values())) > 1:
            raise ImportError_(f"a shape entry ({vals}) follows no single module-level integer "
                               f"across the sets")
        out.append(name if name is not None else vals[sets[0]])
    return out


def jsonable(v, what):
    try:
        json.dumps(v)
        return v
    except TypeError:
        raise ImportError_(f"{what} ({v!r}) is not a number, string, bool or list of them: "
                           f"cudal1 passes constructor arguments as JSON")


def parse_sets(specs, base):
    sets = {"small": dict(base)}
    for s in specs:
        name, _, kv = s.partition(":")
        if name not in ("test", "small", "large"):
            raise ImportError_(f"--set {s}: the set must be test, small or large")
        d = dict(base)
        for pair in filter(None, kv.split(",")):
            k, _, v = pair.partition("=")
            if k not in base:
                raise ImportError_(f"--set {s}: '{k}' is not a module-level integer of the "
                                   f"problem (those are: {', '.join(sorted(base))})")
            d[k] = int(v)
        sets[name] = d
    sets.setdefault("large", dict(sets["small"]))
    sets.setdefault("test", dict(sets["small"]))
    return sets


def tensor_entry(name, t, shape, init):
    e = {"name": name, "dtype": _NAMES.get(t.dtype), "shape": shape}
    if e["dtype"] is None:
        raise ImportError_(f"{name}: dtype {t.dtype} is not one cudal1 generates")
    if init is not None:
        e["init"] = init
    return e


def build(args):
    mod = load_module(args.problem)
    base = module_dims(mod)
    sets = parse_sets(args.set or [], base)
    runs = {}
    for s in ("test", "small", "large"):
        try:
            meta = run_set(mod, sets[s], real=False)
        except Exception:  # an op without a meta kernel, a CPU tensor made inside forward, ...
            meta = None    # only a real run can tell
        real = None
        if meta is None or any(tag_of(meta[2], x) is None for x in meta[1]
                               if isinstance(x, torch.Tensor)):
            size = numel_of(meta[1]) if meta is not None else inputs_numel(mod, sets[s])
            if size > REAL_LIMIT:
                raise ImportError_(f"set {s}: {size} input elements, too many to run on the CPU "
                                   f"(needed: {'an op has no meta kernel' if meta is None else 'an input is derived from a generator, not made by one'}); "
                                   f"import with a smaller --set")
            real = run_set(mod, sets[s], real=True)
        runs[s] = (meta, real)
    return describe(args, mod, sets, runs)


def describe(args, mod, sets, runs):
    ref = runs["small"][1] or runs["small"][0]
    init, inputs, tags, _, outs = ref
    sig = [p for p in inspect.signature(mod.Model.forward).parameters][1:]
    tensor_pos = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
    scalars = [[i, jsonable(x, f"get_inputs()[{i}]")] for i, x in enumerate(inputs)
               if not isinstance(x, torch.Tensor)]
    dims = {s: sets[s] for s in sets}

    def shapes(group):
        per = {}
        for s in sets:
            _, ins, _, model, os_ = runs[s][0] or runs[s][1]
            if group == "in":
                per[s] = [list(ins[i].shape) for i in tensor_pos]
            elif group == "out":
                per[s] = [list(o.shape) for o in os_]
            else:
                per[s] = [list(v.shape) for v in model.state_dict().values() if v.is_floating_point()]
        return [shape_exprs({s: per[s][k] for s in sets}, dims) for k in range(len(per["small"]))]

    in_shapes, out_shapes, par_shapes = shapes("in"), shapes("out"), shapes("par")
    real = runs["small"][1]
    entries_in = []
    for k, i in enumerate(tensor_pos):
        x = inputs[i]
        tag = tag_of((runs["small"][0] or runs["small"][1])[2], x)
        dist = init_from_tag(tag) if tag else init_from_values(real[1][i])
        name = sig[i] if i < len(sig) and not sig[i].startswith("*") else f"x{i}"
        entries_in.append(tensor_entry(name, x, in_shapes[k], dist))
    # constructed afresh, not the CPU run's model: its forward (training mode) moved BatchNorm's
    # running statistics off their initial constants
    torch.manual_seed(0)
    for k, v in dims["small"].items():
        setattr(mod, k, v)
    sd_model = mod.Model(*mod.get_init_inputs()) if numel_of(
        list(ref[3].state_dict().values())) <= REAL_LIMIT else None
    params = []
    fl = [(n, v) for n, v in ref[3].state_dict().items() if v.is_floating_point()]
    for k, (n, v) in enumerate(fl):
        dist = init_from_values(sd_model.state_dict()[n]) if sd_model is not None else \
            {"dist": "uniform", "low": -1.0 / math.sqrt(max(1, v[0].numel() if v.dim() else 1)),
             "high": 1.0 / math.sqrt(max(1, v[0].numel() if v.dim() else 1))}
        params.append(tensor_entry(n, v, par_shapes[k], dist))
    outputs = [tensor_entry(f"out{k}" if len(outs) > 1 else "out", o, out_shapes[k], None)
               for k, o in enumerate(outs)]
    half = any(e["dtype"] in ("f16", "bf16") for e in entries_in + outputs)
    tol = args.atol if args.atol is not None else (1e-2 if half else 1e-4)
    rtol = args.rtol if args.rtol is not None else (1e-2 if half else 1e-4)
    name, number = task_name(args)
    task = {
        "name": name, "level": args.level, "number": number,
        "description": f"KernelBench-format problem {os.path.basename(args.problem)} (a PyTorch "
                       f"Model run as the reference)",
        "dims": {s: dims[s] for s in ("test", "small", "large")},
        "inputs": entries_in, "params": params, "outputs": outputs,
        "tolerance": {"atol": tol, "rtol": rtol},
        # KernelBench's harness never calls .eval(): its modules run in training mode (BatchNorm
        # on the batch's statistics) unless --mode eval (inference: the running statistics)
        "python": {"reference": "reference.py", "class": "Model",
                   "train_mode": args.mode == "train",
                   "init": {s: jsonable(list(runs[s][0][0] if runs[s][0] else runs[s][1][0]),
                                        "get_init_inputs()")
                            for s in ("test", "small", "large")}},
        "source": os.path.abspath(args.problem),
    }
    if scalars:
        task["python"]["scalars"] = scalars
    if not dims["small"]:
        task["dims"] = {s: {"one": 1} for s in ("test", "small", "large")}
    return task


def task_name(args):
    stem = re.sub(r"[^A-Za-z0-9_]", "_", os.path.splitext(os.path.basename(args.problem))[0])
    m = re.match(r"(\d+)_", stem)
    number = args.number or (int(m.group(1)) if m else 1)
    name = args.name or (stem if m and int(m.group(1)) == number else f"{number}_{stem}")
    if not name.startswith(f"{number}_"):
        name = f"{number}_{name}"
    return name, number


def main(argv=None):
    ap = argparse.ArgumentParser(prog="cudal1 task import")
    ap.add_argument("problem")
    ap.add_argument("dir")
    ap.add_argument("--name")
    ap.add_argument("--level", type=int, default=1, choices=(1, 2, 3))
    ap.add_argument("--number", type=int)
    ap.add_argument("--set", action="append", help="NAME:dim=value,... (test, small, large)")
    ap.add_argument("--atol", type=float)
    ap.add_argument("--rtol", type=float)
    ap.add_argument("--mode", choices=("train", "eval"), default="train")
    args = ap.parse_args(argv)
    try:
        task = build(args)
    except ImportError_ as e:
        sys.stderr.write(f"{args.problem}: {e}\n")
        return 1
    except Exception as e:  # the problem's own code failed: say where
        sys.stderr.write(f"{args.problem}: running the problem failed: {type(e).__name__}: {e}\n")
        return 1
    os.makedirs(args.dir, exist_ok=True)
    shutil.copyfile(args.problem, os.path.join(args.dir, "reference.py"))
    with open(os.path.join(args.dir, "task.json"), "w") as f:
        json.dump(task, f, indent=1)
        f.write("\n")
    print(json.dumps({"name": task["name"], "inputs": len(task["inputs"]),
                      "params": len(task["params"]), "outputs": len(task["outputs"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
