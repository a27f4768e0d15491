"""Accuracy of the matcher over a dev set of real error texts, against an FTS5 baseline.

    python -m kb.evaluate devset/public.jsonl devset/runs.jsonl

Each dev-set line is {"text": ..., "expected": <entry id or null>, "source": ...}. For
labelled items we report top-1 and top-3 accuracy; for unlabelled ones (null: errors no
entry explains) we report how often the matcher correctly says "no confident match".
The baseline is plain SQLite FTS5 (bm25) over the entries' own text, queried with the
words of the error: what a search box over the catalogue would do without a matcher.
"""
from __future__ import annotations

import json
import re
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .build import ensure_built, load_matcher
from .extract import extract
from .matcher import Matcher
from .normalize import clean


@dataclass
class Score:
    labelled: int = 0
    top1: int = 0
    top3: int = 0
    negatives: int = 0
    negatives_rejected: int = 0
    misses: list[tuple[str, str, str]] = field(default_factory=list)  # (source, expected, got)

    def line(self, name: str) -> str:
        t1 = self.top1 / self.labelled if self.labelled else 0.0
        t3 = self.top3 / self.labelled if self.labelled else 0.0
        neg = f", no-match on {self.negatives_rejected}/{self.negatives} unrelated" if self.negatives else ""
        return f"{name:10} top-1 {t1:6.1%} ({self.top1}/{self.labelled})  top-3 {t3:6.1%} ({self.top3}/{self.labelled}){neg}"


def load_items(paths: list[Path]) -> list[dict]:
    items = []
    for path in paths:
        for lineno, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if raw.strip():
                item = json.loads(raw)
                item.setdefault("source", f"{path}:{lineno}")
                items.append(item)
    return items


def evaluate_matcher(items: list[dict], matcher: Matcher) -> Score:
    score = Score()
    for item in items:
        result = matcher.search(item["text"])
        confident = [m.id for m in result.confident]
        expected = item.get("expected")
        if expected is None:
            score.negatives += 1
            score.negatives_rejected += not confident
            if confident:
                score.misses.append((item["source"], "none", confident[0]))
            continue
        score.labelled += 1
        score.top1 += confident[:1] == [expected]
        score.top3 += expected in confident[:3]
        if confident[:1] != [expected]:
            score.misses.append((item["source"], expected, confident[0] if confident else "no confident match"))
    return score


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def fts_query(text: str) -> str:
    """An FTS5 OR-query of the distinct words in the exception text(s)."""
    blocks = extract(clean(text))
    words = dict.fromkeys(w.lower() for b in blocks for w in _WORD.findall(b.text))
    return " OR ".join(f'"{w}"' for w in list(words)[:64])


def evaluate_fts(items: list[dict], db: Path) -> Score:
    score = Score()
    conn = sqlite3.connect(db)
    try:
        for item in items:
            expected = item.get("expected")
            if expected is None:
                continue  # bm25 always returns something; it has no notion of "no match"
            query = fts_query(item["text"])
            ids = []
            if query:
                ids = [r[0] for r in conn.execute(
                    "select entries.id from entries_fts join entries on entries.rowid = entries_fts.rowid "
                    "where entries_fts match ? order by bm25(entries_fts) limit 3", (query,))]
            score.labelled += 1
            score.top1 += ids[:1] == [expected]
            score.top3 += expected in ids
    finally:
        conn.close()
    return score


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    files = [Path(a) for a in argv if not a.startswith("-")] or sorted(Path("devset").glob("*.jsonl"))
    files = [f for f in files if f.exists()]
    items = load_items(files)
    db, _ = ensure_built()
    matcher = load_matcher(db)
    m = evaluate_matcher(items, matcher)
    f = evaluate_fts(items, db)
    print(f"dev set: {len(items)} texts from {', '.join(str(p) for p in files)}")
    print(m.line("matcher"))
    print(f.line("fts5"))
    if "-v" in argv:
        for source, expected, got in m.misses:
            print(f"  miss: {source}: expected {expected}, got {got}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
