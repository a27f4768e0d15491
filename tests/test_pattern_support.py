"""Out-of-fold scores leave out the patterns that only the fold's own reports stand for."""
import json

import sqlite_utils

from kb import devset
from kb.calibrate import FOLDS, fold_matchers, fold_of
from kb.pattern_support import fold_only, pattern_support, quote_support, unquoted


def _db(tmp_path, patterns, entry_texts, reports):
    db = sqlite_utils.Database(tmp_path / "kb.db")
    db["entries"].insert_all({"id": eid, "patterns": json.dumps(ps)} for eid, ps in patterns.items())
    db["entry_texts"].insert_all(({"entry": e, "seq": i, "text": t} for i, (e, t) in enumerate(entry_texts)),
                                 pk=("entry", "seq"))
    db["report_texts"].insert_all({"seq": i, "entry": e, "thread": th, "text": t}
                                  for i, (e, th, t) in enumerate(reports))
    return tmp_path / "kb.db"


def test_a_pattern_only_one_fold_stands_for_is_dropped_in_that_fold_only(tmp_path):
    db = _db(tmp_path,
             {"a": ["run wording \\d+", "old wording", "two threads", "nobody"], "b": ["old wording"]},
             [("a", "RuntimeError: run wording 12")],
             [("a", "t1", "Traceback (most recent call last):\nRuntimeError: old wording here"),
              ("a", "t1", "RuntimeError: run wording 7"),
              ("a", "t1", "ValueError: two threads"), ("a", "t2", "ValueError: two threads"),
              ("b", "t3", "KeyError: unrelated to its pattern")])
    support = pattern_support(db)
    assert support[("a", "run wording \\d+")].runs and support[("a", "run wording \\d+")].threads == {"t1"}
    assert not support[("a", "old wording")].runs and support[("a", "old wording")].threads == {"t1"}
    # a report labelled with another entry is no support, whatever the pattern names
    assert support[("b", "old wording")].threads == frozenset()
    assert fold_only(support, {"t1"}.__contains__) == {"a": frozenset({"old wording"})}
    assert fold_only(support, {"t1", "t2"}.__contains__) == {"a": frozenset({"old wording", "two threads"})}
    # A pattern that names nothing at all (no run, no train report) is no fold's to drop.
    assert fold_only(support, lambda t: True) == {"a": frozenset({"old wording", "two threads"})}
    assert fold_only(support, {"t3"}.__contains__) == {}


def test_fold_matchers_build_without_the_fold_s_own_patterns(kb_db):
    train = [r for r in devset.train() if r.text.strip()]
    support = pattern_support(kb_db)
    dropped_any = False
    for fold, matcher in fold_matchers(train, kb_db):
        threads = {devset.thread_key(r.source) for r in fold}
        dropped = fold_only(support, threads.__contains__)
        for e in matcher.entries:
            kept = set(e.patterns)
            assert not kept & dropped.get(e.id, frozenset())
            # every other pattern of the entry is still there
            all_patterns = {p for (eid, p) in support if eid == e.id}
            assert kept == all_patterns - dropped.get(e.id, frozenset())
        dropped_any |= bool(dropped)
    # The evidence base has such patterns (widened on reports): otherwise this guards nothing.
    assert dropped_any
    assert {fold_of(r.source) for r in train} == set(range(FOLDS))


def test_a_quote_only_one_fold_stands_for_leaves_that_fold_s_prose(tmp_path):
    db = sqlite_utils.Database(tmp_path / "kb.db")
    db["entries"].insert({"id": "a", "patterns": "[]", "title": "T", "rule": "r",
                          "cause": "It fails with `ValueError: only this report says so` or `RuntimeError: a run prints this`,"
                                   " see `torch.export` and `torch.export.export`.",
                          "fix": "f"})
    db["entry_texts"].insert({"entry": "a", "seq": 0, "text": "RuntimeError: a run prints this"}, pk=("entry", "seq"))
    db["report_texts"].insert_all([
        {"seq": 0, "entry": "a", "thread": "t1", "text": "Traceback ...\nValueError: only this report says so"},
        {"seq": 1, "entry": "a", "thread": "t2", "text": "RuntimeError: a run prints this"}])
    support = quote_support(tmp_path / "kb.db")
    # literals shorter than QUOTE_MIN are words of the prose, not quotes
    assert set(support) == {("a", "ValueError: only this report says so"), ("a", "RuntimeError: a run prints this")}
    dropped = fold_only(support, {"t1", "t2"}.__contains__)
    assert dropped == {"a": frozenset({"ValueError: only this report says so"})}
    assert fold_only(support, {"t2"}.__contains__) == {}
    prose = unquoted("It fails with `ValueError: only this report says so` or `x`.", dropped["a"])
    assert prose == "It fails with  or `x`."
