"""Matcher latency on a 200-line traceback, in process: p50 and p95 over 1,000 queries.

    .venv/bin/python bench/bench_matcher.py [--queries 1000] [--scale 100]

Each query is the last 200 lines of a real traceback recorded for an entry's failing
script (topped up with frames when shorter), with a CI timestamp and rank prefix on every
line, so the matcher does the same work as for a user's paste of a CI log. Target: p95 under 20 ms.

`--scale N` runs the same queries against a catalogue N times larger: every entry, its
patterns, its observed texts and the train reports copied N times under new ids. Each
copy's patterns and texts carry a token of their own, so that no two documents or
patterns are identical (a real catalogue of that size would share even less vocabulary,
which only shortens the index's posting lists).
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

from kb.build import ensure_built, load_matcher, matcher_inputs  # noqa: E402
from kb.matcher import EntryRef, Matcher  # noqa: E402
from kb.observations import read_observations  # noqa: E402
from kb import paths  # noqa: E402


def traceback_of(lines: int, recorded: str, rng: random.Random) -> str:
    """A `lines`-long paste: the end of a real recorded traceback, topped up with frames."""
    tail = recorded.strip().split("\n")[-lines:]
    frames = []
    while len(frames) + len(tail) < lines:
        frames.append(f'  File "/home/user/.venv/lib/python3.11/site-packages/torch/_dynamo/mod{rng.randint(0, 99)}.py", line {rng.randint(1, 5000)}, in fn_{len(frames)}')
        frames.append(f"    result = self.step_{len(frames)}(*args, **kwargs)")
    body = ["Traceback (most recent call last):", *frames, *tail][-lines:]
    return "\n".join(f"2024-05-01T10:00:00Z [rank0]: {line}" for line in body)


def scaled_matcher(db: Path, scale: int) -> Matcher:
    """kb.db's matcher with its catalogue and every learned text copied `scale` times."""
    refs, learned, unexplained = matcher_inputs(db)
    big_refs, big_texts, big_unexplained = [], {}, []
    for k in range(scale):
        tag = f"variant{k}"
        for r in refs:
            eid = r.id if k == 0 else f"{r.id}-{tag}"
            big_refs.append(EntryRef(eid, r.title, r.exporters,
                                     r.patterns if k == 0 else tuple(f"{p}(?:{tag})?" for p in r.patterns),
                                     r.prose if k == 0 else f"{r.prose} {tag}", r.tags))
            big_texts[eid] = [t if k == 0 else f"{t} {tag}" for t in learned.get(r.id, ())]
        big_unexplained += [t if k == 0 else f"{t} {tag}" for t in unexplained]
    return Matcher(big_refs, big_texts, big_unexplained)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--scale", type=int, default=1)
    args = ap.parse_args()
    db, _ = ensure_built()
    start = time.perf_counter()
    matcher = load_matcher(db) if args.scale == 1 else scaled_matcher(db, args.scale)
    load_s = time.perf_counter() - start
    errors = [r["traceback"] for r in read_observations(paths.observations_dir()).records
              if r.get("source") == "entry" and r["outcome"] == "fail" and r.get("traceback")]
    if not errors:
        errors = ["AssertionError: Guard failed: x.size()[0] == 2"]
    rng = random.Random(0)
    texts = [traceback_of(args.lines, errors[i % len(errors)], rng) for i in range(args.queries)]
    for t in texts[:20]:  # warm caches
        matcher.search(t)
    # The queries repeat the recorded errors, and a matcher remembers the similarities of
    # the exception texts it has seen: the target is for a text it has not seen, so the
    # memory is emptied before every timed query. The warm figure is given beside it.
    times, warm = [], []
    for t in texts:
        matcher._block_sims.cache_clear()
        start = time.perf_counter()
        matcher.search(t)
        times.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        matcher.search(t)
        warm.append((time.perf_counter() - start) * 1000)
    times.sort()
    warm.sort()
    p50 = statistics.median(times)
    p95 = times[int(0.95 * len(times)) - 1]
    result = {"benchmark": "matcher-200-line-traceback", "queries": len(times), "lines": args.lines,
              "p50_ms": round(p50, 2), "p95_ms": round(p95, 2), "max_ms": round(times[-1], 2),
              "p95_seen_before_ms": round(warm[int(0.95 * len(warm)) - 1], 2),
              "entries": len(matcher.entries), "scale": args.scale, "index_documents": matcher._index.n,
              "load_s": round(load_s, 1), "python": platform.python_version(), "target_p95_ms": 20}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
