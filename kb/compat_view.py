"""The compatibility matrix as people read it: which artifacts load and run where.

The observations come from `exportkb compat --torch ...` (collectors.compat), in
observations/compat/loaded-on-<torch>.jsonl: one line per (case, exporter, written on,
loaded on). Each failure is classified with the one rule (kb.classify), so a failing
cell names the entry that explains it.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import paths

FIELDS = ("exporter", "written_on", "loaded_on", "model", "outcome", "stage", "entry", "exc_type", "message")


def release(version: str | None) -> str:
    return (version or "?").split("+", 1)[0]


def _key(version: str) -> tuple:
    return tuple(int(x) if x.isdigit() else 0 for x in release(version).split("."))


def load_rows() -> list[dict]:
    rows = []
    for path in sorted((paths.observations_dir() / "compat").glob("loaded-on-*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def matrix_json() -> list[dict]:
    """One object per load: exporter, written_on, loaded_on, model, outcome, stage, entry (or None)."""
    rows = load_rows()
    failing = [r for r in rows if r["outcome"] == "fail"]
    matcher = None
    if failing:
        from .build import ensure_built, load_matcher
        from .classify import best_match, failure_blocks

        db, _ = ensure_built()
        matcher = load_matcher(db)
    out = []
    for r in sorted(rows, key=lambda r: (r["exporter"], _key(r["written_on"]), _key(r["loaded_on"]), r["model"])):
        entry = None
        if r["outcome"] == "fail" and matcher is not None:
            best = best_match(failure_blocks(r), matcher, r["exporter"])
            entry = best.id if best else None
        first = next((ln for ln in (r.get("message") or "").splitlines() if ln.strip()), "")
        out.append({"exporter": r["exporter"], "written_on": release(r["written_on"]), "loaded_on": release(r["loaded_on"]),
                    "model": r["model"], "outcome": r["outcome"], "stage": r.get("stage"), "entry": entry,
                    "exc_type": r.get("exc_type"), "message": first[:300]})
    return out


def cells(rows: list[dict]) -> dict[str, dict[tuple[str, str], Counter]]:
    """exporter -> (written on, loaded on) -> outcome counts."""
    grid: dict[str, dict[tuple[str, str], Counter]] = defaultdict(lambda: defaultdict(Counter))
    for r in rows:
        grid[r["exporter"]][(r["written_on"], r["loaded_on"])][r["outcome"]] += 1
    return grid


def print_matrix(console: Console, rows: list[dict]) -> None:
    if not rows:
        console.print("no compatibility observations yet: run [bold]exportkb compat --torch A --torch B[/]")
        return
    for exporter, grid in sorted(cells(rows).items()):
        written = sorted({w for w, _ in grid}, key=_key)
        loaded = sorted({ld for _, ld in grid}, key=_key)
        table = Table(title=f"{exporter}: written on (rows), loaded on (columns); ok / loads",
                      title_justify="left")
        table.add_column("written on")
        for ld in loaded:
            table.add_column(ld, justify="right")
        for w in written:
            cells_ = []
            for ld in loaded:
                c = grid.get((w, ld))
                if not c:
                    cells_.append("")
                    continue
                total, ok = sum(c.values()), c.get("ok", 0)
                style = "green" if ok == total else ("red" if ok == 0 else "yellow")
                cells_.append(f"[{style}]{ok}/{total}[/]")
            table.add_row(w, *cells_)
        console.print(table)
    reasons = Counter((r["exporter"], r["entry"] or "(no entry)", f"{r['exc_type'] or r['outcome']}: {r['message'][:120]}")
                      for r in rows if r["outcome"] != "ok")
    if reasons:
        console.print("\n[bold]Why loads fail[/] (exporter, entry, error; count):")
        for (exporter, entry, text), n in reasons.most_common(30):
            console.print(f"  {n:4d}  {exporter}  {entry}  {escape(text)}")
