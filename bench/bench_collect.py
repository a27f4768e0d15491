"""Attempts per minute: the warm forked pool against a fresh interpreter per attempt.

    .venv/bin/python bench/bench_collect.py [--attempts 30]

Both sides run the same attempts (ExportDB examples shipped in torch, exporter `export`)
one at a time, in one run, so the ratio holds even though absolute times vary on these
shared machines. The pool's time includes its one-off warm-up (imports + one export).
Target: at least 10x.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FRESH = """
import sys
from collectors.corpus import source
from collectors.exporters import attempt
case = source("exportdb").build(sys.argv[1])
print(attempt("export", case).outcome)
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--attempts", type=int, default=30)
    args = ap.parse_args()
    from collectors.collect import collect
    from collectors.corpus import source

    ids = [s.id for s in source("exportdb").list_models()][: args.attempts]

    start = time.perf_counter()
    for model_id in ids:
        subprocess.run([sys.executable, "-c", FRESH, model_id], cwd=ROOT, capture_output=True, check=False)
    fresh_s = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        _, tally, total = collect(["exportdb"], ["export"], models=ids, jobs=1, out=Path(tmp) / "bench.jsonl")
        pool_s = time.perf_counter() - start
    assert tally.attempts == len(ids), (tally, len(ids))
    print(json.dumps({
        "benchmark": "collect-warm-pool-vs-fresh-interpreter", "attempts": len(ids),
        "fresh_interpreter_s": round(fresh_s, 1), "warm_pool_s": round(pool_s, 1),
        "fresh_per_minute": round(60 * len(ids) / fresh_s, 1), "pool_per_minute": round(60 * len(ids) / pool_s, 1),
        "speedup": round(fresh_s / pool_s, 1), "target_speedup": 10, "outcomes": tally.counts,
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
