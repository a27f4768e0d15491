"""Corpus sources: each lists its models cheaply and builds a sample into runnable cases.

A small sample per source is built and run eagerly on both its example inputs and its
alternative (bigger batch) inputs; the full build sweep over every model is a separate
measuring run (build/corpus_sweep.py), far too slow for the test suite.
"""
import dataclasses
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO

pytest.importorskip("torch")
pytestmark = pytest.mark.torch
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach for the Hub

import torch  # noqa: E402

from collectors.corpus import source  # noqa: E402
from kb.catalogue import CORPUS_SOURCES  # noqa: E402
from collectors.corpus.base import Case  # noqa: E402
from collectors.corpus.inputs import BuildError, run_eager  # noqa: E402

SOURCES = CORPUS_SOURCES


@pytest.fixture(scope="module")
def listed():
    return {name: source(name).list_models() for name in SOURCES}


@pytest.mark.parametrize("name", SOURCES)
def test_list_models_is_non_empty_with_unique_ids(listed, name):
    specs = listed[name]
    assert specs, f"{name} lists no models"
    ids = [s.id for s in specs]
    assert len(ids) == len(set(ids)), f"{name} has duplicate ids"
    assert all(s.source == name for s in specs)


def test_transformers_lists_every_model_type(listed):
    from transformers import CONFIG_MAPPING

    types = list(CONFIG_MAPPING.keys())  # len() of the lazy mapping is 0
    assert len(types) > 700
    assert [s.id for s in listed["transformers"]] == types  # none silently skipped
    heads = {s.id: s.family for s in listed["transformers"]}
    assert heads["gpt2"] == "AutoModelForCausalLM"
    assert heads["t5"] == "AutoModelForSeq2SeqLM"
    assert heads["whisper"] == "AutoModelForSpeechSeq2Seq"
    assert heads["bert"] != "AutoModelForCausalLM"  # an encoder is not exported as a decoder


def test_timm_lists_one_model_per_family(listed):
    from collectors.corpus.timm_models import families

    fams = families()
    specs = listed["timm"]
    assert len(specs) == len(fams)
    for spec in specs:
        assert spec.id in fams[spec.family]
    chosen = {s.family: s.id for s in specs}
    assert chosen["resnet"] == "resnet10t" and chosen["convnext"] == "convnext_atto"


def test_torchvision_lists_every_kind(listed):
    kinds = {s.family for s in listed["torchvision"]}
    assert kinds == {"classification", "detection", "segmentation", "video", "optical_flow"}
    assert "mvit_v1_b" in {s.id for s in listed["torchvision"]}


def _leading_dim(value):
    tensors = [v for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, torch.Tensor)]
    return tensors[0].shape[0] if tensors else None


def _check_case(case: Case, batch_dims=True):
    assert isinstance(case, Case)
    if hasattr(case.model, "_exported_training"):  # an exported module: PT2E's eval switch
        assert case.model._exported_training is False, "models are built in eval mode"
    elif isinstance(case.model, torch.nn.Module):
        assert not case.model.training, "models are built in eval mode"
    run_eager(case.model, case.args, case.kwargs)
    if case.alt_args is not None:
        run_eager(case.model, case.alt_args, case.alt_kwargs)
    json.dumps(case.definition)  # part of the observation key: must be JSON
    assert len(case.content_hash()) == 16
    if batch_dims:
        first = case.args[0] if case.args else next(iter(case.kwargs.values()))
        alt_first = case.alt_args[0] if case.alt_args else next(iter(case.alt_kwargs.values()))
        assert _leading_dim(first) == 2 and _leading_dim(alt_first) == 3


@pytest.mark.parametrize("model_type", ["bert", "gpt2", "whisper", "vit", "t5"])
def test_transformers_builds_and_runs(model_type):
    case = source("transformers").build(model_type)
    _check_case(case)
    assert case.args == () and set(case.dynamic_shapes) == set(case.kwargs)
    assert case.definition["config"]["model_type"] == model_type
    config = case.model.config
    hidden = getattr(config, "hidden_size", None) or getattr(config, "d_model", None)
    assert hidden <= 64, "the config is shrunk"
    if model_type in ("bert", "gpt2", "t5"):
        assert case.kwargs["input_ids"].shape == (2, 8) and case.alt_kwargs["input_ids"].shape[1] != 8
        assert set(case.dynamic_shapes["input_ids"]) == {0, 1}  # batch and sequence
    if model_type == "t5" or model_type == "whisper":
        assert "decoder_input_ids" in case.kwargs
    if model_type == "whisper":
        assert case.definition["input_kind"] == "audio"
    if model_type == "vit":
        assert case.kwargs["pixel_values"].shape[:2] == (2, 3)


