"""The compatibility matrix as people read it: which artifacts load and run where.

The observations come from `exportkb compat --torch ...` (collectors.compat), in
observations/compat/loaded-on-<torch>.jsonl: one line per (case, exporter, written on,
loaded on). kb.build stores them in kb.db's `compat` table with each failure classified
by the one rule (kb.classify), so a failing cell names the entry that explains it.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import sqlite_utils

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .site.data import COMPAT_SQL, CompatGrid, compat_grids
from .version_status import release_key

FIELDS = ("exporter", "written_on", "runtime", "loaded_on", "model", "outcome", "stage", "entry", "exc_type",
          "message")


def _db(db: Path | None) -> Path:
    from .build import ensure_built

    return ensure_built(db)[0]


def matrix_json(db: Path | None = None) -> list[dict]:
    """One object per load: exporter, written_on, runtime ("torch" or "onnxruntime"), loaded_on
    (that runtime's release), model, outcome, stage, entry (or None).

    Read from kb.db, where the build classified each failure (kb.build._compat_rows)."""
    rows = sqlite_utils.Database(_db(db)).query(
        "select exporter, written_on, runtime, loaded_on, model, outcome, stage, matched_entry as entry, exc_type, "
        "message from compat")
    out = []
    for r in rows:
        first = next((ln for ln in (r["message"] or "").splitlines() if ln.strip()), "")
        out.append({**{k: r[k] for k in FIELDS}, "message": first[:300]})
    return sorted(out, key=lambda r: (r["runtime"] != "torch", r["exporter"], release_key(r["written_on"]),
                                      release_key(r["loaded_on"]), r["model"]))


def matrix_grids(db: Path | None = None) -> list[CompatGrid]:
    """The matrix per exporter, as the docs page and the UI's /compat draw it (kb.site.data.compat_grids)."""
    return compat_grids(sqlite_utils.Database(_db(db)).query(COMPAT_SQL))


def print_matrix(console: Console, grids: list[CompatGrid]) -> None:
    if not grids:
        console.print("no compatibility observations yet: run [bold]exportkb compat --torch A --torch B[/]")
        return
    for g in grids:
        ran_on = "loaded on" if g.runtime == "torch" else f"run on {g.runtime} of its own"
        table = Table(title=f"{g.exporter}: written on (rows), {ran_on} (columns); ok / loads", title_justify="left")
        table.add_column("written on")
        for ld in g.loaded:
            table.add_column(ld, justify="right")
        for w in g.written:
            cells = []
            for ld in g.loaded:
                rate = g.cells.get((w, ld))
                if rate is None:
                    cells.append("")
                    continue
                style = "green" if rate.passed == rate.total else ("red" if rate.passed == 0 else "yellow")
                cells.append(f"[{style}]{rate.passed}/{rate.total}[/]")
            table.add_row(w, *cells)
        console.print(table)
    reasons: Counter = Counter()
    for g in grids:
        for f in g.failures:
            side = g.exporter if g.runtime == "torch" else f"{g.exporter} on {g.runtime}"
            reasons[(side, f.entry or "(no entry)", f.error[:120])] += f.count
    if reasons:
        console.print("\n[bold]Why loads fail[/] (exporter, entry, error; count):")
        for (exporter, entry, text), n in reasons.most_common(30):
            console.print(f"  {n:4d}  {exporter}  {entry}  {escape(text)}")
