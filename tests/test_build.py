import json
import shutil
import sqlite3

import sqlite_utils

from kb import paths
from kb.build import build, ensure_built, is_stale, load_matcher
from kb.catalogue import load_catalogue
from kb.observations import append_observation, read_observations
from kb.version_status import current_case_hashes
from conftest import PINNED_TORCH, REPO


def _dump(db):
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def test_build_is_deterministic(tmp_path):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    build(a)
    build(b)
    assert _dump(a) == _dump(b)


def test_db_holds_catalogue_cases_and_fts(tmp_path):
    db = tmp_path / "kb.db"
    report = build(db)
    kdb = sqlite_utils.Database(db)
    catalogue = load_catalogue(REPO / "entries")
    assert report.entries == len(catalogue) == kdb["entries"].count
    assert kdb["cases"].count == sum(len(e.failing_cases) + 1 for e in catalogue)
    row = kdb["entries"].get("static-batch-size")
    assert row["failing_code"] == (REPO / "entries/static-batch-size/failing.py").read_text()
    hits = list(kdb.query("select entries.id from entries_fts join entries on entries.rowid = entries_fts.rowid where entries_fts match 'frozen'"))
    assert {"id": "frozen-storage-mutation"} in hits


def test_committed_observations_are_classified_at_build_time(tmp_path):
    db = tmp_path / "kb.db"
    report = build(db)
    kdb = sqlite_utils.Database(db)
    records = read_observations(REPO / "observations").records
    assert report.observations == len(records) == kdb["observations"].count
    # On the pinned release `exportkb check` guarantees each failing script's error is
    # ranked to its own entry; older releases (the sweep) may fail differently.
    pinned = PINNED_TORCH.split("+")[0]
    # Only runs of the scripts as they are now: a script edited since (a renamed case, a
    # pattern dropped with it) keeps its old runs on record, and those no longer need to match.
    catalogue = load_catalogue(REPO / "entries")
    current = current_case_hashes(catalogue)
    failed_entry_runs = [r for r in kdb.query(
        "select entry, \"case\", case_hash, matched_entry from observations where source = 'entry' "
        "and entry is not null and outcome = 'fail' and \"case\" like 'failing%' and torch like ?", [pinned + "%"])
        if current.get((r["entry"], r["case"])) == r["case_hash"]]
    assert failed_entry_runs, "observations/entries.jsonl should hold the entries' recorded runs"
    assert {r["entry"] for r in failed_entry_runs} == {e.id for e in catalogue if e.reproduces}
    assert all(r["entry"] == r["matched_entry"] for r in failed_entry_runs)
    # The explained share is the corpus run's: entry checks and other releases' sweeps
    # are classified too, but prove entries rather than sample failures.
    failed = kdb.execute("select count(*), count(matched_entry) from observations "
                         "where outcome = 'fail' and run = 'collect'").fetchone()
    assert (report.classified, report.explained) == failed
    runs = dict(kdb.execute("select run, count(*) from observations group by run").fetchall())
    assert runs["collect"] and runs["check"] and runs["sweep"], runs
    assert kdb.execute("select count(*) from observations where run = 'sweep' and torch like '2.4.%'").fetchone()[0]


def test_unexplained_lists_corpus_failures_only(kb_root):
    """A sweep of an old release failing on an import is not a corpus signature to explain."""
    from kb.unexplained import unexplained_signatures

    base = {"source": "entry", "model": "x/failing.py", "exporter": "export", "stage": "capture",
            "outcome": "fail", "exc_type": "ImportError", "case_hash": "h"}
    obs = kb_root / "observations"
    append_observation(obs / "sweep-torch-2.4.1.jsonl", {**base, "key": "s1", "sweep": True,
                       "versions": {"torch": "2.4.1"}, "message": "cannot import name 'GlmOcrTextConfig'"})
    append_observation(obs / "entries.jsonl", {**base, "key": "c1", "versions": {"torch": PINNED_TORCH},
                       "message": "cannot import name 'CheckOnly'"})
    append_observation(obs / "corpus.jsonl", {**base, "key": "k1", "source": "transformers", "model": "m",
                       "versions": {"torch": PINNED_TORCH}, "stages": [], "exc_type": "ImportError",
                       "message": "cannot import name 'FromTheCorpus'"})
    db, report = ensure_built()
    assert (report.classified, report.explained) == (1, 0)
    rows = unexplained_signatures(db)
    assert [r["examples"] for r in rows] == [["m"]]
    assert rows[0]["signature"].startswith("ImportError: cannot import name") and rows[0]["failures"] == 1


