"""Build kb.db from the catalogue and the committed observations.

The build is deterministic: rows are inserted in a fixed order and nothing depends on
the clock, so the same sources give the same content. Classification of observations
happens here, once, with the current matcher and the rule in kb.classify, so improving
the matcher reclassifies history; every reader of kb.db takes the stored result.
The database is written to a temporary file and moved into place, so a reader never
sees a half-built kb.db.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path

import sqlite_utils

from . import __version__, devset, paths
from .catalogue import Entry, load_catalogue
from .classify import (Classification, best_match, classify, entry_ref, failure_blocks, failure_text, observed_texts,
                       quoted_texts, run_texts, silent_match)
from .devset import thread_key
from .extract import extract
from .matcher import CALIBRATION_FILE, EntryRef, Matcher, prose_of
from .normalize import clean
from .observations import VERSIONED_LIBS, read_observations, run_of
from .patternset import PatternSet
from . import graph_breaks, releases, version_status
from .version_status import EntryVersions

SCHEMA_VERSION = 11


@dataclass
class BuildReport:
    entries: int = 0
    observations: int = 0
    classified: int = 0
    explained: int = 0
    problems: list[str] = field(default_factory=list)


def fingerprint() -> str:
    """Cheap staleness stamp: sizes and mtimes of every source and of kb's own code."""
    h = hashlib.sha256(f"{SCHEMA_VERSION}:{__version__}".encode())
    root = paths.root()
    files = []
    for base, patterns in (
        (paths.entries_dir(), ("*/entry.toml", "*/*.py")),
        (paths.observations_dir(), ("*.jsonl", "fixes/*.jsonl", "compat/*.jsonl", "releases/*.jsonl",
                                     "graph-breaks/*.json")),
        (Path(__file__).parent, ("*.py", CALIBRATION_FILE.name)),
        (root / "devset", ("*.jsonl", "reports/*.jsonl")),
    ):
        if base.is_dir():
            for pattern in patterns:
                files.extend(base.glob(pattern))
    for f in sorted(set(files)):
        st = f.stat()
        rel = f.relative_to(root) if f.is_relative_to(root) else f
        h.update(f"{rel}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _stamp_path(db: Path) -> Path:
    return db.with_name(db.name + ".stamp")


def is_stale(db: Path | None = None) -> bool:
    db = db or paths.db_path()
    stamp = _stamp_path(db)
    return not (db.exists() and stamp.exists() and stamp.read_text().strip() == fingerprint())


def _create_tables(kdb: sqlite_utils.Database) -> None:
    kdb["entries"].create(
        {"id": str, "title": str, "rule": str, "exporters": str, "stage": str, "tags": str,
         "reproduces_on_pinned": int, "verified": int, "patterns": str, "pattern_context": str, "cause": str, "fix": str, "notes": str,
         "refs": str, "failing_code": str, "fixed_code": str, "url": str,
         "reproduces_on": str, "fixed_in": str, "retired": int, "version_summary": str, "error_text": str,
         "artifact_step": str, "artifact_side": str},
        pk="id",
    )
    kdb["entry_versions"].create(
        {"entry": str, "torch": str, "release_order": int, "status": str, "fix": str, "failing_run": int,
         "failing_reproduced": int, "failing_failed": int, "fixed_run": int, "fixed_ok": int, "error_text": str},
        pk=("entry", "torch"), foreign_keys=[("entry", "entries", "id")],
    )
    kdb["cases"].create(
        {"entry": str, "case": str, "kind": str, "exporter": str, "code": str, "companions": str},
        pk=("entry", "case"), foreign_keys=[("entry", "entries", "id")],
    )
    kdb["entry_texts"].create(
        {"entry": str, "seq": int, "text": str}, pk=("entry", "seq"), foreign_keys=[("entry", "entries", "id")]
    )
    # The errors an unverified entry quotes from reports, with their threads: its stand-in for runs.
    kdb["entry_quotes"].create(
        {"entry": str, "seq": int, "source": str, "torch": str, "text": str}, pk=("entry", "seq"),
        foreign_keys=[("entry", "entries", "id")]
    )
    # The train split of the evidence base (kb/devset.py): real reports the matcher learns
    # wordings from. Test reports never enter kb.db.
    kdb["report_texts"].create(
        {"seq": int, "label": str, "entry": str, "thread": str, "exporter": str, "torch": str, "stage": str,
         "text": str}, pk="seq",
    )
    columns = {
        "key": str, "run": str, "source": str, "model": str, "case": str, "entry": str, "exporter": str,
        "stage": str, "outcome": str, "exc_type": str, "message": str, "traceback": str,
        "signature": str, "error_text": str, "reproduces": int, "matched_entry": str, "match_score": float,
        "duration_s": float,
        "peak_rss_mb": float, "returncode": int, "signal": str, "python": str, "platform": str,
        "case_hash": str,
    }
    columns.update({lib: str for lib in VERSIONED_LIBS})
    kdb["observations"].create(columns, pk="key")
    kdb["fix_attempts"].create(
        {"key": str, "source": str, "model": str, "exporter": str, "fix": str, "entry": str, "ran_as": str,
         "outcome": str, "result": str, "matched_entry": str, "stage": str, "exc_type": str, "message": str,
         "torch": str, "duration_s": float},
        pk="key",
    )
    kdb["entry_fixes"].create(
        {"entry": str, "fix": str, "exporter": str, "torch": str, "models_tried": int, "models_fixed": int,
         "models_past": int, "fixed_models": str, "other_failure_models": str, "still_failing": str},
        pk=("entry", "fix", "exporter", "torch"),
    )
    kdb["compat"].create(
        {"key": str, "exporter": str, "model": str, "entry": str, "written_on": str, "runtime": str, "loaded_on": str,
         "outcome": str, "stage": str, "exc_type": str, "message": str, "traceback": str, "matched_entry": str,
         "duration_s": float, "written_onnxruntime": str, "loaded_onnxruntime": str},
        pk="key",
    )
    # The corpus sample on several torch releases (kb/releases.py).
    kdb["release_runs"].create(
        {"key": str, "source": str, "model": str, "exporter": str, "torch": str, "outcome": str, "stage": str,
         "exc_type": str, "message": str, "matched_entry": str}, pk="key")
    kdb["release_rates"].create({"exporter": str, "torch": str, "models": int, "ok": int, "pass_rate": float},
                                pk=("exporter", "torch"))
    kdb["release_changes"].create(
        {"source": str, "model": str, "exporter": str, "before": str, "after": str, "direction": str,
         "before_outcome": str, "after_outcome": str, "entry": str, "error": str},
        pk=("source", "model", "exporter", "before", "after"))
    # Dynamo's graph-break registry (kb/graph_breaks.py), and the entries that explain each id.
    kdb["graph_breaks"].create(
        {"id": str, "gb_type": str, "explanation": str, "hints": str, "context": str, "releases": str,
         "url": str, "answer": str, "own_entry": int}, pk="id")
    kdb["graph_break_types"].create({"gb_type": str, "id": str}, pk=("gb_type", "id"))
    kdb["entry_graph_breaks"].create({"entry": str, "id": str}, pk=("entry", "id"))
    kdb["meta"].create({"key": str, "value": str}, pk="key")


def _entry_row(e: Entry, versions: EntryVersions, texts: list[str]) -> dict:
    return {
        "id": e.id,
        "title": e.title,
        "rule": e.rule,
        "exporters": json.dumps(list(e.exporters)),
        "stage": e.stage,
        "tags": json.dumps(list(e.tags)),
        "reproduces_on_pinned": int(e.reproduces),
        "verified": int(e.verified),
        "patterns": json.dumps(list(e.patterns)),
        "pattern_context": json.dumps(sorted(e.pattern_context.items())),
        "cause": e.cause,
        "fix": e.fix,
        "notes": e.notes,
        "refs": json.dumps({k: list(v) for k, v in e.refs.items()}),
        "failing_code": e.code("failing.py"),
        "fixed_code": e.code(e.fixed_case),
        "url": paths.entry_url(e.id),
        "reproduces_on": json.dumps(versions.reproduces_on),
        "fixed_in": versions.fixed_in,
        "retired": int(versions.retired),
        "version_summary": versions.summary(),
        "artifact_step": e.artifact_step,
        "artifact_side": e.artifact_side,
        "error_text": texts[0] if texts else (e.quotes[0].text if e.quotes else None),
    }


def _version_rows(versions: dict[str, EntryVersions]):
    for eid in sorted(versions):
        for order, r in enumerate(versions[eid].releases):
            yield {"entry": eid, "torch": r.torch, "release_order": order, "status": r.status, "fix": r.fix,
                   "failing_run": r.failing_run, "failing_reproduced": r.failing_reproduced,
                   "failing_failed": r.failing_failed, "fixed_run": r.fixed_run, "fixed_ok": r.fixed_ok,
                   "error_text": r.error_text}


def _observation_row(rec: dict, found: Classification | None) -> dict:
    versions = rec.get("versions") or {}
    row = {
        "key": rec["key"],
        "run": run_of(rec),
        "source": rec["source"],
        "model": rec["model"],
        "case": rec.get("case"),
        "entry": rec.get("entry"),
        "exporter": rec["exporter"],
        "stage": rec["stage"],
        "outcome": rec["outcome"],
        "exc_type": rec.get("exc_type"),
        "message": rec.get("message"),
        "traceback": rec.get("traceback"),
        "signature": found.signature if found else None,
        "error_text": found.error_text if found else None,
        "reproduces": None if found is None or found.reproduces is None else int(found.reproduces),
        "matched_entry": found.matched_entry if found else None,
        "match_score": found.match_score if found else None,
        "duration_s": rec.get("duration_s"),
        "peak_rss_mb": rec.get("peak_rss_mb"),
        "returncode": rec.get("returncode"),
        "signal": rec.get("signal"),
        "python": rec.get("python"),
        "platform": rec.get("platform"),
        "case_hash": rec.get("case_hash"),
    }
    for lib in VERSIONED_LIBS:
        row[lib] = versions.get(lib)
    return row


def _fix_rows(records: list[dict], matcher: Matcher) -> tuple[list[dict], list[dict]]:
    """Fix retries (collectors.fixes) and, per entry, fix and exporter, what they achieved.

    A retry either succeeds outright (every stage, numerics included), gets past the
    entry's failure only to hit another one (the matcher no longer names the entry), or
    still fails with the entry's error."""
    attempts, tally = [], {}
    for rec in sorted(records, key=lambda r: r["key"]):
        if not rec.get("fix"):
            continue
        torch = (rec.get("versions") or {}).get("torch")
        entry = rec.get("fix_entry")
        result = "fixed" if rec["outcome"] == "ok" else "same"
        matched = None
        if rec["outcome"] == "fail":
            best = best_match(failure_blocks(rec), matcher, rec.get("exporter"), entry, failure_text(rec))
            matched = best.id if best else None
            result = "same" if matched == entry else "other"
        elif rec["outcome"] != "ok":
            result = "other"  # a timeout or a crash after the fix: not the entry's error any more
        attempts.append({"key": rec["key"], "source": rec["source"], "model": rec["model"], "exporter": rec["exporter"],
                         "fix": rec["fix"], "entry": entry, "ran_as": rec.get("ran_as"), "outcome": rec["outcome"],
                         "result": result, "matched_entry": matched, "stage": rec.get("stage"),
                         "exc_type": rec.get("exc_type"), "message": rec.get("message"), "torch": torch,
                         "duration_s": rec.get("duration_s")})
        group = tally.setdefault((entry, rec["fix"], rec["exporter"], torch), {"fixed": [], "other": [], "same": []})
        group[result].append(f"{rec['source']}/{rec['model']}")
    summary = [
        {"entry": entry, "fix": fix, "exporter": exporter, "torch": torch,
         "models_tried": sum(len(v) for v in g.values()), "models_fixed": len(g["fixed"]),
         "models_past": len(g["other"]), "fixed_models": json.dumps(sorted(g["fixed"])),
         "other_failure_models": json.dumps(sorted(g["other"])), "still_failing": json.dumps(sorted(g["same"]))}
        for (entry, fix, exporter, torch), g in sorted(tally.items(), key=lambda kv: tuple(map(str, kv[0])))
    ]
    return attempts, summary


def _compat_records() -> list[dict]:
    """`exportkb compat` results, one per cell: loads on a torch release
    (observations/compat/loaded-on-*.jsonl) and runs on an onnxruntime of its own
    (onnxruntime-*.jsonl).

    A cell is (case, exporter, written on, what ran it, and for a torch release the
    onnxruntime beside it). A release whose venv was made again can bring other
    companions, and every load is then recorded anew under new keys. Like the sweep's
    release status (version_status), the cell keeps the run whose venvs had the most
    companions on both sides, and between equals the later one."""
    release_of, companions = version_status.release_of, version_status.companions
    cells: dict[tuple, dict] = {}
    folder = paths.observations_dir() / "compat"
    for path in [*sorted(folder.glob("loaded-on-*.jsonl")), *sorted(folder.glob("onnxruntime-*.jsonl"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            ran_on = ((rec["runtime"], rec["runtime_version"]) if rec.get("runtime")
                      else ("torch", release_of(rec["loaded_on"]), (rec.get("versions") or {}).get("onnxruntime")))
            cell = (rec["model"], rec["exporter"], release_of(rec["written_on"]), *ran_on)
            have = cells.get(cell)
            rank = companions(rec.get("writer_versions")) + companions(rec.get("versions"))
            if have is None or rank >= companions(have.get("writer_versions")) + companions(have.get("versions")):
                cells[cell] = rec
    return sorted(cells.values(), key=lambda r: r["key"])


def _compat_rows(records: list[dict], matcher: Matcher, entries: list[Entry]):
    """The compat table: each load or run, its failure classified (a wrong result with no
    error text by the entry that names the model among its silent ones). `runtime` says
    what ran the artifact: a torch release (`loaded_on` is its release) or an onnxruntime
    of its own (`loaded_on` is its version)."""
    release_of = version_status.release_of
    for rec in records:
        matched = None
        if rec["outcome"] == "fail":
            best = best_match(failure_blocks(rec), matcher, rec["exporter"], text=failure_text(rec))
            matched = best.id if best else silent_match(rec, entries)
        runtime = rec.get("runtime") or "torch"
        yield {"key": rec["key"], "exporter": rec["exporter"], "model": rec["model"], "entry": rec.get("entry"),
               "written_on": release_of(rec["written_on"]), "runtime": runtime,
               "loaded_on": release_of(rec["loaded_on"]) if runtime == "torch" else rec["runtime_version"],
               "outcome": rec["outcome"], "stage": rec.get("stage"), "exc_type": rec.get("exc_type"),
               "message": rec.get("message"), "traceback": rec.get("traceback"),
               "matched_entry": matched, "duration_s": rec.get("duration_s"),
               "written_onnxruntime": (rec.get("writer_versions") or {}).get("onnxruntime"),
               "loaded_onnxruntime": (rec.get("versions") or {}).get("onnxruntime")}


def _release_rows(corpus: list[dict], classes: dict, matcher: Matcher, entries: list[Entry]) -> list[dict]:
    """`release_runs`: every run of the release sample (observations/releases/), and the
    pinned release's corpus results for the same models, each failure classified."""
    others = read_observations(paths.observations_dir() / "releases").records
    sampled = {(r["source"], r["model"]) for r in others}
    rows = [releases.run_row(r, c.matched_entry if (c := classify(r, matcher, entries)) else None) for r in others]
    rows += [releases.run_row(r, c.matched_entry if (c := classes.get(r["key"])) else None) for r in corpus
             if (r["source"], r["model"]) in sampled and run_of(r) == "collect"]
    return sorted(rows, key=lambda r: r["key"])


def _graph_break_rows(learned: dict[str, list[str]]) -> tuple[list[dict], list[dict], list[dict]]:
    """The registry's ids; their wordings; and which entries explain which ids: an entry
    explains an id when one of the errors it is known by (its runs' texts and the train
    reports labelled with it) is that graph break. The rest go to the class entry."""
    breaks = graph_breaks.load(paths.observations_dir() / "graph-breaks")
    index = graph_breaks.Index.build(breaks)
    links = sorted({(eid, gb_id) for eid, texts in learned.items() for text in texts
                    for gb_id in index.identify(text)})
    own: dict[str, list[str]] = {}
    for eid, gb_id in links:
        own.setdefault(gb_id, []).append(eid)
    rows = []
    for gb in sorted(breaks.values(), key=lambda g: g.id):
        # An id several entries explain goes to a specific one before the class entry.
        mine = sorted(own.get(gb.id, []), key=lambda e: (e == graph_breaks.CLASS_ENTRY, e))
        rows.append({"id": gb.id, "gb_type": gb.gb_type, "explanation": gb.explanation,
                     "hints": json.dumps(gb.hints, ensure_ascii=False), "context": gb.context,
                     "releases": ", ".join(gb.releases), "url": gb.url,
                     "answer": mine[0] if mine else graph_breaks.CLASS_ENTRY, "own_entry": int(bool(mine))})
    types = [{"gb_type": t, "id": gb.id} for gb in breaks.values() for t in sorted(gb.types)]
    return rows, types, [{"entry": e, "id": g} for e, g in links]


def build(db: Path | None = None, *, quiet: bool = True) -> BuildReport:
    db = Path(db or paths.db_path())
    db.parent.mkdir(parents=True, exist_ok=True)
    stamp = fingerprint()
    entries = load_catalogue(paths.entries_dir())
    loaded = read_observations(paths.observations_dir())
    observations = sorted(loaded.records, key=lambda r: r["key"])
    report = BuildReport(entries=len(entries), observations=len(observations), problems=list(loaded.problems))

    observed = observed_texts(entries, observations)
    compat = _compat_records()
    run_texts(entries, compat, observed)  # errors of loads on other releases, when one entry's patterns name them
    everything = devset.load()
    # A quote of a thread in the evidence base is learned as that report (train; so the
    # out-of-fold scoring can leave its thread out) or never (test), not a second time here.
    in_devset = {thread_key(r.source) for r in everything}
    quoted_texts(entries, observed, lambda source: thread_key(source) in in_devset)
    reports = [r for r in everything if r.split == "train" and r.text.strip()]
    learned = learned_texts(observed, _report_rows(reports), {e.id for e in entries})
    matcher = Matcher([entry_ref(e) for e in entries], *learned)
    classes = {rec["key"]: classify(rec, matcher, entries) for rec in observations}
    versions = version_status.compute(entries, observations, classes)
    # The explained share is measured on the corpus run; entry checks and sweeps of other
    # releases prove entries rather than sample failures.
    corpus = [c for rec in observations if run_of(rec) == "collect" and (c := classes[rec["key"]]) is not None]
    report.classified, report.explained = len(corpus), sum(bool(c.matched_entry) for c in corpus)

    tmp = db.with_name(f".{db.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp)
    try:
        kdb = sqlite_utils.Database(conn)
        _create_tables(kdb)
        kdb["entries"].insert_all(_entry_row(e, versions[e.id], observed.get(e.id, [])) for e in entries)
        kdb["entry_versions"].insert_all(_version_rows(versions))
        kdb["cases"].insert_all(
            {"entry": e.id, "case": c, "kind": "fixed" if c == e.fixed_case else "failing",
             "exporter": e.exporter_for(c), "code": e.code(c),
             "companions": json.dumps(list(e.companions.get(c, ())))}
            for e in entries for c in (*e.failing_cases, e.fixed_case)
        )
        kdb["entry_texts"].insert_all(
            {"entry": eid, "seq": i, "text": t} for eid in sorted(observed) for i, t in enumerate(observed[eid])
        )
        kdb["entry_quotes"].insert_all(
            {"entry": e.id, "seq": i, "source": q.source, "torch": q.torch, "text": q.text}
            for e in entries for i, q in enumerate(e.quotes)
        )
        kdb["report_texts"].insert_all(_report_rows(reports))
        kdb["observations"].insert_all(_observation_row(rec, classes[rec["key"]]) for rec in observations)
        fix_attempts, fix_summary = _fix_rows(read_observations(paths.observations_dir() / "fixes").records, matcher)
        kdb["fix_attempts"].insert_all(fix_attempts)
        kdb["entry_fixes"].insert_all(fix_summary)
        kdb["compat"].insert_all(_compat_rows(compat, matcher, entries))
        release_runs = _release_rows(observations, classes, matcher, entries)
        kdb["release_runs"].insert_all(release_runs)
        kdb["release_rates"].insert_all(releases.rate_rows(releases.rates(release_runs)))
        kdb["release_changes"].insert_all(releases.change_rows(releases.changes(release_runs)))
        gb_rows, gb_types, gb_links = _graph_break_rows(learned[0])
        kdb["graph_breaks"].insert_all(gb_rows)
        kdb["graph_break_types"].insert_all(gb_types)
        kdb["entry_graph_breaks"].insert_all(gb_links)
        kdb["entries"].enable_fts(["title", "rule", "cause", "fix", "patterns"], tokenize="porter")
        kdb["observations"].enable_fts(["exc_type", "message"], tokenize="porter")
        for col in ("run", "exporter", "outcome", "matched_entry", "torch", "entry", "model", "signature"):
            kdb["observations"].create_index([col])
        kdb["meta"].insert_all(
            [
                {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                {"key": "kb_version", "value": __version__},
                {"key": "entries", "value": str(report.entries)},
                {"key": "observations", "value": str(report.observations)},
            ],
            pk="key",
        )
        conn.commit()
    finally:
        conn.close()
    os.replace(tmp, db)
    _stamp_path(db).write_text(stamp + "\n")
    return report


def ensure_built(db: Path | None = None) -> tuple[Path, BuildReport | None]:
    """Build kb.db if any source changed since the last build. Returns (path, report or None)."""
    db = Path(db or paths.db_path())
    if is_stale(db):
        return db, build(db)
    return db, None


def _report_rows(reports: list[devset.Report]) -> list[dict]:
    return [{"seq": i, "label": r.label, "entry": r.expected, "thread": thread_key(r.source),
             "exporter": r.exporter, "torch": r.torch, "stage": r.stage, "text": r.text}
            for i, r in enumerate(reports)]


def learned_texts(observed: dict[str, list[str]], report_rows: list[dict], ids: set[str],
                  exclude_threads: frozenset[str] = frozenset()) -> tuple[dict[str, list[str]], list[str]]:
    """The wordings the matcher learns: each entry's observed texts plus the train reports
    labelled with it, and the texts of train reports that no entry explains.

    `exclude_threads` leaves some reports out, so that kb.calibrate can score a report
    with a matcher that never saw its thread."""
    learned = {eid: list(texts) for eid, texts in observed.items()}
    unexplained = []
    for r in report_rows:
        if r["thread"] in exclude_threads:
            continue
        text = clean(r["text"])
        if r["entry"] in ids:
            learned.setdefault(r["entry"], []).append(text)
        elif r["entry"] is None:
            unexplained.append(text)
    return learned, unexplained


def matcher_inputs(db: Path | None = None, *, exclude_threads: frozenset[str] = frozenset()):
    """What the matcher is built from, as kb.db holds it: (entries, learned texts, texts no entry explains)."""
    db = Path(db or paths.db_path())
    kdb = sqlite_utils.Database(db)
    refs = [
        EntryRef(r["id"], r["title"], tuple(json.loads(r["exporters"])), tuple(json.loads(r["patterns"])),
                 prose_of(r["title"], r["rule"], r["cause"], r["fix"]), tuple(json.loads(r["tags"])),
                 tuple(tuple(pair) for pair in json.loads(r["pattern_context"])))
        for r in kdb.query("select id, title, exporters, patterns, pattern_context, rule, cause, fix, tags "
                           "from entries order by id")
    ]
    observed: dict[str, list[str]] = {}
    for r in kdb.query("select entry, text from entry_texts order by entry, seq"):
        observed.setdefault(r["entry"], []).append(r["text"])
    reports = list(kdb.query("select * from report_texts order by seq"))
    learned, unexplained = learned_texts(observed, reports, {r.id for r in refs}, exclude_threads)
    if exclude_threads:
        everything, _ = learned_texts(observed, reports, {r.id for r in refs})
        refs = fold_patterns(refs, everything, learned)
    return refs, learned, unexplained


def fold_patterns(refs: list[EntryRef], everything: dict[str, list[str]],
                  kept: dict[str, list[str]]) -> list[EntryRef]:
    """The entries as a matcher that never saw the left-out threads would have them.

    A pattern is written from the texts known for its entry: runs and train reports. One
    that names some of them, but none left once a fold's threads are out, was written
    for that fold's reports, so scoring them with it would grade the pattern on what it
    was made from. It is dropped for that fold. A pattern that names no known text at
    all (written from the exporter's source) owes nothing to any fold and stays."""
    patterns = PatternSet(refs)
    named: dict[str, set[int]] = {}  # each known text -> the patterns that name it, found once

    def naming(texts: list[str]) -> set[int]:
        for t in texts:
            if t not in named:
                named[t] = patterns.named(extract(t, already_clean=True), t)
        return set().union(*(named[t] for t in texts))

    out = []
    for ref in refs:
        mine = patterns.of(ref.id)
        in_kept, in_all = naming(kept.get(ref.id, [])), naming(everything.get(ref.id, []))
        keep = [p for p, j in zip(ref.patterns, mine) if j in in_kept or j not in in_all]
        if len(keep) != len(ref.patterns):
            ref = replace(ref, patterns=tuple(keep), contexts=tuple((p, c) for p, c in ref.contexts if p in keep))
        out.append(ref)
    return out


def load_matcher(db: Path | None = None, *, exclude_threads: frozenset[str] = frozenset(),
                 calibration=None) -> Matcher:
    return Matcher(*matcher_inputs(db, exclude_threads=exclude_threads), calibration=calibration)
