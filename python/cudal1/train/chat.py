"""chat.py — prompts and SFT rows in the shape the trainers read, within the configured lengths.

The service's contrastive prompts (and the SFT rows built from the same builder) run to thousands
of tokens; a prompt longer than max_prompt_len keeps its head (the task, its reference) and its
tail (the exemplars' summary, the answer format) and loses the middle, marked, so the model
always sees which task it is on and what to write. SFT rows become prompt/completion pairs: TRL
then trains on the completion only."""
import json

from .config import EXIT_INPUT, EngineError

CUT = "\n[...]\n"


def prompt_len(tok, messages):
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    return len(ids["input_ids"] if hasattr(ids, "keys") else ids)  # transformers 5: an encoding; 4: ids


def fit_prompt(tok, messages, max_tokens):
    """messages with the longest user turn shortened in its middle so the rendered prompt has at
    most max_tokens tokens."""
    n = prompt_len(tok, messages)
    if n <= max_tokens:
        return messages
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not users:
        raise EngineError(EXIT_INPUT, f"a prompt of {n} tokens has no user turn to shorten to "
                                      f"max_prompt_len {max_tokens}")
    ui = max(users, key=lambda i: len(messages[i]["content"]))
    ids = tok(messages[ui]["content"], add_special_tokens=False)["input_ids"]
    over = n - max_tokens
    for _ in range(4):  # re-encoding the cut text may merge differently: shave until it fits
        keep = len(ids) - over - len(tok(CUT, add_special_tokens=False)["input_ids"])
        if keep < 16:
            raise EngineError(EXIT_INPUT, f"max_prompt_len {max_tokens} is too small: the prompt's "
                                          f"fixed parts alone take {n - len(ids)} tokens",
                              "raise max_prompt_len")
        head = keep * 2 // 3
        text = tok.decode(ids[:head]) + CUT + tok.decode(ids[len(ids) - (keep - head):])
        out = [dict(m) for m in messages]
        out[ui]["content"] = text
        n2 = prompt_len(tok, out)
        if n2 <= max_tokens:
            return out
        over += n2 - max_tokens
    raise EngineError(EXIT_INPUT, f"cannot fit a prompt into max_prompt_len {max_tokens}", "raise max_prompt_len")


def reply_text(completion):
    """The assistant's text of a completion (a string or a chat list)."""
    if isinstance(completion, str):
        return completion
    for m in reversed(completion or []):
        if isinstance(m, dict) and m.get("role", "assistant") == "assistant":
            return str(m.get("content", ""))
    return ""


def _sft_pair(row, path, n):
    """(prompt messages, reply text, task) of one `cudal1 dataset sft` row, either format."""
    if isinstance(row.get("messages"), list) and row["messages"]:
        msgs = row["messages"]
        if msgs[-1].get("role") != "assistant":
            raise EngineError(EXIT_INPUT, f"{path}:{n}: the last message is not the assistant's reply")
        return msgs[:-1], str(msgs[-1].get("content", "")), row.get("task")
    if isinstance(row.get("prompt"), list) and "completion" in row:
        return row["prompt"], reply_text(row["completion"]), row.get("task")
    raise EngineError(EXIT_INPUT, f"{path}:{n}: expected \"messages\" (or \"prompt\" and \"completion\") "
                                  "as `cudal1 dataset sft` writes them")


def load_sft_rows(path):
    """The rows of an SFT jsonl file as (prompt, reply, task) triples; exit 2 naming the line of
    a bad one or an empty file."""
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as e:
                    raise EngineError(EXIT_INPUT, f"{path}:{n}: not JSON ({e})")
                if not isinstance(row, dict):
                    raise EngineError(EXIT_INPUT, f"{path}:{n}: expected a JSON object")
                rows.append(_sft_pair(row, path, n))
    except OSError as e:
        raise EngineError(EXIT_INPUT, f"sft_data {path}: cannot read it ({e.strerror})",
                          "collect solutions into the store first (cudal1 collect), or run a later stage")
    if not rows:
        raise EngineError(EXIT_INPUT, f"sft_data {path}: no rows (the store has no passing solutions "
                                      "for these tasks)", "collect solutions first, or start at --stage selfsup")
    return rows


def sft_dataset(tok, triples, max_prompt_len):
    """A datasets.Dataset of conversational prompt/completion rows (completion-only loss)."""
    from datasets import Dataset
    rows = [{"prompt": fit_prompt(tok, p, max_prompt_len),
             "completion": [{"role": "assistant", "content": r}]} for p, r, _ in triples]
    return Dataset.from_list(rows)
