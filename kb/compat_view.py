"""The compatibility matrix as people read it: which artifacts load and run where.

The observations come from `exportkb compat --torch ...` (collectors.compat), in
observations/compat/loaded-on-<torch>.jsonl: one line per (case, exporter, written on,
loaded on). kb.build stores them in kb.db's `compat` table with each failure classified
by the one rule (kb.classify), so a failing cell names the entry that explains it.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import sqlite_utils

from rich.console import Console
from rich.markup import escape
from rich.table import Table


FIELDS = ("exporter", "written_on", "loaded_on", "model", "outcome", "stage", "entry", "exc_type", "message")


def _key(version: str) -> tuple:
    return tuple(int(x) if x.isdigit() else 0 for x in version.split("."))


def matrix_json(db: Path | None = None) -> list[dict]:
    """One object per load: exporter, written_on, loaded_on, model, outcome, stage, entry (or None).

    Read from kb.db, where the build classified each failure (kb.build._compat_rows)."""
    from .build import ensure_built

    db, _ = ensure_built(db)
    rows = sqlite_utils.Database(db).query(
        "select exporter, written_on, loaded_on, model, outcome, stage, matched_entry as entry, exc_type, message "
        "from compat")
    out = []
    for r in rows:
        first = next((ln for ln in (r["message"] or "").splitlines() if ln.strip()), "")
        out.append({**{k: r[k] for k in FIELDS}, "message": first[:300]})
    return sorted(out, key=lambda r: (r["exporter"], _key(r["written_on"]), _key(r["loaded_on"]), r["model"]))


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
