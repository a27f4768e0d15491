"""Accuracy on the dev set of real error texts (public reports and our own runs)."""
import pytest

from kb.build import ensure_built, load_matcher
from kb.evaluate import evaluate_fts, evaluate_matcher, load_items
from conftest import REPO

FILES = sorted((REPO / "devset").glob("*.jsonl"))


@pytest.fixture(scope="module")
def scores():
    items = load_items(FILES)
    db, _ = ensure_built()
    return len(items), evaluate_matcher(items, load_matcher(db)), evaluate_fts(items, db)


def test_devset_is_real_and_labelled():
    items = load_items(FILES)
    assert len(items) >= 50
    assert all(set(i) >= {"text", "expected", "source"} for i in items)
    assert sum(i["expected"] is None for i in items) >= 8


def test_matcher_accuracy(scores):
    n, matcher, _ = scores
    assert matcher.top1 / matcher.labelled >= 0.85, matcher.misses
    assert matcher.top3 / matcher.labelled >= 0.9, matcher.misses


def test_matcher_rejects_unrelated_errors(scores):
    _, matcher, _ = scores
    assert matcher.negatives_rejected / matcher.negatives >= 0.85, matcher.misses


def test_matcher_beats_plain_fts(scores):
    _, matcher, fts = scores
    assert matcher.top1 / matcher.labelled > fts.top1 / fts.labelled
