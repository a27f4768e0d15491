"""The evidence base of real reports, its frozen split, and the matcher's figures on it.

Targets are asserted on the train split (scored out of fold); the test split is
evaluated and published, never asserted on: a test figure that a test enforced would
be one that someone tuned towards.
"""
import json
import re
import sqlite3

import pytest

from kb import devset
from kb.build import ensure_built
from kb.calibrate import calibrate
from kb.catalogue import load_catalogue
from kb.devset import split_of, thread_key
from kb.evaluate import evaluate
from kb.matcher import CALIBRATION_FILE
from conftest import REPO

REPORTS = devset.load()
IDS = {e.id for e in load_catalogue(REPO / "entries")}
FIELDS = {"text", "label", "expected", "source", "exporter", "torch", "stage", "note"}


def test_every_report_is_complete_and_labelled_with_a_real_entry_or_a_cause():
    for path in sorted((REPO / "devset" / "reports").glob("*.jsonl")):
        for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            row = json.loads(raw)
            where = f"{path.name}:{lineno}"
            assert set(row) >= FIELDS, where
            assert row["source"].startswith("https://"), where
            assert row["exporter"] in devset.EXPORTERS, where
            assert row["stage"] in ("export", "save", "load", "run", "env"), where
            assert row["label"] in IDS or row["label"].startswith("none:"), where
            assert row["expected"] == (None if row["label"].startswith("none:") else row["label"]), where
            assert row["text"].strip(), where


