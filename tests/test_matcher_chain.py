"""Chained exceptions: the error raised last names the cause; the ones under it only help.

inspect's bare `OSError: could not get source code` is the whole error for code defined
by exec (entry jit-source-unavailable), and a chained cause under TorchScript's
"Failed to get source for <function BertConfig.__init__>" for transformers models (entry
jit-script-transformers-config). Both entries' patterns hit the second text.
"""
import json

from conftest import REPO


def _recorded_failure(entry: str) -> str:
    for line in (REPO / "observations/entries.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec.get("entry") == entry and rec["case"] == "failing.py" and rec["outcome"] == "fail":
            return rec["traceback"]
    raise AssertionError(f"no recorded failing run of {entry}")


def test_a_pattern_hit_on_the_raised_exception_outranks_one_on_its_cause(repo_matcher):
    text = _recorded_failure("jit-script-transformers-config")
    assert "could not get source code" in text and "Failed to get source for <function BertConfig.__init__" in text
    ranked = repo_matcher.search(text).ranked
    assert [m.id for m in ranked[:2]] == ["jit-script-transformers-config", "jit-source-unavailable"]
    assert ranked[0].pattern_hit and ranked[1].pattern_hit and ranked[0].score > ranked[1].score


def test_the_bare_inspect_error_is_still_its_own_entry(repo_matcher):
    best = repo_matcher.search(_recorded_failure("jit-source-unavailable")).best
    assert best.id == "jit-source-unavailable" and not best.tie


def test_the_full_stderr_of_an_aoti_build_that_g_plus_plus_refused_finds_its_entry(repo_matcher):
    """The stderr of aoti-missing-c-shim's failing script on torch 2.4.1, as the sweep
    recorded it: g++'s error comes before the traceback, whose exception says only
    "C++ compile error"."""
    import json

    from conftest import REPO

    path = REPO / "observations" / "sweep-torch-2.4.1.jsonl"
    rec = next(r for r in map(json.loads, path.read_text().splitlines())
               if r.get("entry") == "aoti-missing-c-shim" and r["case"] == "failing.py")
    shown = repo_matcher.search(rec["traceback"]).shown
    assert shown and shown[0].id == "aoti-missing-c-shim"
