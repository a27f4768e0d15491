"""Read what the documentation site shows out of kb.db, as plain data for the templates.

Nothing here formats text: the jinja2 templates in site/templates/rst decide how it
reads. Observations from an entry's own scripts (source 'entry') and from corpus models
(every other source) are kept apart, because a failing script that fails is the entry
working as intended, while a corpus model that fails is a finding.
"""
from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .. import releases as releases_mod
from ..catalogue import EXPORTERS, STAGES
from ..version_status import REPRODUCING, code_hash, release_key, release_of

PASS = "ok"
FAIL = "fail"


@dataclass
class Script:
    """One of an entry's runnable scripts (not collectors.corpus.base.Case, a built model)."""
    name: str
    kind: str  # "failing" or "fixed"
    exporter: str
    code: str
    companions: list[str] = field(default_factory=list)  # exact pins installed for this script alone


@dataclass
class ObservedError:
    """One failing case's primary exception, with every torch version it was seen on."""
    case: str
    exporter: str
    stage: str
    text: str
    torch: list[str]


@dataclass
class QuotedError:
    """An error an unverified entry quotes from a report, in place of a run of its own."""
    source: str
    torch: str
    text: str


@dataclass
class VersionStatus:
    """One row of kb.db's entry_versions (see kb.version_status for the statuses)."""
    torch: str
    status: str  # reproduces | partly | differs | unavailable | no-repro | error
    fix: str  # works | fails | not-run
    failing_run: int
    failing_reproduced: int
    fixed_run: int
    fixed_ok: int


@dataclass
class FixResult:
    """An automatic fix retried on the corpus models this entry explains (collectors.fixes)."""
    fix: str
    exporter: str
    torch: str
    tried: int
    fixed: int
    past: int  # got past this entry's error, then failed on another


@dataclass
class GraphBreakRow:
    """One id of Dynamo's graph-break registry, as the pages list it (kb.graph_breaks)."""
    id: str
    gb_type: str
    url: str
    releases: str
    entry: str  # its own entry, or the class entry
    own_entry: bool


@dataclass
class EntryPage:
    id: str
    title: str
    rule: str
    exporters: list[str]
    stage: str
    tags: list[str]
    reproduces_on_pinned: bool
    patterns: list[str]
    cause: str
    fix: str
    notes: str
    refs: dict[str, list[str]]
    cases: list[Script] = field(default_factory=list)
    errors: list[ObservedError] = field(default_factory=list)
    statuses: list[VersionStatus] = field(default_factory=list)
    corpus_models: list[tuple[str, int]] = field(default_factory=list)  # (model, observations)
    reproduces_on: list[str] = field(default_factory=list)
    fix_results: list[FixResult] = field(default_factory=list)
    fixed_in: str | None = None
    retired: bool = False
    artifact_step: str = ""  # save, load or run: after the export, where it fails ("" before)
    artifact_side: str = ""  # exporting or loading: whose release or runtime the fix belongs to
    graph_breaks: list[GraphBreakRow] = field(default_factory=list)  # the registry ids it explains
    verified: bool = True  # False: the scripts were not run here; `quotes` hold the observed error
    quotes: list[QuotedError] = field(default_factory=list)

    @property
    def corpus_hits(self) -> int:
        return sum(n for _, n in self.corpus_models)

    @property
    def latest(self) -> VersionStatus | None:
        return self.statuses[-1] if self.statuses else None


@dataclass
class Rate:
    passed: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.passed / self.total) if self.total else 0


@dataclass
class Cause:
    entry: str | None  # the explaining entry, or None for a signature no entry explains
    signature: str
    count: int


@dataclass
class Corpus:
    """Corpus observations on the newest torch release that has any."""
    torch: str | None
    other_torch: list[str]
    models: list[str]
    exporters: list[str]
    cells: dict[tuple[str, str], Rate]  # (model, exporter) -> attempts that passed
    per_exporter: dict[str, Rate]  # models that passed / models attempted
    causes: dict[str, list[Cause]]  # exporter -> top failure causes

    @property
    def empty(self) -> bool:
        return not self.models


