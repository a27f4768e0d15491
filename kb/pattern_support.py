"""What each entry pattern, and each error its prose quotes, rests on: a run's error, or
only train reports (and whose).

Out-of-fold scoring (kb.calibrate) builds a matcher without a fold's threads, so that a
report never finds its own wording among the learned texts. The entries' patterns stay,
and some of them were widened on train reports: a pattern written from one report
matches it out of fold as surely as in fold. The out-of-fold scores are then too good,
and a threshold fitted on them too low for text nobody has seen. A pattern that no run
names (the entries' failing scripts, loads across releases, quotes of threads outside
the evidence base: kb.db's `entry_texts`) and that names the train reports of one fold
only stands on that fold: the fold's matcher is built without it.

A pattern's context (pattern_context) is not looked at: it only narrows a pattern, so a
pattern counted as named here without it is kept, never dropped, by mistake.

The same holds for an entry's prose (its title, rule, cause and fix, which the matcher
reads as one more channel): a cause written from a report often quotes the report's
error in an inline literal. A quote (words between backticks, QUOTE_MIN characters or more)
that no run of the entry printed and that only one fold's reports of the entry hold is
taken out of the prose that fold's matcher reads.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import re2
import sqlite_utils

from . import paths
from .extract import extract
from .normalize import clean

# A quoted error has words: a literal without a space, or a short one, names an API
# (`torch.export.export`, `dynamo=False`, `model.eval()`), a word of the prose.
QUOTE_MIN = 12
_LITERAL = re.compile(r"`([^`\n]+)`")
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@dataclass(frozen=True)
class Support:
    runs: bool  # some run's (or outside quote's) error is named by it
    threads: frozenset[str]  # train threads with a report labelled with its entry that it names


def pattern_support(db: Path | None = None) -> dict[tuple[str, str], Support]:
    """(entry id, pattern) -> what the pattern rests on, from kb.db."""
    kdb = sqlite_utils.Database(Path(db or paths.db_path()))
    runs: dict[str, list[str]] = {}
    for r in kdb.query("select entry, text from entry_texts"):
        runs.setdefault(r["entry"], []).append(r["text"])
    reports: dict[str, list[tuple[str, list[str]]]] = {}
    for r in kdb.query("select entry, thread, text from report_texts where entry is not null"):
        blocks = [b.text for b in extract(clean(r["text"]), already_clean=True)]
        reports.setdefault(r["entry"], []).append((r["thread"], blocks))
    support = {}
    for r in kdb.query("select id, patterns from entries order by id"):
        for p in json.loads(r["patterns"]):
            rx = re2.compile(p, _OPTIONS)
            support[(r["id"], p)] = Support(
                runs=any(rx.search(t) for t in runs.get(r["id"], ())),
                threads=frozenset(t for t, blocks in reports.get(r["id"], ()) if any(rx.search(b) for b in blocks)))
    return support


def quote_support(db: Path | None = None) -> dict[tuple[str, str], Support]:
    """(entry id, quoted text) -> what the quote in the entry's prose rests on, from kb.db."""
    kdb = sqlite_utils.Database(Path(db or paths.db_path()))
    runs: dict[str, list[str]] = {}
    for r in kdb.query("select entry, text from entry_texts"):
        runs.setdefault(r["entry"], []).append(r["text"])
    reports: dict[str, list[tuple[str, str]]] = {}
    for r in kdb.query("select entry, thread, text from report_texts where entry is not null"):
        reports.setdefault(r["entry"], []).append((r["thread"], r["text"]))
    support = {}
    for r in kdb.query("select id, title, rule, cause, fix from entries order by id"):
        prose = "\n".join((r["title"], r["rule"], r["cause"], r["fix"]))
        for quote in dict.fromkeys(q for q in _LITERAL.findall(prose) if " " in q and len(q) >= QUOTE_MIN):
            support[(r["id"], quote)] = Support(
                runs=any(quote in t for t in runs.get(r["id"], ())),
                threads=frozenset(t for t, text in reports.get(r["id"], ()) if quote in text))
    return support


def unquoted(prose: str, quotes: frozenset[str]) -> str:
    """The prose without these quotes (each `quote` in backticks, as written)."""
    for q in sorted(quotes, key=len, reverse=True):
        prose = prose.replace(f"`{q}`", "")
    return prose


def fold_only(support: dict[tuple[str, str], Support], in_fold: Callable[[str], bool]) -> dict[str, frozenset[str]]:
    """Entry id -> the patterns (or quotes) that only this fold's train reports stand for
    (no run, and no report of a thread outside the fold)."""
    out: dict[str, set[str]] = {}
    for (eid, p), s in support.items():
        if not s.runs and s.threads and all(in_fold(t) for t in s.threads):
            out.setdefault(eid, set()).add(p)
    return {eid: frozenset(ps) for eid, ps in out.items()}


def without(patterns: Iterable[str], dropped: frozenset[str]) -> tuple[str, ...]:
    return tuple(p for p in patterns if p not in dropped)