def test_every_none_cause_is_in_the_readme_vocabulary():
    """A `none:` slug is how reports of one missing cause are counted together; one that
    only its own report knows cannot be counted, nor found by the next helper."""
    readme = (REPO / "devset" / "reports" / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(none:[a-z0-9-]+)` \|", readme, re.M))
    used = {r.label for r in devset.load() if r.label.startswith("none:")}
    assert used <= documented, sorted(used - documented)


def test_the_evidence_base_is_large_and_covers_every_exporter():
    reports = [r for r in REPORTS if r.origin not in devset.LEGACY_FILES]
    real = reports + [r for r in REPORTS if r.origin == "public.jsonl"]  # runs.jsonl are our own runs
    assert len(real) >= 400
    per = {e: sum(r.exporter == e for r in reports) for e in devset.EXPORTERS}
    assert min(per.values()) >= 25, per
    assert len({thread_key(r.source) for r in reports}) >= 300


def test_split_is_by_thread_frozen_and_at_least_35_percent_test():
    threads: dict[str, set[str]] = {}
    for r in REPORTS:
        threads.setdefault(thread_key(r.source), set()).add(r.split)
    assert all(len(s) == 1 for s in threads.values()), "a thread straddles the split"
    assert all(r.split == "train" for r in REPORTS if r.origin in devset.LEGACY_FILES)
    new = [r for r in REPORTS if r.origin not in devset.LEGACY_FILES]
    assert sum(r.split == "test" for r in new) / len(new) >= 0.35
    # The rule is a hash of the URL: the same thread always lands on the same side.
    assert split_of("https://github.com/pytorch/pytorch/issues/1#issuecomment-2") == \
        split_of("https://github.com/pytorch/pytorch/issues/1")


def test_no_test_text_reaches_kb_db():
    db, _ = ensure_built()
    conn = sqlite3.connect(db)
    try:
        stored = {row[0] for row in conn.execute("select thread from report_texts")}
    finally:
        conn.close()
    test_threads = {thread_key(r.source) for r in REPORTS if r.split == "test"}
    assert stored and not stored & test_threads


def test_no_entry_quotes_a_test_report_and_train_quotes_are_learned_once():
    """An unverified entry stands on quoted reports. A test thread may never be one, or the
    test split would be scored on its own text; a train thread is learned as a report only,
    so that the out-of-fold figures can leave it out."""
    unverified = [e for e in load_catalogue(REPO / "entries") if not e.verified]
    assert unverified, "the catalogue has no unverified entry, so this rule guards nothing"
    threads = {thread_key(r.source): r.split for r in REPORTS}
    for e in unverified:
        for q in e.quotes:
            assert threads.get(thread_key(q.source)) != "test", f"{e.id} quotes the test thread {q.source}"
    db, _ = ensure_built()
    conn = sqlite3.connect(db)
    try:
        for e in unverified:
            texts = [t for (t,) in conn.execute("select text from entry_texts where entry = ?", (e.id,))]
            quoted = [t for (t,) in conn.execute("select text from entry_quotes where entry = ?", (e.id,))]
            assert quoted == [q.text for q in e.quotes]
            if all(thread_key(q.source) in threads for q in e.quotes):
                assert texts == [], f"{e.id}: a quote of a report is learned twice"
    finally:
        conn.close()


def test_committed_calibration_is_what_a_fit_on_train_gives():
    fitted = calibrate()
    committed = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(fitted)), "run: python -m kb.calibrate"


@pytest.fixture(scope="module")
def train_eval():
    db, _ = ensure_built()
    return evaluate([r for r in REPORTS if r.split == "train"], db)


def test_train_confidently_wrong_within_two_percent(train_eval):
    rates = train_eval.matcher["train"]["all"].rates()
    assert rates["confidently_wrong"] <= 2.0, train_eval.matcher["train"]["all"].misses


def test_train_matcher_beats_plain_fts_where_it_counts(train_eval):
    m = train_eval.matcher["train"]["all"].rates()
    f = train_eval.fts["train"]["all"].rates()
    assert m["top1"] >= f["top1"]
    assert m["useful"] >= f["useful"]
    assert m["confidently_wrong"] < f["confidently_wrong"] / 10


def test_unrelated_errors_are_not_answered_confidently(train_eval):
    tally = train_eval.matcher["train"]["all"]
    unrelated = [r for r in REPORTS if r.label == "none:unrelated"]
    assert len(unrelated) >= 8
    wrong = [m for m in tally.misses if m["label"] == "none:unrelated" and m["confident"]]
    assert len(wrong) <= 1, wrong


def test_published_figures_are_what_the_evaluation_gives():
    """devset/evaluation.json (the docs page's data) and the README's table are current."""
    from kb.evaluate import EVALUATION_FILE
    db, _ = ensure_built()
    fresh = evaluate(REPORTS, db).as_dict()
    committed = json.loads((REPO / "devset" / EVALUATION_FILE).read_text(encoding="utf-8"))
    assert committed["figures"] == json.loads(json.dumps(fresh)), "run: python -m kb.evaluate --write"
    test = committed["figures"]["matcher"]["test"]["all"]
    fts = committed["figures"]["fts5"]["test"]["all"]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert (f"| exportkb matcher | {test['top1']}% | {test['top3']}% | {test['useful']}% | "
            f"{test['confidently_wrong']}% |") in readme
    assert (f"| plain FTS5 over the entries | {fts['top1']}% | {fts['top3']}% | {fts['useful']}% | "
            f"{fts['confidently_wrong']}% |") in readme
    assert f"({test['reports']} reports, {test['labelled']} of them" in readme


def test_the_stage_groups_split_every_report_once(train_eval):
    """The by-stage figures (at the export, after it, environment) cover each train report once."""
    groups = train_eval.stages["train"]
    assert sum(t.reports for t in groups.values()) == train_eval.matcher["train"]["all"].reports
    assert sum(t.useful for t in groups.values()) == train_eval.matcher["train"]["all"].useful
    after = [r for r in REPORTS if r.split == "train" and r.stage in ("save", "load", "run")]
    assert after and all(r.stage_group == "after-export" for r in after)
    assert groups["after-export"].reports == len([r for r in after if r.text.strip()])


def test_a_fold_loses_the_patterns_only_its_own_reports_justify():
    """Out of fold, a pattern written for the left-out reports is not graded on them; one a
    run or another fold's report supports stays, and so does one no known text supports."""
    from kb.build import fold_patterns
    from kb.matcher import EntryRef
    ref = EntryRef("e", "t", ("export",), ("only the fold", "a run too", "from the source", "ctx"),
                   contexts=(("ctx", r"model\.py"),))
    fold_text = 'File "model.py", line 3\nRuntimeError: only the fold says ctx\n'
    run_text = "RuntimeError: a run too says ctx\n"
    (kept,) = fold_patterns([ref], {"e": [fold_text, run_text]}, {"e": [run_text]})
    assert kept.patterns == ("a run too", "from the source")
    assert kept.contexts == ()
    (whole,) = fold_patterns([ref], {"e": [fold_text, run_text]}, {"e": [fold_text, run_text]})
    assert whole == ref