@dataclass
class EntryRuns:
    """The entries' own scripts per exporter: what is recorded while the corpus is empty."""
    exporter: str
    failing_run: int
    failing_failed: int
    fixed_run: int
    fixed_ok: int


@dataclass
class CompatFailure:
    """Loads of one exporter's artifacts, from one release on another, that failed the same way."""
    written_on: str
    loaded_on: str
    entry: str | None  # the entry that explains the failure, or None
    stage: str
    error: str  # the first line of the error
    count: int


@dataclass
class CompatGrid:
    """One exporter's artifacts: written on (rows) by loaded on (columns). `runtime` says what
    loaded them: torch releases, or onnxruntime releases installed on their own."""
    exporter: str
    written: list[str]
    loaded: list[str]
    cells: dict[tuple[str, str], Rate]
    failures: list[CompatFailure]
    runtime: str = "torch"


@dataclass
class ReleaseComparison:
    """The corpus sample across torch releases (kb.releases), as the page and the UI show it."""
    releases: list[str]
    rates: list  # kb.releases.ReleaseRate, exporter then release
    changes: list  # kb.releases.ReleaseChange
    models: int  # distinct models compared on every release

    def rate(self, exporter: str, torch: str):
        return next((r for r in self.rates if r.exporter == exporter and r.torch == torch), None)

    @property
    def exporters(self) -> list[str]:
        return list(dict.fromkeys(r.exporter for r in self.rates))

    def changes_between(self) -> list[tuple[str, str, list]]:
        pairs: dict[tuple[str, str], list] = {}
        for c in self.changes:
            pairs.setdefault((c.before, c.after), []).append(c)
        return [(a, b, cs) for (a, b), cs in pairs.items()]


def release_comparison(rows) -> ReleaseComparison | None:
    """kb.db's release_runs rows (kb.releases.RUNS_SQL) compared; None before any other release ran."""
    rows = [dict(r) for r in rows]
    order, cells = releases_mod.compared(rows)
    if len(order) < 2:
        return None
    return ReleaseComparison(order, releases_mod.rates(rows), releases_mod.changes(rows),
                             len({(s, m) for s, m, _ in cells}))


@dataclass
class SiteData:
    entries: list[EntryPage]
    corpus: Corpus
    entry_runs: list[EntryRuns]
    compat: list[CompatGrid] = field(default_factory=list)
    releases: ReleaseComparison | None = None
    graph_breaks: list[GraphBreakRow] = field(default_factory=list)
    exporters: tuple[str, ...] = EXPORTERS
    stages: tuple[str, ...] = STAGES

    def by_exporter(self) -> dict[str, list[EntryPage]]:
        return {x: [e for e in self.entries if x in e.exporters] for x in self.exporters}

    def by_stage(self) -> dict[str, list[EntryPage]]:
        return {s: [e for e in self.entries if e.stage == s] for s in self.stages}

    def by_tag(self) -> dict[str, list[EntryPage]]:
        tags: dict[str, list[EntryPage]] = defaultdict(list)
        for e in self.entries:
            for t in e.tags:
                tags[t].append(e)
        return dict(sorted(tags.items()))


@dataclass
class Reworded:
    """An entry that reproduces on two consecutive releases with a different error text."""
    entry: EntryPage
    case: str
    before: str
    after: str