def test_transformers_vision_tower_gets_flattened_patches_and_grid():
    # Qwen2.5-VL's vision tower takes no pixel_values: one row per flattened patch, and
    # each image's (t, h, w) patch grid. The fallback layout derives both from the config.
    case = source("transformers").build("qwen2_5_vl_vision")
    config = case.model.config
    rows, grid = case.kwargs["hidden_states"], case.kwargs["grid_thw"]
    assert case.definition["input_kind"] == "vision-patches"
    assert grid.shape == (2, 3) and int(grid.prod(dim=1).sum()) == rows.shape[0]
    assert rows.shape[1] == config.in_channels * config.temporal_patch_size * config.patch_size ** 2
    assert case.alt_kwargs["grid_thw"].shape[0] == 3
    run_eager(case.model, (), case.alt_kwargs)


@pytest.mark.parametrize("model_type,name,shape", [("patchtst", "past_values", (2, 32, 1)),
                                                   ("granite_speech_plus_encoder", "hidden_states", (2, 8, 160))])
def test_transformers_fallback_layouts_follow_the_config(model_type, name, shape):
    case = source("transformers").build(model_type)
    _check_case(case)
    assert tuple(case.kwargs[name].shape) == shape


def test_transformers_tiny_config_is_consistent():
    from transformers import AutoConfig

    from collectors.corpus.transformers_models import VOCAB, tiny_config

    config = tiny_config(AutoConfig.for_model("llama"))
    assert config.num_attention_heads % config.num_key_value_heads == 0
    assert config.num_attention_heads * config.head_dim == config.hidden_size
    assert config.num_hidden_layers <= 2 and config.vocab_size <= VOCAB
    for key in ("pad_token_id", "bos_token_id", "eos_token_id"):
        assert getattr(config, key) is None or getattr(config, key) < config.vocab_size
    llava = tiny_config(AutoConfig.for_model("llava"))
    assert llava.image_token_id < llava.text_config.vocab_size  # special ids moved into the vocabulary


def test_transformers_build_failure_is_clear():
    with pytest.raises(BuildError, match="unknown transformers model type"):
        source("transformers").build("no-such-model-type")


@pytest.mark.parametrize("model_id", ["resnet18", "mvit_v1_b", "fasterrcnn_mobilenet_v3_large_320_fpn"])
def test_torchvision_builds_and_runs(model_id):
    from collectors.corpus.torchvision_compat import native_ops_available

    if model_id.startswith("fasterrcnn") and not native_ops_available():
        with pytest.raises(BuildError, match="nms"):
            source("torchvision").build(model_id)
        return
    case = source("torchvision").build(model_id)
    if model_id.startswith("fasterrcnn"):
        assert isinstance(case.args[0], list) and case.args[0][0].dim() == 3  # a list of 3xHxW images
        _check_case(case, batch_dims=False)
        return
    _check_case(case)
    if model_id == "mvit_v1_b":  # far smaller than the default 16x224x224 clip
        assert case.args[0].shape == (2, 3, 2, 32, 32)


@pytest.mark.parametrize("model_id", ["resnet10t", "vit_tiny_patch16_224"])
def test_timm_builds_and_runs(model_id):
    case = source("timm").build(model_id)
    _check_case(case)


@pytest.mark.parametrize("model_id", ["cond_predicate", "dynamic_shape_slicing", "scalar_output"])
def test_exportdb_builds_and_runs(model_id):
    case = source("exportdb").build(model_id)
    _check_case(case, batch_dims=False)
    assert case.definition["support_level"] in ("SUPPORTED", "NOT_SUPPORTED_YET")


@pytest.mark.parametrize("model_id", ["static-batch-size/failing.py", "static-batch-size/fixed.py"])
def test_entries_build_and_run(model_id):
    case = source("entry").build(model_id)
    _check_case(case, batch_dims=False)
    assert case.definition["entry"] == "static-batch-size"


def test_custom_op_models_build_run_and_differ_in_their_registrations():
    custom = source("custom-ops")
    for spec in custom.list_models():
        case = custom.build(spec.id)
        _check_case(case)
        assert case.definition["registration"] == spec.family
    ops = {name for name in dir(torch.ops.exportkb_corpus) if not name.startswith("_")}
    assert {"scaled_gelu", "no_fake_swish", "legacy_softclip", "keep_positive", "pool_rows"} <= ops
    # The cases differ in what each exporter needs: no fake kernel here, only a CPU one there.
    with torch._subclasses.fake_tensor.FakeTensorMode():
        x = torch.empty(2, 16)
        assert torch.ops.exportkb_corpus.scaled_gelu(x, 1.0).shape == (2, 16)
        with pytest.raises(Exception, match="fake|Meta"):
            torch.ops.exportkb_corpus.no_fake_swish(x)
        with pytest.raises(torch._subclasses.fake_tensor.UnsupportedOperatorException, match="legacy_softclip"):
            torch.ops.exportkb_corpus.legacy_softclip(x, 1.0)


