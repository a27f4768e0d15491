"""Automatic fixes tried at corpus scale: collect, classify, retry with the fix, count.

Real torch, real forked workers, the real catalogue's patterns: two models fail in ways
two entries explain (strict-untraceable-call, dynamic-dim-specialized), and
`collect --apply-fixes` retries each with that entry's automatic fix.
"""
import shutil

import pytest
import sqlite_utils

from collectors.collect import collect
from collectors.versions import library_versions
from conftest import REPO
from kb import paths
from kb.build import build

pytestmark = pytest.mark.torch


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "kbroot"
    shutil.copytree(REPO / "entries", root / "entries")
    (root / "observations").mkdir()
    monkeypatch.setenv("EXPORTKB_ROOT", str(root))
    monkeypatch.delenv("EXPORTKB_DB", raising=False)
    monkeypatch.syspath_prepend(str(REPO / "tests"))
    return root


def test_fixes_are_retried_on_explained_failures_and_counted(root):
    torch = library_versions()["torch"]
    corpus_file = root / "observations" / f"corpus-torch-{torch}.jsonl"
    collect(["module:fixable_corpus"], ["export-strict", "export-dynamic"], jobs=2, out=corpus_file)
    build()
    kdb = sqlite_utils.Database(paths.db_path())
    failed = {(r["model"], r["exporter"]): r["matched_entry"] for r in kdb.query(
        "select model, exporter, matched_entry from observations where outcome = 'fail'")}
    assert failed == {("tokenized-prompt", "export-strict"): "strict-untraceable-call",
                      ("fixed-width-view", "export-dynamic"): "dynamic-dim-specialized"}

    path, tally, total = collect(["module:fixable_corpus"], [], jobs=2, apply_fixes=True)
    assert path == root / "observations" / "fixes" / f"corpus-torch-{torch}.jsonl"
    assert total == 2 and tally.attempts == 2

    build()
    kdb = sqlite_utils.Database(paths.db_path())
    assert kdb["observations"].count == 4  # the retries are not corpus observations
    attempts = {r["model"]: r for r in kdb.query("select * from fix_attempts")}
    strict = attempts["tokenized-prompt"]
    assert (strict["fix"], strict["exporter"], strict["ran_as"], strict["outcome"], strict["result"]) == \
        ("strict-false", "export-strict", "export", "ok", "fixed")
    auto = attempts["fixed-width-view"]
    assert (auto["fix"], auto["exporter"], auto["ran_as"]) == ("dim-auto", "export-dynamic", "export-dynamic")
    # Dim.AUTO lets export specialize the batch quietly; the program then fails on batch 3.
    assert auto["outcome"] == "fail" and auto["result"] == "other" and auto["stage"] == "run"

    summary = {r["entry"]: r for r in kdb.query("select * from entry_fixes")}
    assert (summary["strict-untraceable-call"]["models_tried"], summary["strict-untraceable-call"]["models_fixed"]) == (1, 1)
    assert (summary["dynamic-dim-specialized"]["models_fixed"], summary["dynamic-dim-specialized"]["models_past"]) == (0, 1)

    # Resuming does nothing twice.
    _, tally, total = collect(["module:fixable_corpus"], [], jobs=2, apply_fixes=True)
    assert total == 0 and tally.attempts == 0


def test_use_cache_false_changes_the_config_not_the_inputs():
    """On a real transformers model: the cache error goes away, and the case's inputs stay
    tensors only, so jit-trace and export-dynamic (whose dynamic_shapes name every input)
    still accept them."""
    from collectors import exporters, fixes
    from collectors.corpus import transformers_models

    case = transformers_models.build("apertus")
    for exporter in ("export-dynamic", "jit-trace"):
        before = exporters.attempt(exporter, case)
        assert before.outcome == "fail" and ("DynamicCache" in before.message or "Cache" in before.message)
        fixed = fixes.by_id("use-cache-false", exporter).transform(case)
        assert fixed.kwargs == case.kwargs
        after = exporters.attempt(exporter, fixed)
        assert after.outcome == "ok", (exporter, after.message)
        case.model.config.use_cache = True  # the transform changed the model's config in place


def test_eager_attention_fix_makes_the_program_agree_with_eager():
    """The silent mismatch transformers-sdpa-mask-skip names, on the corpus's own Phi-4
    vision tower: with sdpa the exported program disagrees with eager at the numeric
    stage; with the eager attention backend it agrees."""
    from collectors import exporters, fixes
    from collectors.corpus import transformers_models

    case = transformers_models.build("phi4_multimodal_vision")
    before = exporters.attempt("export", case)
    assert (before.outcome, before.failed_stage) == ("fail", "numeric") and "disagrees with eager" in before.message
    after = exporters.attempt("export", fixes.by_id("eager-attention", "export").transform(case))
    assert after.outcome == "ok", after.message
    assert case.model.config._attn_implementation == "eager"


def test_eager_attention_gqa_fix_lets_the_legacy_onnx_export_through():
    """onnx-legacy-sdpa-gqa on the corpus's LFM3-VL vision encoder: with sdpa, transformers
    passes enable_gqa=True and the legacy exporter refuses it while lowering; with the
    eager backend the heads are repeated in Python and every stage passes."""
    from collectors import exporters, fixes
    from collectors.corpus import transformers_models

    case = transformers_models.build("lfm3_vl_vision")
    before = exporters.attempt("onnx-legacy", case)
    assert (before.outcome, before.failed_stage) == ("fail", "lower")
    assert "not implemented if enable_gqa is True" in before.message
    after = exporters.attempt("onnx-legacy", fixes.by_id("eager-attention-gqa", "onnx-legacy").transform(case))
    assert after.outcome == "ok", after.message


def test_timm_unfused_attention_fix_lets_the_onnx_export_through():
    """onnx-sdpa-not-4d on the corpus's NesT: its block attention calls sdpa on 5-D
    tensors, which the ONNX translation refuses; timm's unfused path exports and matches."""
    from collectors import exporters, fixes
    from collectors.corpus import source

    case = source("timm").build("nest_tiny")
    before = exporters.attempt("onnx", case)
    assert (before.outcome, before.failed_stage) == ("fail", "lower")
    assert "only 4D query, key, and value are supported" in before.message
    after = exporters.attempt("onnx", fixes.by_id("timm-unfused-attention", "onnx").transform(case))
    assert after.outcome == "ok", after.message
    assert not any(getattr(m, "fused_attn", False) for m in case.model.modules())


def test_no_layout_optimization_fix_makes_the_aoti_package_agree():
    """aoti-conv-layout-unbacked-batch on its patch-embedding script, run as a corpus case:
    the default AOTInductor package returns reordered values, the fixed one eager's."""
    import torch._inductor.config as inductor_config

    from collectors import exporters, fixes
    from collectors.corpus import source

    # The fix sets a global Inductor option (in a forked attempt, normally); restore it
    # with the config's own patch(). pytest's monkeypatch must not be used here: its undo
    # deletes the option from torch's config module, and every later AOTI attempt forked
    # from this worker then fails with "layout_optimization does not exist".
    original = inductor_config.layout_optimization
    with inductor_config.patch(layout_optimization=original):
        case = source("entry").build("aoti-conv-layout-unbacked-batch/failing_patch_embed.py")
        before = exporters.attempt("aoti", case)
        assert (before.outcome, before.failed_stage) == ("fail", "numeric") and "disagrees with eager" in before.message
        after = exporters.attempt("aoti", fixes.by_id("no-layout-optimization", "aoti").transform(case))
        assert after.outcome == "ok", after.message
        assert inductor_config.layout_optimization is False
    assert inductor_config.layout_optimization is original