@dataclass
class ReleaseChanges:
    """What one torch release changed for the entries, against the release swept before it.

    Only entries that ran on both releases are compared: an entry swept on one of them
    only says nothing about the change."""
    torch: str
    previous: str | None
    ran: int = 0  # entries with a status on this release
    compared: int = 0  # ... and on the previous one
    statuses: dict[str, int] = field(default_factory=dict)
    companions: dict[str, str] = field(default_factory=dict)  # library -> version in the sweep's venv
    missing: dict[str, str] = field(default_factory=dict)  # library -> why it was not installed
    stopped: list[tuple[EntryPage, str]] = field(default_factory=list)  # (entry, status now)
    started: list[tuple[EntryPage, str]] = field(default_factory=list)  # (entry, status before)
    reworded: list[Reworded] = field(default_factory=list)


def _texts_on(page: EntryPage, case: str, release: str) -> list[str]:
    return [e.text for e in page.errors if e.case == case and release in {release_of(t) for t in e.torch}]


def release_changes(entries: list[EntryPage], companions: dict | None = None) -> list[ReleaseChanges]:
    """One ReleaseChanges per release any entry ran on, oldest first. `companions` is what
    observations/sweep-companions.json records of each release's venv (exportkb sweep)."""
    status = {e.id: {release_of(s.torch): s.status for s in e.statuses} for e in entries}
    releases = sorted({r for per in status.values() for r in per}, key=release_key)
    out = []
    for i, rel in enumerate(releases):
        prev = releases[i - 1] if i else None
        venv = (companions or {}).get(rel, {})
        ch = ReleaseChanges(rel, prev, companions={k: v for k, v in venv.get("versions", {}).items() if v},
                            missing=dict(venv.get("missing", {})))
        for e in entries:
            now = status[e.id].get(rel)
            if now is None:
                continue
            ch.ran += 1
            ch.statuses[now] = ch.statuses.get(now, 0) + 1
            before = status[e.id].get(prev) if prev else None
            if before is None:
                continue
            ch.compared += 1
            if before in REPRODUCING and now == "no-repro":
                ch.stopped.append((e, now))
            elif before in ("no-repro", "differs") and now in REPRODUCING:
                ch.started.append((e, before))
            elif before in REPRODUCING and now in REPRODUCING:
                for case in dict.fromkeys(err.case for err in e.errors):
                    old, new = _texts_on(e, case, prev), _texts_on(e, case, rel)
                    if old and new and not set(old) & set(new):
                        ch.reworded.append(Reworded(e, case, old[0], new[0]))
        out.append(ch)
    return out


def version_key(v: str) -> tuple:
    """Order torch versions numerically (2.9.0 before 2.13.0); the full string breaks ties."""
    return release_key(v), v


def _rows(conn: sqlite3.Connection, sql: str, *args) -> list[sqlite3.Row]:
    return conn.execute(sql, args).fetchall()


def _graph_break(r) -> GraphBreakRow:
    return GraphBreakRow(r["id"], r["gb_type"], r["url"], r["releases"], r["answer"], bool(r["own_entry"]))


def graph_break_rows(conn: sqlite3.Connection) -> list[GraphBreakRow]:
    return [_graph_break(r) for r in _rows(conn, "select * from graph_breaks order by id")]