def test_a_silent_mismatch_is_explained_only_for_the_models_an_entry_names(kb_root):
    """A numeric mismatch has no error text to match; the entry that names the model in
    silent_models explains it, for its own exporters only. The same text on another
    model stays unexplained."""
    mismatch = ("fresh inputs: output 0 disagrees with eager: Tensor-likes are not close! "
                "Mismatched elements: 3 / 4 (75.0%)")
    base = {"source": "transformers", "stage": "numeric", "outcome": "fail", "exc_type": "Mismatch",
            "message": mismatch, "case_hash": "h", "versions": {"torch": PINNED_TORCH}, "stages": []}
    shutil.copytree(REPO / "entries" / "transformers-sdpa-mask-skip", kb_root / "entries" / "transformers-sdpa-mask-skip")
    obs = kb_root / "observations" / "corpus.jsonl"
    for key, model, exporter in (("a", "aimv2", "export"), ("b", "aimv2", "jit-script"), ("c", "bert", "export")):
        append_observation(obs, {**base, "key": key, "model": model, "exporter": exporter})
    db, report = ensure_built()
    matched = {r["key"]: r["matched_entry"] for r in sqlite_utils.Database(db).query(
        "select key, matched_entry from observations where run = 'collect'")}
    assert matched == {"a": "transformers-sdpa-mask-skip", "b": None, "c": None}
    assert (report.classified, report.explained) == (3, 1)


def test_stale_detection_and_rebuild(kb_root):
    db, report = ensure_built()
    assert report is not None and db == paths.db_path() and not is_stale()
    assert ensure_built()[1] is None  # nothing changed: no rebuild
    toml = kb_root / "entries/static-batch-size/entry.toml"
    toml.write_text(toml.read_text().replace('title = "Exported program', 'title = "An exported program'))
    assert is_stale()
    _, report = ensure_built()
    assert report is not None
    assert load_matcher().search("AssertionError: Guard failed: x.size()[0] == 2").best.title.startswith("An exported")


def test_torn_observation_line_is_reported_and_others_kept(kb_root):
    obs = kb_root / "observations" / "runs.jsonl"
    good = {"key": "k1", "source": "entry", "model": "static-batch-size/failing.py", "entry": "static-batch-size",
            "case": "failing.py", "exporter": "export", "stage": "run", "outcome": "fail",
            "traceback": "AssertionError: Guard failed: x.size()[0] == 2", "versions": {"torch": "2.13.0+cpu"}}
    append_observation(obs, good)
    with obs.open("ab") as fh:
        fh.write(b'{"key": "k2", "source": "entr')  # a writer killed mid-line
    append_observation(obs, {**good, "key": "k3"})
    loaded = read_observations(kb_root / "observations")
    assert [r["key"] for r in loaded.records] == ["k1", "k3"]
    assert len(loaded.problems) == 1 and "runs.jsonl:2" in loaded.problems[0]
    report = build()
    assert report.observations == 2
    rows = sqlite_utils.Database(paths.db_path()).query("select key, matched_entry from observations order by key")
    assert [(r["key"], r["matched_entry"]) for r in rows] == [("k1", "static-batch-size"), ("k3", "static-batch-size")]
    assert json.loads(obs.read_text().splitlines()[-1])["key"] == "k3"


def test_a_traceback_cut_inside_a_huge_message_is_classified_by_the_recorded_exception(tmp_path):
    """A model output's repr can fill the stored stderr tail with numbers only; the
    record's exception type and message then name the failure."""
    from kb.extract import extract

    cut = [r for r in read_observations(REPO / "observations").records
           if r["outcome"] == "fail" and r.get("exc_type") and r.get("traceback")
           and not any(b.kind == "exception" for b in extract(r["traceback"]))]
    assert cut, "the committed corpus has such records (e.g. transformers/owlvit under jit-trace)"
    db = tmp_path / "kb.db"
    build(db)
    kdb = sqlite_utils.Database(db)
    for rec in cut:
        row = kdb["observations"].get(rec["key"])
        assert row["signature"].startswith(rec["exc_type"].rsplit(".", 1)[-1]) or \
            row["signature"].startswith(rec["exc_type"]), (rec["model"], row["signature"][:100])
