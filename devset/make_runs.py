"""Run every devset/cases/*.py in its own process and record its error text in devset/runs.jsonl.

Each case's module docstring starts with `expected: <entry-id>` (or `expected: none` for a
case no entry should explain), and its second line describes the case. A case that exits 0
no longer fails on this torch: it is reported and left out of runs.jsonl.

    cd /work/main && .venv/bin/python devset/make_runs.py
"""
from __future__ import annotations

import ast
import importlib.metadata
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from collectors.isolate import run_script  # noqa: E402
from collectors.portable import portable, trim  # noqa: E402

CASES = REPO / "devset" / "cases"
OUT = REPO / "devset" / "runs.jsonl"
TIMEOUT_S = 180.0
MEMORY_MB = 16_000
WORKERS = 2


def read_header(path: Path) -> tuple[str | None, str]:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    lines = doc.strip().splitlines()
    if not lines or not lines[0].startswith("expected:"):
        raise ValueError(f"{path.name}: docstring must start with 'expected: <entry-id>'")
    expected = lines[0].split(":", 1)[1].strip()
    note = lines[1].strip() if len(lines) > 1 else ""
    return (None if expected in ("", "none") else expected), note


def main() -> int:
    torch_version = importlib.metadata.version("torch")
    cases = sorted(CASES.glob("*.py"))
    headers = {p: read_header(p) for p in cases}

    def run(path: Path):
        return path, run_script(path, timeout_s=TIMEOUT_S, memory_mb=MEMORY_MB)

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        results = dict(pool.map(run, cases))

    rows, skipped = [], 0
    for path in cases:
        result = results[path]
        expected, note = headers[path]
        if result.outcome == "ok":
            print(f"WARNING: {path.name} exited 0 on torch {torch_version} (expected {expected}); skipped")
            skipped += 1
            continue
        text = trim(portable(result.stderr, REPO))
        last = text.strip().splitlines()[-1] if text.strip() else ""
        print(f"{path.name}: {result.outcome} ({result.duration_s:.1f}s) expected={expected} | {last[:120]}")
        rows.append({"text": text, "expected": expected, "source": f"devset/cases/{path.name}",
                     "torch": torch_version, "note": note})

    with OUT.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} cases to {OUT.relative_to(REPO)} ({skipped} skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
