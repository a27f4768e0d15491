"""How often search is right, on real reports it was not tuned on, against an FTS5 baseline.

    python -m kb.evaluate [--split test|train|all] [--json] [-v]     (make devset-eval)
    python -m kb.evaluate --write     # also writes devset/evaluation.json (the docs page's data)

The evidence base and its split are kb/devset.py's. `test` reports are scored by the
matcher that kb.db holds (it learned from `train` only). `train` reports are scored
out of fold, by a matcher built without the report's thread (kb/calibrate.py's folds),
so that a report never finds its own wording.

For each split and each exporter:

* top-1 / top-3: of the labelled reports, the right entry is first / among the first
  three of what the user is shown (the confident answers, else the possible matches);
* useful: the right entry is shown first, over all reports (`none:` ones included: no
  entry can be right for them until the catalogue explains their cause);
* confidently wrong: a confident answer that is not the label (for a tie: none of the
  tied entries is the label), over all reports (any confident answer to a `none:`
  report is wrong);
* the same for plain SQLite FTS5 (bm25) over the entries' prose: what a search box over
  the catalogue would do without a matcher. It always answers, so each wrong first
  result counts as confidently wrong.

The same figures are given by when the failure happened (devset.STAGE_GROUPS): at the export,
after it (saving, loading or running the artifact), or in the environment around it.
There the labelled share is the share of reports whose cause has an entry.
"""
from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import devset, paths
from .build import ensure_built, load_matcher
from .calibrate import FOLDS, fold_matchers
from .devset import thread_key
from .extract import extract
from .normalize import clean


@dataclass
class Tally:
    reports: int = 0
    labelled: int = 0
    top1: int = 0
    top3: int = 0
    useful: int = 0
    confidently_wrong: int = 0
    possible_only: int = 0  # no confident answer, something offered as possible
    misses: list[dict] = field(default_factory=list)

    def add(self, report: devset.Report, shown: list[str], confident: list[str]) -> None:
        self.reports += 1
        expected = report.expected
        if expected:
            self.labelled += 1
            self.top1 += shown[:1] == [expected]
            self.top3 += expected in shown[:3]
        self.useful += bool(expected) and shown[:1] == [expected]
        wrong = bool(confident) and expected not in confident
        self.confidently_wrong += wrong
        self.possible_only += not confident and bool(shown)
        if shown[:1] != [expected] and (expected or confident):
            self.misses.append({"source": report.source, "label": report.label,
                                "got": (confident or shown or ["-"])[0], "confident": bool(confident)})

    def rates(self) -> dict:
        pct = lambda a, b: round(100.0 * a / b, 1) if b else None  # noqa: E731
        return {"reports": self.reports, "labelled": self.labelled,
                "top1": pct(self.top1, self.labelled), "top3": pct(self.top3, self.labelled),
                "useful": pct(self.useful, self.reports),
                "confidently_wrong": pct(self.confidently_wrong, self.reports)}


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def fts_query(text: str) -> str:
    """An FTS5 OR-query of the distinct words in the exception text(s)."""
    blocks = extract(clean(text))
    words = dict.fromkeys(w.lower() for b in blocks for w in _WORD.findall(b.text))
    return " OR ".join(f'"{w}"' for w in list(words)[:64])


def fts_ranking(conn: sqlite3.Connection, text: str) -> list[str]:
    query = fts_query(text)
    if not query:
        return []
    return [r[0] for r in conn.execute(
        "select entries.id from entries_fts join entries on entries.rowid = entries_fts.rowid "
        "where entries_fts match ? order by bm25(entries_fts) limit 3", (query,))]


@dataclass
class Evaluation:
    matcher: dict[str, dict[str, Tally]]  # split -> exporter ("all" too) -> tally
    fts: dict[str, dict[str, Tally]]
    # split -> stage group (devset.Report.stage_group) -> tally, for the matcher and for the baseline
    stages: dict[str, dict[str, Tally]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(Tally)))
    fts_stages: dict[str, dict[str, Tally]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(Tally)))

    def as_dict(self) -> dict:
        rates = lambda table: {split: {k: t.rates() for k, t in per.items()} for split, per in table.items()}  # noqa: E731
        return {"matcher": rates(self.matcher), "fts5": rates(self.fts),
                "by_stage": {"matcher": rates(self.stages), "fts5": rates(self.fts_stages)}}


def _matchers_for(reports: list[devset.Report], db: Path):
    """(report, matcher) pairs: test reports with kb.db's matcher, train ones out of fold."""
    test = [r for r in reports if r.split == "test"]
    if test:
        full = load_matcher(db)
        yield from ((r, full) for r in test)
    for fold, matcher in fold_matchers([r for r in reports if r.split == "train"], db):
        yield from ((r, matcher) for r in fold)