def _entry_page(conn: sqlite3.Connection, row: sqlite3.Row) -> EntryPage:
    eid = row["id"]
    page = EntryPage(
        id=eid, title=row["title"], rule=row["rule"], exporters=json.loads(row["exporters"]),
        stage=row["stage"], tags=json.loads(row["tags"]), reproduces_on_pinned=bool(row["reproduces_on_pinned"]),
        patterns=json.loads(row["patterns"]), cause=row["cause"], fix=row["fix"], notes=row["notes"] or "",
        refs=json.loads(row["refs"]), reproduces_on=json.loads(row["reproduces_on"]), fixed_in=row["fixed_in"],
        retired=bool(row["retired"]), artifact_step=row["artifact_step"] or "", artifact_side=row["artifact_side"] or "",
        verified=bool(row["verified"]),
    )
    page.quotes = [QuotedError(r["source"], r["torch"] or "", r["text"])
                   for r in _rows(conn, "select * from entry_quotes where entry = ? order by seq", eid)]
    page.graph_breaks = [_graph_break(r) for r in _rows(
        conn, "select g.* from graph_breaks g join entry_graph_breaks l on l.id = g.id where l.entry = ? "
              "order by g.id", eid)]
    # failing.py first, its variants by name, the fixed script last: the order a reader compares them.
    for c in _rows(conn, 'select * from cases where entry = ? order by kind = \'fixed\', "case" != \'failing.py\', "case"',
                   eid):
        page.cases.append(Script(c["case"], c["kind"], c["exporter"], c["code"], json.loads(c["companions"] or "[]")))
    obs = _rows(conn, "select * from observations where source = 'entry' and entry = ? order by key", eid)

    errors: dict[tuple[str, str], ObservedError] = {}
    current = {c.name: code_hash(c.code) for c in page.cases}
    for o in obs:
        if o["outcome"] != "fail" or not str(o["case"] or "").startswith("failing"):
            continue
        if current.get(o["case"]) != o["case_hash"]:
            continue  # a run of an earlier version of the script
        # Only errors the entry's patterns name (kb.classify decided at build time, and
        # error_text is then the exception the entry explains, not a wrapper around it): a
        # script that fails differently on an old release shows up in the status table as
        # "fails with another error", not here.
        if not o["reproduces"]:
            continue
        text = o["error_text"] or ""
        if not text.strip():
            continue
        key = (o["case"], text)
        if key not in errors:
            errors[key] = ObservedError(o["case"], o["exporter"], o["stage"], text, [])
        if o["torch"] and o["torch"] not in errors[key].torch:
            errors[key].torch.append(o["torch"])
    order = {c.name: i for i, c in enumerate(page.cases)}
    page.errors = sorted(errors.values(), key=lambda e: (order.get(e.case, 99), e.case))
    for e in page.errors:
        e.torch.sort(key=version_key)

    page.statuses = [
        VersionStatus(r["torch"], r["status"], r["fix"], r["failing_run"], r["failing_reproduced"], r["fixed_run"],
                      r["fixed_ok"])
        for r in _rows(conn, "select * from entry_versions where entry = ? order by release_order", eid)
    ]

    page.fix_results = [
        FixResult(r["fix"], r["exporter"], r["torch"], r["models_tried"], r["models_fixed"], r["models_past"])
        for r in _rows(conn, "select * from entry_fixes where entry = ? order by fix, exporter, torch", eid)
    ]
    page.corpus_models = [
        (r["model"], r["n"]) for r in _rows(
            conn, "select model, count(*) as n from observations where matched_entry = ? and source != 'entry' "
            "group by model order by n desc, model", eid)
    ]
    return page


def _count_case(tally, o) -> None:
    """Count one run of an entry's script: failing scripts should fail, fixed ones pass."""
    if str(o["case"] or "").startswith("failing"):
        tally.failing_run += 1
        # Only an exception reproduces the entry; a timeout or a crash is another story.
        tally.failing_failed += o["outcome"] == FAIL
    else:
        tally.fixed_run += 1
        tally.fixed_ok += o["outcome"] == PASS


