"""Confident answers, possible matches and ties (kb/matcher.py), on the repository's catalogue."""
import dataclasses
import json
import os
import subprocess
import sys

from kb.extract import extract
from kb.matcher import Calibration
from conftest import REPO

STATIC = "AssertionError: Guard failed: x.size()[0] == 2"
# Torch 2.13's wording when code branches on a value read from a tensor; the same error
# comes from an `if` on the value and from a guard an operator adds on it.
EQ_U0 = ("torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on "
         "data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: none)")


def with_calibration(matcher, **changes):
    matcher.calibration = dataclasses.replace(matcher.calibration, **changes)
    return matcher


def test_confidence_is_a_probability_and_orders_the_ranking(repo_matcher):
    ranked = repo_matcher.search(STATIC).ranked
    assert ranked[0].id == "static-batch-size"
    assert all(0.0 <= m.confidence <= 1.0 for m in ranked)
    assert [m.confidence for m in ranked] == sorted((m.confidence for m in ranked), reverse=True)


def test_below_the_threshold_the_best_entries_are_possible_matches(repo_matcher):
    cal = repo_matcher.calibration
    try:
        result = with_calibration(repo_matcher, confident=1.01).search(STATIC)
        assert result.best is None and result.confident == []
        assert result.possible[0].id == "static-batch-size" and result.shown == result.possible
        assert all(m.confidence >= cal.possible for m in result.possible)
    finally:
        repo_matcher.calibration = cal


def test_entries_the_text_cannot_order_are_a_tie(repo_matcher):
    result = repo_matcher.search(EQ_U0)
    tied = {m.id for m in result.shown if m.tie}
    assert tied == {"data-dependent-branch", "data-dependent-guard"}, [(m.id, m.confidence) for m in result.ranked[:3]]
    cal = repo_matcher.calibration
    try:  # with a tie ratio of 1, only equal confidences would tie
        assert not any(m.tie for m in with_calibration(repo_matcher, tie=1.0).search(EQ_U0).ranked)
    finally:
        repo_matcher.calibration = cal


def test_cli_offers_possible_matches_and_says_they_are_not_an_answer(tmp_path):
    text = "Guard failed: x.size()[0] == 2"  # the message alone, without its exception type
    env = {**os.environ}
    r = subprocess.run([sys.executable, "-m", "kb.cli", "search", "--json", text], capture_output=True,
                       cwd=REPO, env=env, timeout=120)
    data = json.loads(r.stdout)
    shown = data["results"] or data["possible"]
    assert shown and shown[0]["id"] == "static-batch-size"
    assert (r.returncode == 0) == bool(data["results"])
    for obj in data["possible"]:
        assert obj["tier"] == "possible"


def test_prose_channel_finds_an_entry_by_its_explanation_alone():
    """No pattern and no known wording: only the entries' explanations can tell them apart."""
    from kb.matcher import EntryRef, Matcher, prose_of

    grad = EntryRef("grad-constant", "Tracing a tensor that requires grad", ("jit-trace",), (),
                    prose_of("Tracing a tensor that requires grad", "Parameters, not captured tensors.",
                             "The tracer refuses to insert a tensor that requires grad as a constant.",
                             "Register it as a parameter or detach it."))
    opset = EntryRef("opset-too-new", "An opset newer than the exporter knows", ("onnx-legacy",), (),
                     prose_of("An opset newer than the exporter knows", "Ask for a supported opset.",
                              "The requested opset version is above the highest this release supports.",
                              "Lower opset_version."))
    matcher = Matcher([grad, opset])
    text = "RuntimeError: Cannot insert a Tensor that requires grad as a constant. Consider detaching it."
    feats = {eid: f for eid, (f, _) in matcher.features(extract(text)).items()}
    assert feats["grad-constant"]["prose"] > 0.3
    assert feats["grad-constant"]["prose_lead"] > 0 and feats["grad-constant"]["sim"] == 0.0
    assert feats.get("opset-too-new", {"prose": 0.0})["prose"] < feats["grad-constant"]["prose"]
    # Stemming is what joins "detaching" in the error to "detach" in the fix.
    from kb.simindex import prose_tokens
    assert set(prose_tokens("detaching requires")) == set(prose_tokens("detach required"))


# A programming error raised in torch's own frames (the shape of an exporter's bug), and
# the same exception type raised in the user's code (not that shape).
_TORCH_KEYERROR = '''Traceback (most recent call last):
  File "/home/u/repro.py", line 9, in <module>
    torch.export.export(model, args, dynamic_shapes=shapes)
  File "/venv/lib/python3.11/site-packages/torch/fx/experimental/symbolic_shapes.py", line 3526, in _maybe_evaluate_static
    vr = self.var_to_range[k]
KeyError: s0'''
_USER_KEYERROR = '''Traceback (most recent call last):
  File "/home/u/repro.py", line 9, in <module>
    config["hidden"]
KeyError: 'hidden\''''


