"""How kb.version_status turns entry script runs into a per-release status.

The records start from a real recorded run of static-batch-size on the pinned torch
(observations/entries.jsonl); each test re-labels copies of it with other releases and
outcomes to set up the history it needs.
"""
import copy
import json

import pytest

from kb.classify import classify, entry_ref, observed_texts
from kb.catalogue import load_catalogue
from kb.matcher import Matcher
from kb.version_status import compute, release_key, release_of
from conftest import PINNED_TORCH, REPO

ENTRY = "static-batch-size"
OTHER_ERROR = "Traceback (most recent call last):\n  File \"failing.py\", line 3\nAttributeError: module 'torch.export' has no attribute 'Dim'\n"


@pytest.fixture(scope="module")
def catalogue():
    return [e for e in load_catalogue(REPO / "entries") if e.id == ENTRY]


@pytest.fixture(scope="module")
def recorded():
    """The pinned-release runs of the entry's failing and fixed scripts."""
    runs = {}
    entry = next(e for e in load_catalogue(REPO / "entries") if e.id == ENTRY)
    from kb.version_status import case_hash

    for line in (REPO / "observations/entries.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec.get("entry") == ENTRY and rec["case_hash"] == case_hash(entry, rec["case"]):
            runs[rec["case"]] = rec
    assert {"failing.py", "fixed.py"} <= set(runs), "the entry's runs on the pinned torch must be recorded"
    assert runs["failing.py"]["outcome"] == "fail"
    return runs


def _run(recorded, case, torch, outcome=None, text=None):
    rec = copy.deepcopy(recorded[case])
    rec["versions"]["torch"] = torch
    rec["key"] = f"{case}-{torch}-{outcome}"
    if outcome == "ok":
        rec.update(outcome="ok", traceback=None, message=None, exc_type=None)
    elif outcome == "fail":
        rec.update(outcome="fail", traceback=text or rec["traceback"], message=None)
    return rec


def _history(recorded, failing: dict[str, str]) -> list[dict]:
    """failing: release -> 'repro' | 'ok' | 'other'. The fixed script passes everywhere."""
    out = []
    for torch, what in failing.items():
        if what == "repro":
            out.append(_run(recorded, "failing.py", torch))
        elif what == "ok":
            out.append(_run(recorded, "failing.py", torch, "ok"))
        else:
            out.append(_run(recorded, "failing.py", torch, "fail", OTHER_ERROR))
        out.append(_run(recorded, "fixed.py", torch, "ok"))
    return out


def _compute(catalogue, records):
    matcher = Matcher([entry_ref(e) for e in catalogue])
    return compute(catalogue, records, {r["key"]: classify(r, matcher, catalogue) for r in records})[ENTRY]


def test_release_names_and_order():
    assert release_of("2.4.1+cu121") == "2.4.1" and release_of("2.13.0+cpu") == "2.13.0"
    assert sorted(["2.13.0", "2.4.1", "2.9.1", "2.15.0"], key=release_key) == ["2.4.1", "2.9.1", "2.13.0", "2.15.0"]


def test_fixed_in_is_the_first_release_after_the_last_reproduction(catalogue, recorded):
    v = _compute(catalogue, _history(recorded, {"2.4.1+cu121": "repro", "2.6.0": "repro", "2.9.1": "ok",
                                                 "2.13.0+cpu": "ok"}))
    assert [r.torch for r in v.releases] == ["2.4.1", "2.6.0", "2.9.1", "2.13.0"]
    assert [r.status for r in v.releases] == ["reproduces", "reproduces", "no-repro", "no-repro"]
    assert v.reproduces_on == ["2.4.1", "2.6.0"] and v.fixed_in == "2.9.1" and not v.retired
    assert v.summary() == "reproduces on 2.4.1, 2.6.0; fixed in 2.9.1"
    assert all(r.fix == "works" for r in v.releases)
    assert "Guard failed" in v.releases[0].error_text and v.releases[2].error_text == ""


def test_a_failure_that_comes_back_is_not_fixed(catalogue, recorded):
    v = _compute(catalogue, _history(recorded, {"2.4.1": "repro", "2.9.1": "ok", "2.13.0": "repro"}))
    assert v.reproduces_on == ["2.4.1", "2.13.0"] and v.fixed_in is None


def test_still_reproducing_on_the_newest_release_is_not_fixed(catalogue, recorded):
    v = _compute(catalogue, _history(recorded, {"2.6.0": "repro", "2.13.0": "repro"}))
    assert v.fixed_in is None and v.summary() == "reproduces on 2.6.0, 2.13.0"


def test_another_error_is_not_a_reproduction_and_is_not_learned(catalogue, recorded):
    records = _history(recorded, {"2.4.1": "other", "2.6.0": "repro", "2.13.0": "ok"})
    v = _compute(catalogue, records)
    assert [r.status for r in v.releases] == ["differs", "reproduces", "no-repro"]
    assert v.releases[0].error_text.startswith("AttributeError: module 'torch.export' has no attribute 'Dim'")
    assert v.reproduces_on == ["2.6.0"] and v.fixed_in == "2.13.0"
    learned = observed_texts(catalogue, records)[ENTRY]
    assert learned and not any("has no attribute 'Dim'" in t for t in learned)


def test_reproducing_nowhere_is_retired(catalogue, recorded):
    v = _compute(catalogue, _history(recorded, {"2.4.1": "ok", "2.13.0": "ok"}))
    assert v.retired and v.reproduces_on == [] and v.fixed_in is None
    assert v.summary() == "reproduces on none of 2.4.1, 2.13.0"
    assert not _compute(catalogue, []).retired  # no runs at all is unknown, not retired


def test_runs_of_an_earlier_version_of_the_script_do_not_count(catalogue, recorded):
    stale = _run(recorded, "failing.py", "2.4.1")
    stale["case_hash"] = "0" * 16
    v = _compute(catalogue, [stale, *_history(recorded, {"2.13.0": "repro"})])
    assert [r.torch for r in v.releases] == ["2.13.0"]


def test_timeouts_alone_are_an_error_status(catalogue, recorded):
    rec = _run(recorded, "failing.py", "2.6.0")
    rec.update(outcome="timeout", traceback=None)
    v = _compute(catalogue, [rec])
    assert [r.status for r in v.releases] == ["error"] and not v.reproduces_on
    assert not v.retired  # a timeout says nothing about whether the failure still happens


def _older_release_errors():
    """Errors the entries' failing scripts printed on releases other than the pinned one
    (exportkb sweep, observations/sweep-torch-*.jsonl), where an entry pattern names them."""
    from kb.extract import extract
    from kb.observations import read_observations

    entries = load_catalogue(REPO / "entries")
    patterns = Matcher([entry_ref(e) for e in entries])
    for rec in read_observations(REPO / "observations").records:
        torch = rec["versions"].get("torch") or ""
        if rec.get("source") != "entry" or not rec.get("entry") or rec["outcome"] != "fail":
            continue
        if torch.split("+")[0] == PINNED_TORCH.split("+")[0] or not (rec.get("case") or "").startswith("failing"):
            continue
        blocks = extract(rec["traceback"] or "")
        if patterns.pattern_hits(rec["entry"], blocks) is not None:
            yield pytest.param(rec["entry"], rec["traceback"], id=f"{rec['entry']}/{rec['case']}@{torch}")


OLDER_RELEASE_ERRORS = list(_older_release_errors())


@pytest.mark.parametrize("entry_id,text", OLDER_RELEASE_ERRORS)
def test_an_error_from_an_older_release_finds_its_entry(repo_matcher, entry_id, text):
    result = repo_matcher.search(text)
    # The entry is what search shows first, or ties for it with an entry the text cannot
    # tell apart (data-dependent-branch and data-dependent-guard raise the same error).
    assert result.shown and (result.shown[0].id == entry_id or
                             any(m.id == entry_id and m.tie for m in result.shown))


def test_most_errors_from_older_releases_are_answered_confidently(repo_matcher):
    """How sure search is comes from the calibration on real reports (kb/calibrate.py), not from
    these texts; most of an entry's own older wordings must still clear the confident bar."""
    confident = sum(any(m.id == entry_id for m in repo_matcher.search(text).confident)
                    for entry_id, text in (p.values for p in OLDER_RELEASE_ERRORS))
    assert confident >= 0.9 * len(OLDER_RELEASE_ERRORS)


def test_older_releases_were_swept():
    """The sweep's observations are committed; without them the test above has no cases."""
    swept = {p.name for p in (REPO / "observations").glob("sweep-torch-*.jsonl")}
    assert "sweep-torch-2.4.1.jsonl" in swept and len(list(_older_release_errors())) >= 10


def test_frozen_storage_reproduces_on_an_old_release_and_not_on_the_pinned_one(tmp_path):
    """The release table kb.db derives from the committed sweep and check runs."""
    import sqlite_utils

    from kb.build import build

    build(tmp_path / "kb.db")
    kdb = sqlite_utils.Database(tmp_path / "kb.db")
    rows = {r["torch"]: r for r in kdb.query("select * from entry_versions where entry = 'frozen-storage-mutation'")}
    old = [v for v, r in rows.items() if release_key(v) <= (2, 6, 0) and r["status"] == "reproduces"]
    assert old, rows
    assert "cannot mutate tensors with frozen storage" in rows[old[0]]["error_text"]
    assert rows[PINNED_TORCH.split("+")[0]]["status"] == "no-repro"
    entry = kdb["entries"].get("frozen-storage-mutation")
    assert entry["fixed_in"] and release_key(entry["fixed_in"]) <= release_key(PINNED_TORCH)
    assert not entry["retired"] and entry["version_summary"].startswith("reproduces on 2.4.1")


def test_a_script_that_cannot_run_on_a_release_is_unavailable_not_a_different_error(catalogue, recorded):
    missing = _run(recorded, "failing.py", "2.4.1", "fail", "ModuleNotFoundError: No module named 'executorch'\n")
    missing.update(exc_type="ModuleNotFoundError", message="No module named 'executorch'")
    api = _run(recorded, "failing.py", "2.5.1", "fail", OTHER_ERROR)
    api.update(exc_type="AttributeError", message="module 'torch.export' has no attribute 'Dim'")
    records = [missing, api, *_history(recorded, {"2.6.0": "other", "2.13.0": "repro"})]
    v = _compute(catalogue, records)
    assert [r.status for r in v.releases] == ["unavailable", "unavailable", "differs", "reproduces"]


def test_a_release_swept_again_with_a_companion_installed_is_judged_by_that_run(catalogue, recorded):
    # First swept without executorch (it could not be installed for that torch yet), then
    # again with it: the run that had the companion counts, not both (which read "partly").
    without = _run(recorded, "failing.py", "2.7.1", "fail", "ModuleNotFoundError: No module named 'executorch'\n")
    without.update(exc_type="ModuleNotFoundError", message="No module named 'executorch'")
    without["versions"]["executorch"] = None
    with_it = _run(recorded, "failing.py", "2.7.1")
    with_it["versions"]["executorch"] = "0.6.0"
    fixed = _run(recorded, "fixed.py", "2.7.1", "ok")
    for order in ([without, with_it, fixed], [with_it, without, fixed]):
        v = _compute(catalogue, order)
        assert [(r.torch, r.status, r.failing_run) for r in v.releases] == [("2.7.1", "reproduces", 1)]


def _page(entry_id, statuses, errors=()):
    from kb.site.data import EntryPage, VersionStatus

    p = EntryPage(id=entry_id, title=entry_id, rule="", exporters=["export"], stage="capture", tags=[],
                  reproduces_on_pinned=True, patterns=[], cause="", fix="", notes="", refs={})
    p.statuses = [VersionStatus(t, s, "works", 1, int(s == "reproduces"), 1, 1) for t, s in statuses]
    p.errors = list(errors)
    return p


def test_release_changes_compare_each_release_with_the_one_before():
    from kb.site.data import ObservedError, release_changes

    entries = [
        _page("fixed-upstream", [("2.4.1", "reproduces"), ("2.6.0", "no-repro")]),
        _page("new-failure", [("2.4.1", "differs"), ("2.6.0", "reproduces")]),
        _page("needs-a-new-api", [("2.4.1", "unavailable"), ("2.6.0", "reproduces")]),
        _page("reworded", [("2.4.1", "reproduces"), ("2.6.0", "reproduces")],
              [ObservedError("failing.py", "export", "capture", "old wording", ["2.4.1+cu121"]),
               ObservedError("failing.py", "export", "capture", "new wording", ["2.6.0"])]),
        _page("same-words", [("2.4.1", "reproduces"), ("2.6.0", "reproduces")],
              [ObservedError("failing.py", "export", "capture", "same", ["2.4.1", "2.6.0"])]),
        _page("only-on-the-new-one", [("2.6.0", "reproduces")]),
    ]
    first, second = release_changes(entries)
    assert (first.torch, first.previous, first.ran, first.compared) == ("2.4.1", None, 5, 0)
    assert not (first.stopped or first.started or first.reworded)
    assert (second.torch, second.previous, second.ran, second.compared) == ("2.6.0", "2.4.1", 6, 5)
    assert [e.id for e, _ in second.stopped] == ["fixed-upstream"]
    assert [e.id for e, _ in second.started] == ["new-failure"]  # not the one that could not run before
    assert [(r.entry.id, r.case, r.before, r.after) for r in second.reworded] == \
        [("reworded", "failing.py", "old wording", "new wording")]
    assert second.statuses == {"no-repro": 1, "reproduces": 5}
