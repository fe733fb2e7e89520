"""parquet.py — `cudal1 dataset rl --format verl-jsonl` rows to the parquet file verl reads.

    python -m cudal1.parquet rl.jsonl rl.parquet

Needs pyarrow (pip install "cudal1[parquet]"). The nested columns (prompt: a chat list,
reward_model, extra_info) keep their structure, as verl's RLHFDataset expects."""
import json
import sys


def write_rows(rows, dst, src="rows"):
    """Writes verl-layout rows (dicts) to the parquet file dst; returns the number of rows. src
    names the rows' origin in a message about a malformed one."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise SystemExit(f"cudal1.parquet: pyarrow is needed ({e}); pip install 'cudal1[parquet]'")
    for n, r in enumerate(rows, 1):
        for k in ("data_source", "prompt", "reward_model"):
            if k not in r:
                raise SystemExit(f"cudal1.parquet: {src}: row {n}: missing '{k}' (verl-jsonl rows)")
    pq.write_table(pa.Table.from_pylist(rows), dst)
    return len(rows)


def jsonl_to_parquet(src, dst):
    """Writes dst from the JSONL rows in src; returns the number of rows."""
    rows = []
    with open(src, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                raise SystemExit(f"cudal1.parquet: {src}:{n}: not JSON ({e})")
    return write_rows(rows, dst, src)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m cudal1.parquet IN.jsonl OUT.parquet", file=sys.stderr)
        return 2
    n = jsonl_to_parquet(argv[0], argv[1])
    print(f"{n} rows -> {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