def test_internal_error_shape_reads_the_raising_frame_and_the_type():
    from kb.evidence import internal_error_shape
    assert internal_error_shape(_TORCH_KEYERROR, "KeyError") == 1.0
    assert internal_error_shape(_USER_KEYERROR, "KeyError") == 0.0
    # The same frames with a refused-input type are not a bug's shape.
    assert internal_error_shape(_TORCH_KEYERROR.replace("KeyError: s0", "ValueError: s0"), "ValueError") == 0.0
    assert internal_error_shape("NameError: name 'L' is not defined", "NameError") == 0.5
    assert internal_error_shape("RuntimeError: false INTERNAL ASSERT FAILED at \"x.cpp\":1, please report a bug to PyTorch.",
                                "RuntimeError") == 1.0


def test_an_internal_error_shape_makes_the_class_entry_a_candidate():
    from kb.matcher import EntryRef, Matcher
    bug = EntryRef("exporter-bug", "A bug in the exporter", ("export",), (), "", ("internal-error",))
    other = EntryRef("dict-key", "A missing configuration key", ("export",), (r"KeyError: 'hidden'",))
    matcher = Matcher([bug, other])
    blocks = extract(_TORCH_KEYERROR)
    feats = {eid: f for eid, (f, _) in matcher.features(blocks, internal=1.0).items()}
    assert feats["exporter-bug"]["internal"] == 1.0 and feats["exporter-bug"]["internal_other"] == 0.0
    assert "exporter-bug" not in {eid for eid in matcher.features(blocks, internal=0.0)}
    ranked = matcher.search(_TORCH_KEYERROR).ranked
    assert ranked[0].id == "exporter-bug" and ranked[0].features["internal"] == 1.0
    user = matcher.search(_USER_KEYERROR).ranked
    assert user[0].id == "dict-key" and all(m.features["internal_other"] == 0.0 for m in user)


def test_a_message_other_causes_raise_names_its_entry_only_with_the_context_in_the_traceback(repo_matcher):
    """random-noise-in-forward's `SymIntArrayRef expected to contain only concrete integers`
    is raised by any kernel without symbolic sizes; its [pattern_context] asks for the
    randn call in the traceback. Its own recorded run shows that call in a frame; a train
    report (baddbmm's meta kernel, under the dynamo ONNX exporter) does not."""
    from kb import devset

    entry = "random-noise-in-forward"
    runs = [json.loads(line) for line in (REPO / "observations" / "entries.jsonl").read_text().splitlines()]
    run = next(r for r in runs if r["model"] == f"{entry}/failing.py" and r["outcome"] == "fail"
               and "SymIntArrayRef" in r["message"])
    text = run["traceback"]
    blocks = extract(text)
    assert repo_matcher.pattern_hits(entry, blocks, text) is not None
    assert repo_matcher.search(text).ranked[0].id == entry
    # The same exception without the frames that show the call: the pattern names nothing.
    raised = blocks[-1].text
    assert "SymIntArrayRef expected to contain only concrete integers" in raised and "randn" not in raised
    assert repo_matcher.pattern_hits(entry, extract(raised), raised) is None
    report = next(r for r in devset.train() if r.source.endswith("/pytorch/pytorch/issues/115501"))
    assert "SymIntArrayRef expected to contain only concrete integers" in report.text
    assert repo_matcher.pattern_hits(entry, extract(report.text), report.text) is None
    assert entry not in {m.id for m in repo_matcher.search(report.text).confident}


def test_a_text_seen_before_gets_the_answer_it_got_the_first_time(repo_matcher):
    # The matcher remembers each exception text's similarities (Matcher._block_sims). A
    # caller that changed a remembered result would change every later answer for it.
    texts = [STATIC, EQ_U0, f"Traceback (most recent call last):\n  File \"m.py\", line 3, in f\n{EQ_U0}"]

    def answers():
        return [[(m.id, m.confidence, m.tier, m.tie) for m in repo_matcher.search(t).ranked] for t in texts]

    repo_matcher._block_sims.cache_clear()
    first = answers()
    assert repo_matcher._block_sims.cache_info().currsize > 0
    assert answers() == first  # from memory
    repo_matcher._block_sims.cache_clear()
    assert answers() == first  # computed again