def answers(result) -> tuple[list[str], list[str]]:
    """What a search shows, and its confident answer: the best entry, or every entry of a
    tie (shown together as equally likely, so the right one among them is not a wrong answer)."""
    confident = [m.id for m in result.confident if m.tie] or [m.id for m in result.confident[:1]]
    return [m.id for m in result.shown], confident


def evaluate(reports: list[devset.Report], db: Path) -> Evaluation:
    ev = Evaluation(defaultdict(lambda: defaultdict(Tally)), defaultdict(lambda: defaultdict(Tally)))
    conn = sqlite3.connect(db)
    try:
        for report, matcher in _matchers_for(reports, db):
            if not report.text.strip():
                continue
            shown, confident = answers(matcher.search(report.text))
            ranking = fts_ranking(conn, report.text)
            for exp in ("all", report.exporter or "unknown"):
                ev.matcher[report.split][exp].add(report, shown, confident)
                ev.fts[report.split][exp].add(report, ranking, ranking[:1])
            ev.stages[report.split][report.stage_group].add(report, shown, confident)
            ev.fts_stages[report.split][report.stage_group].add(report, ranking, ranking[:1])
    finally:
        conn.close()
    return ev


def _table(title: str, per: dict[str, Tally], base: dict[str, Tally], order: list[str] | None = None,
           column: str = "exporter") -> list[str]:
    lines = [title, f"  {column:15} {'n':>4} {'lab':>4} {'top-1':>6} {'top-3':>6} {'useful':>6} {'c-wrong':>7}"
                    f"   | fts5 {'top-1':>6} {'top-3':>6} {'useful':>6} {'wrong':>6}"]
    order = order or ["all", *devset.EXPORTERS, "unknown"]
    fmt = lambda v: f"{v:5.1f}%" if v is not None else "    - "  # noqa: E731
    for exp in [e for e in order if e in per]:
        m, f = per[exp].rates(), base[exp].rates()
        lines.append(f"  {exp:15} {m['reports']:4} {m['labelled']:4} {fmt(m['top1']):>6} {fmt(m['top3']):>6} "
                     f"{fmt(m['useful']):>6} {fmt(m['confidently_wrong']):>7}   |      {fmt(f['top1']):>6} "
                     f"{fmt(f['top3']):>6} {fmt(f['useful']):>6} {fmt(f['confidently_wrong']):>6}")
    return lines


EVALUATION_FILE = "evaluation.json"


def evidence_summary(reports: list[devset.Report]) -> dict:
    """What the evidence base holds: reports per exporter, release, stage and label."""
    def count(key) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for r in reports:
            out[key(r)] += 1
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    def release(r: devset.Report) -> str:
        if not r.torch:
            return "not stated"
        m = re.match(r"(\d+)\.(\d+)", r.torch)
        return f"{m[1]}.{m[2]}" if m else "not stated"

    return {
        "reports": len(reports),
        "threads": len({thread_key(r.source) for r in reports}),
        "per_split": count(lambda r: r.split),
        "per_exporter": count(lambda r: r.exporter or "unknown"),
        "per_release": count(release),
        "per_stage": count(lambda r: r.stage or "not stated"),
        "labelled": sum(1 for r in reports if r.expected),
        "per_label": count(lambda r: r.label),
    }


def write_evaluation(ev: Evaluation, reports: list[devset.Report], path: Path) -> dict:
    from .matcher import Calibration
    cal = Calibration.load()
    data = {"figures": ev.as_dict(), "evidence": evidence_summary(reports),
            "calibration": {"confident": cal.confident, "possible": cal.possible, "fitted_on": cal.fitted_on}}
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return data


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    split = argv[argv.index("--split") + 1] if "--split" in argv else "all"
    reports = [r for r in devset.load() if split == "all" or r.split == split]
    db, _ = ensure_built()
    ev = evaluate(reports, db)
    if "--write" in argv and split == "all":
        write_evaluation(ev, reports, paths.root() / "devset" / EVALUATION_FILE)
    if "--json" in argv:
        print(json.dumps(ev.as_dict(), indent=2, sort_keys=True))
        return 0
    for name in ("test", "train"):
        if name in ev.matcher:
            how = "kb.db's matcher (learned from train only)" if name == "test" else f"out of fold ({FOLDS} folds by thread)"
            print("\n".join(_table(f"{name}: {how}", ev.matcher[name], ev.fts[name])))
            print("\n".join(_table(f"{name}, by when it failed (lab: reports whose cause has an entry)",
                                    ev.stages[name], ev.fts_stages[name],
                                    list(devset.STAGE_GROUP_ORDER), "stage")))
            if "-v" in argv and name == "train":
                for miss in ev.matcher[name]["all"].misses:
                    print(f"    miss: {miss['source']}: {miss['label']} -> {miss['got']}"
                          f"{' (confident)' if miss['confident'] else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