def test_quantized_models_hold_quantize_ops_and_delegate_variants_are_for_executorch_only():
    from collectors import exporters
    from collectors.collect import plan

    quantized = source("quantized")
    specs = {s.id: s for s in quantized.list_models()}
    assert len(specs) == 3 * len(quantized.BASES)
    assert specs["torchvision.resnet18-pt2e"].exporters is None
    assert specs["torchvision.resnet18-pt2e-xnnpack"].exporters == specs["timm.convnext_atto-xnnpack"].exporters == (
        "executorch",)
    tasks = {t.spec.id: t.exporters for t in plan(["quantized"], list(exporters.EXPORTERS), None, None, {}, set())}
    assert tasks["torchvision.resnet18-xnnpack"] == ["executorch"]
    assert tasks["torchvision.resnet18-pt2e"] == list(exporters.EXPORTERS)

    case = quantized.build("torchvision.resnet18-pt2e-xnnpack")
    _check_case(case)
    targets = {str(n.target) for n in case.model.graph.nodes if n.op == "call_function"}
    assert any("quantize_per_tensor" in t for t in targets) and any("dequantize" in t for t in targets)
    assert case.delegate == "xnnpack" and case.definition["base"]["source"] == "torchvision"
    # Lowered with the XNNPACK partitioner, the program runs and agrees with the quantized model.
    result = exporters.attempt("executorch", case)
    assert result.outcome == "ok", result.traceback
    portable = exporters.attempt("executorch", dataclasses.replace(case, delegate=None))
    # Without a delegate the quantize/dequantize ops need kernels the portable library lacks.
    assert portable.outcome == "fail" and "quantized_decomposed" in portable.message


def test_torchvision_workaround_lives_in_one_place():
    offenders = [p for p in (REPO / "collectors").rglob("*.py")
                 if "_meta_registrations" in p.read_text() and p.name != "torchvision_compat.py"]
    assert not offenders


def test_torchvision_imports_only_through_the_compat_module():
    from collectors.corpus.torchvision_compat import native_ops_available

    if native_ops_available():
        pytest.skip("this torchvision wheel matches torch: no workaround needed")
    # The venv installs the stub at start-up (a .pth file); take it away to see the wheel fail.
    plain = ("import sys; sys.modules.pop('torchvision._meta_registrations', None); import torchvision")
    r = subprocess.run([sys.executable, "-c", plain], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "_meta_registrations" in r.stderr
    compat = ("import sys; sys.modules.pop('torchvision._meta_registrations', None)\n"
              "from collectors.corpus.torchvision_compat import import_torchvision\n"
              "tv = import_torchvision(); print(tv.models.resnet18(weights=None).fc.out_features)")
    r = subprocess.run([sys.executable, "-c", compat], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "1000"


# --- the sources on older releases (torch 2.4.1 and its companions) ---------------------
# The release runs (exportkb collect --torch 2.4.1) build these same sources in that
# release's venv; these tests pin the two spellings each source must read.

def test_exportdb_reads_the_inputs_of_releases_before_example_args():
    from types import SimpleNamespace

    from collectors.corpus.exportdb import _extra_args, _inputs

    x, y = torch.ones(2), torch.zeros(3)
    now = SimpleNamespace(example_args=(x,), example_kwargs={"k": y}, extra_args=(y,))
    assert _inputs(now) == ((x,), {"k": y}) and _extra_args(now) == (y,)
    # torch 2.4: one `example_inputs`, a tuple of args or an ExportArgs(args, kwargs)
    from_tuple = SimpleNamespace(example_inputs=(x, y), extra_inputs=None)
    assert _inputs(from_tuple) == ((x, y), {}) and _extra_args(from_tuple) is None
    export_args = SimpleNamespace(args=(x,), kwargs={"k": y})
    from_args = SimpleNamespace(example_inputs=export_args, extra_inputs=export_args)
    assert _inputs(from_args) == ((x,), {"k": y}) and _extra_args(from_args) == (x,)


def test_without_dim_dynamic_the_sources_declare_no_dynamic_dims(monkeypatch):
    # torch 2.4 has only named Dims, which refuse range refinements that Dim.DYNAMIC
    # accepts; the builders then declare nothing and export-dynamic is skipped there.
    from collectors.corpus import inputs, timm_models

    model_id = next(iter(source("timm").list_models())).id
    assert timm_models.build(model_id).dynamic_shapes == ({0: torch.export.Dim.DYNAMIC},)
    monkeypatch.setattr(inputs, "HAS_DYNAMIC_HINT", False)
    assert timm_models.build(model_id).dynamic_shapes is None
    from collectors.exporters import attempt

    result = attempt("export-dynamic", timm_models.build(model_id))
    assert result.outcome == "skip"


def test_transformers_names_the_dtype_argument_its_release_takes():
    from collectors.corpus.transformers_models import _version_tuple

    assert _version_tuple("4.44.2") < (4, 56) <= _version_tuple("4.56.0.dev0") < _version_tuple("5.0.0rc1")
