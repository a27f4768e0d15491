"""Ray's cost, and what a full corpus on five releases would take on a cluster.

    .venv/bin/python bench/bench_cluster.py [--models 12] [--exporters export,jit-trace,onnx-legacy]

1. The same slice of ExportDB models runs three ways, one after the other, in one run:
   the local pool (`exportkb collect`), the cluster driver with local threads
   (`--torch` path, no Ray) and a local Ray started for the run (`--ray`), each into
   its own empty observations folder. The ratios say what the remote protocol and Ray
   cost over the in-process pool; absolute times vary on these shared machines.
2. An estimate of a full run: the per-attempt times of the committed corpus run
   (observations/corpus-torch-*.jsonl, the pinned release) summed per model, plus the
   per-task overhead measured in step 1, spread over N nodes of 2 cores each for five
   releases. A release's venv costs its install once per node (the sweep prints it: 2 to
   6 minutes here, so it is given as a range). Older releases run at their own speed; the
   pinned release's times stand in for them.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(label: str, extra: list[str], models: str, exporters: str, jobs: int) -> tuple[float, list[dict]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "obs" / "corpus.jsonl"
        cmd = [sys.executable, "-m", "kb.cli", "collect", "--corpus", "exportdb", "--models", models,
               "--exporters", exporters, "--jobs", str(jobs), "--out", str(out), *extra]
        env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        start = time.monotonic()
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
        wall = time.monotonic() - start
        if r.returncode:
            raise SystemExit(f"{label} failed:\n{r.stderr[-3000:]}")
        records = [json.loads(line) for line in out.read_text().splitlines()]
    print(f"{label:<28} {wall:7.1f} s  {len(records)} attempts")
    return wall, records


def per_model_seconds() -> dict[str, float]:
    """Attempt time per model in the committed corpus run of the pinned release."""
    totals: dict[str, float] = {}
    for path in sorted((ROOT / "observations").glob("corpus-torch-*.jsonl")):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            key = f"{r['source']}/{r['model']}"
            totals[key] = totals.get(key, 0.0) + float(r.get("duration_s") or 0.0)
    return totals


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=12)
    ap.add_argument("--exporters", default="export,jit-trace,onnx-legacy")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from collectors.corpus import source

    ids = sorted(s.id for s in source("exportdb").list_models())[: args.models]
    models = ",".join(ids)
    print(f"{len(ids)} ExportDB models x {args.exporters}, {args.jobs} at a time")
    pool, a = run("local pool", [], models, args.exporters, args.jobs)
    threads, b = run("driver, local threads", ["--torch", _pinned(), "--batch", "2"], models, args.exporters,
                     args.jobs)
    ray, c = run("driver, local Ray", ["--ray", "--batch", "2"], models, args.exporters, args.jobs)
    same = {x["key"]: x["outcome"] for x in a} == {x["key"]: x["outcome"] for x in b} == \
           {x["key"]: x["outcome"] for x in c}
    print(f"same observations on all three: {same}")
    print(f"ratios: threads/pool {threads / pool:.2f}x, ray/pool {ray / pool:.2f}x")
    tasks = -(-len(ids) // 2)
    # The remote protocol costs each task an interpreter and a warm-up (threads vs pool);
    # Ray adds its own start-up once per run and its scheduling (ray vs threads).
    overhead = max(0.0, (threads - pool) * args.jobs / tasks)
    ray_cost = max(0.0, ray - threads)
    print(f"per task of 2 models: {overhead:.1f} core-seconds (a fresh interpreter and its warm-up); "
          f"Ray on top: {ray_cost:.1f} s for the run (its start-up and scheduling)")

    totals = per_model_seconds()
    if not totals:
        print("no committed corpus run to estimate from")
        return 0 if same else 1
    core_s = sum(totals.values()) + overhead * len(totals) / 2
    print(f"\nfull corpus, pinned release: {len(totals)} models, {sum(totals.values()) / 3600:.1f} core-hours of attempts")
    print("estimate for five releases (2 cores per node, venv install 3-6 min per release and node):")
    for nodes in (1, 4, 8, 16, 32):
        hours = 5 * core_s / (2 * nodes) / 3600
        print(f"  {nodes:>2} nodes: {hours:6.1f} h of attempts and task overhead, + {5 * 3}-{5 * 6} min of installs "
              f"per node and {ray_cost:.0f} s of Ray start-up")
    return 0 if same else 1


def _pinned() -> str:
    line = next(ln for ln in (ROOT / "constraints.txt").read_text().splitlines() if ln.startswith("torch=="))
    return line.split("==", 1)[1].split("+")[0]


if __name__ == "__main__":
    sys.exit(main())