def _corpus(conn: sqlite3.Connection) -> Corpus:
    versions = sorted({r[0] for r in _rows(conn, "select distinct torch from observations where source != 'entry' "
                                                  "and torch is not null")}, key=version_key)
    if not versions:
        return Corpus(None, [], [], [], {}, {}, {})
    latest = versions[-1]
    obs = _rows(conn, "select model, exporter, outcome, matched_entry, signature from observations "
                      "where source != 'entry' and torch = ?", latest)
    cells: dict[tuple[str, str], Rate] = {}
    for o in obs:
        r = cells.setdefault((o["model"], o["exporter"]), Rate(0, 0))
        r.total += 1
        r.passed += o["outcome"] == PASS
    models = sorted({m for m, _ in cells})
    known = [x for x in EXPORTERS if any(x == e for _, e in cells)]
    exporters = known + sorted({e for _, e in cells} - set(known))
    per_exporter = {}
    for x in exporters:
        attempted = [(m, r) for (m, e), r in cells.items() if e == x]
        # A model passes an exporter when every attempt on this release passed.
        per_exporter[x] = Rate(sum(r.passed == r.total for _, r in attempted), len(attempted))
    causes: dict[str, list[Cause]] = {}
    for x in exporters:
        counts = Counter((o["matched_entry"], o["matched_entry"] or o["signature"] or "")
                         for o in obs if o["exporter"] == x and o["outcome"] != PASS)
        causes[x] = [Cause(entry, sig if entry is None else "", n)
                     for (entry, sig), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][1]))[:5]]
    return Corpus(latest, versions[:-1], models, exporters, cells, per_exporter, causes)


def _entry_runs(conn: sqlite3.Connection) -> list[EntryRuns]:
    runs: dict[str, EntryRuns] = {}
    # Only the entries' own script runs (check and sweep), which carry their entry id; the
    # collectors' "entry" corpus source records the same scripts as models, without it.
    for o in _rows(conn, 'select exporter, "case", outcome from observations where source = \'entry\' '
                         'and entry is not null'):
        _count_case(runs.setdefault(o["exporter"], EntryRuns(o["exporter"], 0, 0, 0, 0)), o)
    rank = {x: i for i, x in enumerate(EXPORTERS)}
    return sorted(runs.values(), key=lambda r: (rank.get(r.exporter, 99), r.exporter))


COMPAT_SQL = ("select exporter, written_on, runtime, loaded_on, outcome, stage, matched_entry, exc_type, message "
              "from compat")


def compat_grids(rows) -> list[CompatGrid]:
    """kb.db's compat rows (COMPAT_SQL) as one grid per exporter and runtime, torch releases
    first; the docs page and the UI's /compat both use it."""
    grids: dict[tuple[str, str], CompatGrid] = {}
    failures: dict[tuple, int] = defaultdict(int)
    for r in rows:
        side = (r["exporter"], r["runtime"])
        grid = grids.setdefault(side, CompatGrid(r["exporter"], [], [], {}, [], r["runtime"]))
        rate = grid.cells.setdefault((r["written_on"], r["loaded_on"]), Rate(0, 0))
        rate.total += 1
        rate.passed += r["outcome"] == "ok"
        if r["outcome"] != "ok":
            first = next((ln.strip() for ln in (r["message"] or "").splitlines() if ln.strip()), "")
            error = f"{r['exc_type']}: {first}" if r["exc_type"] else (first or r["outcome"])
            failures[(side, r["written_on"], r["loaded_on"], r["matched_entry"], r["stage"] or "", error[:200])] += 1
    for (side, written, loaded, entry, stage, error), n in failures.items():
        grids[side].failures.append(CompatFailure(written, loaded, entry, stage, error, n))
    rank = {x: i for i, x in enumerate(EXPORTERS)}
    for g in grids.values():
        g.written = sorted({w for w, _ in g.cells}, key=version_key)
        g.loaded = sorted({ld for _, ld in g.cells}, key=version_key)
        g.failures.sort(key=lambda f: (version_key(f.written_on), version_key(f.loaded_on), -f.count))
    return sorted(grids.values(), key=lambda g: (g.runtime != "torch", g.runtime, rank.get(g.exporter, 99), g.exporter))


def load(db: Path) -> SiteData:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        entries = [_entry_page(conn, r) for r in _rows(conn, "select * from entries order by id")]
        return SiteData(entries, _corpus(conn), _entry_runs(conn), compat_grids(_rows(conn, COMPAT_SQL)),
                        release_comparison(_rows(conn, releases_mod.RUNS_SQL)), graph_break_rows(conn))
    finally:
        conn.close()
