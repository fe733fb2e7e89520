#!/usr/bin/env python3
"""bench/generate_speed.py — where the train demo's generate() time goes (issue 21).

On the H100 (bench/results/h100/train-demo-mu2.*) the first generate() of a kind in a process
took 87-149 s and each 80-sample probe 128-171 s, while GRPO's later steps generated 40 replies of
up to 2,048 tokens in 22-35 s. A guess, not yet measured: the KV cache grown a token at a time
asks the CUDA caching allocator for blocks of new sizes at every step until it has met them, each
a cudaMalloc. This bench measures it. For each KV cache (dynamic: grown a token at a time,
transformers' default; static: allocated once at its full length, `cudal1 train --static-cache`)
and each batch, two generate() calls in one process on the same prompts, each forced to
--new-tokens tokens: the first call against the second is the first-call cost, and the
allocator's own count of device allocations (torch.cuda.memory_stats num_device_alloc) during
each call says whether new blocks were the cause.

usage: python3 bench/generate_speed.py [--model PATH | --embedded small|tiny] [--device cuda|cpu]
         [--batches 40,80] [--prompt-len N] [--new-tokens N] [--caches dynamic,static] [--out F]
The model: a checkpoint directory, or the embedded model built offline into a temporary folder.
Prints one JSON object (and writes it to --out)."""
import argparse
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def allocations(torch, device):
    """The caching allocator's count of device allocations so far (None off CUDA)."""
    if device != "cuda":
        return None
    return torch.cuda.memory_stats().get("num_device_alloc")


def timed_generate(torch, model, ids, mask, new_tokens, cache, device, seed):
    """One generate() call forced to new_tokens tokens: (seconds, device allocations in it)."""
    kw = dict(do_sample=True, temperature=0.8, top_k=0, top_p=1.0, max_new_tokens=new_tokens,
              min_new_tokens=new_tokens, pad_token_id=model.generation_config.pad_token_id)
    if cache == "static":
        kw.update(cache_implementation="static", disable_compile=True)
    torch.manual_seed(seed)
    if device == "cuda":
        torch.cuda.synchronize()
    a0, t0 = allocations(torch, device), time.perf_counter()
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, **kw)
    if device == "cuda":
        torch.cuda.synchronize()
    dt, a1 = time.perf_counter() - t0, allocations(torch, device)
    assert out.shape[1] == ids.shape[1] + new_tokens, out.shape
    return dt, (a1 - a0) if a0 is not None else None


def prompts(torch, vocab, batch, length, pad, device):
    """batch prompts of random tokens (never the pad), left-padded to length: a quarter of them
    shorter by up to half, as a batch of contrastive prompts is."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, vocab, (batch, length), generator=g)
    ids[ids == pad] = (pad + 1) % vocab
    mask = torch.ones_like(ids)
    for i in range(0, batch, 4):
        cut = int(torch.randint(0, length // 2, (1,), generator=g))
        ids[i, :cut], mask[i, :cut] = pad, 0
    return ids.to(device), mask.to(device)


def load(args, tmp):
    import torch
    from transformers import AutoModelForCausalLM
    path = args.model
    if not path:
        from cudal1.train import embedded
        path = embedded.build(ROOT, os.path.join(tmp, "model"), args.embedded)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).to(args.device)
    model.eval()
    return path, model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model")
    ap.add_argument("--embedded", choices=("small", "tiny"), default="small")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--batches", default="40,80")
    ap.add_argument("--prompt-len", type=int, default=2000)
    ap.add_argument("--new-tokens", type=int, default=512)
    ap.add_argument("--caches", default="dynamic,static")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    import torch
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("bench/generate_speed.py: --device cuda, but torch sees no GPU (use --device cpu)")
    batches = [int(b) for b in args.batches.split(",")]
    caches = args.caches.split(",")
    if any(c not in ("dynamic", "static") for c in caches) or any(b < 1 for b in batches):
        sys.exit("bench/generate_speed.py: --caches takes dynamic,static and --batches positive numbers")
    with tempfile.TemporaryDirectory() as tmp:
        path, model = load(args, tmp)
        vocab, pad = model.config.vocab_size, model.generation_config.pad_token_id
        # the process's one-time CUDA and kernel start, apart from what is measured
        ids, mask = prompts(torch, vocab, 1, 16, pad, args.device)
        warm_s, _ = timed_generate(torch, model, ids, mask, 8, "dynamic", args.device, 0)
        rows = []
        for batch in batches:
            ids, mask = prompts(torch, vocab, batch, args.prompt_len, pad, args.device)
            for cache in caches:
                for call in (1, 2):
                    dt, allocs = timed_generate(torch, model, ids, mask, args.new_tokens, cache,
                                                args.device, call)
                    rows.append({"batch": batch, "cache": cache, "call": call, "s": round(dt, 3),
                                 "ms_per_token_step": round(1e3 * dt / args.new_tokens, 3),
                                 "device_allocations": allocs})
                    print(json.dumps(rows[-1]), file=sys.stderr)
    doc = {"tool": "bench/generate_speed.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "model": args.model or f"embedded {args.embedded}", "device": args.device,
           "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None,
           "torch": torch.__version__, "prompt_len": args.prompt_len, "new_tokens": args.new_tokens,
           "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF"), "warm_up_s": round(warm_s, 3),
           "rows": rows}
    text = json.dumps(doc, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
