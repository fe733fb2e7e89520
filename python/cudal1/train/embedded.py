"""embedded.py — the default model when the user gives none, built offline from the project
itself: a byte-level BPE tokenizer trained with `tokenizers` on the repository's own C/CUDA
solutions, references and prompt texts, and a small Llama-architecture decoder initialised from a
config with the seed. Saved as an ordinary transformers checkpoint (config.json,
model.safetensors, tokenizer.json, generation_config.json), so every later stage, and a user,
loads it by path.

A model this size learns the corpus, not CUDA: it is here so the pipeline runs on a fresh machine
with nothing downloaded.

    python3 -m cudal1.train.embedded REPO OUT_DIR [--size tiny|small] [--seed N]"""
import glob
import hashlib
import json
import os
import sys

# the chat format: role markers and the end of a turn are special tokens, so the rendered prompt
# is a token prefix of prompt + reply (SFT's completion mask needs that) and generation stops at
# the end-of-turn token
SPECIAL = ["<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>"]
EOS, PAD = "<|end|>", "<|pad|>"
CHAT_TEMPLATE = (
    "{%- for m in messages -%}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}")

# vocab: the BPE's target size (it may stop short on a small corpus); positions: the longest
# prompt + reply (RoPE, so no weights grow with it). A contrastive prompt with an exemplar and the
# reference runs to ~3,000 tokens of the small vocabulary, and a reply to ~1,300: the demo's
# 4,096 ran past the end (transformers warned, generation went on unchecked).
SIZES = {
    "tiny": dict(vocab=2048, hidden_size=128, intermediate_size=344, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=8192),
    "small": dict(vocab=8192, hidden_size=512, intermediate_size=1408, num_hidden_layers=8,
                  num_attention_heads=8, num_key_value_heads=8, max_position_embeddings=8192),
}
CORPUS = ["tests/legit/**/*", "tests/gpu/candidates/**/*", "examples/**/*", "suite/**/*.c",
          "suite/**/*.py", "prompts/*.txt", "include/cudal1/*.h"]
TEXT_EXT = (".c", ".cu", ".h", ".cuh", ".py", ".txt", ".jsonl", ".json")


def corpus_files(repo):
    """The corpus, sorted so the tokenizer is the same on every machine."""
    files = set()
    for pat in CORPUS:
        for p in glob.glob(os.path.join(repo, pat), recursive=True):
            if os.path.isfile(p) and p.endswith(TEXT_EXT):
                files.add(p)
    return sorted(files)


def corpus_hash(repo):
    """Names the corpus's content: a changed corpus rebuilds the model."""
    h = hashlib.sha256()
    for p in corpus_files(repo):
        h.update(os.path.relpath(p, repo).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def train_tokenizer(repo, vocab_size):
    """A PreTrainedTokenizerFast with the chat template, eos and pad set."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    files = corpus_files(repo)
    if not files:
        raise FileNotFoundError(f"{repo}: no corpus files for the embedded tokenizer ({', '.join(CORPUS)})")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)

    def texts():
        for p in files:
            with open(p, encoding="utf-8", errors="replace") as f:
                yield f.read()

    tok.train_from_iterator(texts(), trainer=trainer, length=len(files))
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, pad_token=PAD,
                                   chat_template=CHAT_TEMPLATE, clean_up_tokenization_spaces=False,
                                   model_max_length=max(s["max_position_embeddings"] for s in SIZES.values()))


def build_model(tokenizer, size, seed):
    """A freshly initialised LlamaForCausalLM for tokenizer (vocab_size = len(tokenizer))."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
    s = dict(SIZES[size])
    s.pop("vocab")
    eos, pad = tokenizer.convert_tokens_to_ids(EOS), tokenizer.convert_tokens_to_ids(PAD)
    cfg = LlamaConfig(vocab_size=len(tokenizer), tie_word_embeddings=True, bos_token_id=None,
                      eos_token_id=eos, pad_token_id=pad, **s)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(cfg)
    model.generation_config = GenerationConfig(eos_token_id=eos, pad_token_id=pad, do_sample=True)
    return model


def build(repo, out_dir, size="small", seed=0):
    """Writes the embedded model to out_dir (a checkpoint directory); returns out_dir. An existing
    complete build is reused: the same repo, size and seed give the same model."""
    marker = os.path.join(out_dir, "embedded.txt")
    # the size's whole entry, so that a changed SIZES entry rebuilds
    want = f"size={size} {json.dumps(SIZES[size], sort_keys=True)} seed={seed} corpus={corpus_hash(repo)}\n"
    if os.path.exists(marker) and open(marker, encoding="utf-8").read() == want:
        return out_dir
    tok = train_tokenizer(repo, SIZES[size]["vocab"])
    model = build_model(tok, size, seed)
    os.makedirs(out_dir, exist_ok=True)
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    with open(marker, "w", encoding="utf-8") as f:  # last: its presence means the build finished
        f.write(want)
    return out_dir


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m cudal1.train.embedded", description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("out")
    ap.add_argument("--size", choices=sorted(SIZES), default="small")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    build(a.repo, a.out, a.size, a.seed)
    n = sum(p.numel() for p in __import__("transformers").AutoModelForCausalLM.from_pretrained(a.out).parameters())
    print(f"{a.out}: {a.size} Llama, {n / 1e6:.1f} M parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
