"""What the exporters harness feeds and compares, checked on real models with real torch.

Each case here once produced a wrong observation in the corpus run: the harness, not the
exporter, was at fault (inputs fed in the wrong shape, a number output not compared).
"""
import sys

import pytest
import torch

from collectors import exporters as ex
from collectors.corpus import exportdb
from collectors.corpus.base import Case

pytestmark = pytest.mark.torch


class WithFlag(torch.nn.Module):
    """A bool keyword argument, like transformers' use_cache=False."""

    def forward(self, x, double: bool = False):
        return x * 2 if double else x + 1


class Video(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv3d(3, 4, kernel_size=2)

    def forward(self, x):
        return self.conv(x).mean(dim=(2, 3, 4))


def test_executorch_receives_non_tensor_inputs_too():
    case = Case(WithFlag().eval(), (torch.randn(2, 3),), {"double": True})
    attempt = ex.attempt("executorch", case)
    assert attempt.outcome == "ok", attempt.message


def test_executorch_missing_from_the_interpreter_is_a_skip_that_says_why(monkeypatch):
    # A release run where no executorch installs beside its torch (torch 2.4.1: executorch
    # 0.3.0 requires torch==2.4.0). It once came out as a "crash" with no message.
    for name in [m for m in list(sys.modules) if m == "executorch" or m.startswith("executorch.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "executorch", None)  # import executorch now fails
    attempt = ex.attempt("executorch", Case(WithFlag().eval(), (torch.randn(2, 3),)))
    assert attempt.outcome == "skip" and attempt.exc_type == "ModuleNotFoundError"
    assert attempt.message.startswith(f"executorch is not installed beside torch {torch.__version__}")
    assert {s["outcome"] for s in attempt.stages} == {"skip"}


def test_executorch_failure_carries_the_runtime_log():
    # The portable convolution kernel takes 3-D or 4-D inputs only; the Python exception
    # alone says "error 0x12", the runtime's log says why.
    case = Case(Video().eval(), (torch.randn(1, 3, 4, 8, 8),))
    attempt = ex.attempt("executorch", case)
    assert attempt.outcome == "fail" and attempt.failed_stage == "run"
    assert "method->execute() failed" in attempt.message
    assert "Expect input tensor to be 3-D or 4-D, but got, 5" in attempt.message


class SortScores(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=1, descending=True).values


def test_executorch_load_failure_carries_the_missing_operator():
    # aten.sort is Core ATen, so the program lowers; the portable runtime has no kernel
    # for it, and only its log says which operator is missing.
    attempt = ex.attempt("executorch", Case(SortScores().eval(), (torch.randn(2, 5),)))
    assert attempt.outcome == "fail" and attempt.failed_stage == "save-load"
    assert "Failed to load method forward" in attempt.message
    assert "Missing operator" in attempt.message and "aten::sort" in attempt.message


def test_onnx_legacy_feeds_by_name_when_the_exporter_drops_an_input():
    # The tensor is read only through .item(): the legacy exporter folds it away.
    case = exportdb.build("assume_constant_result")
    attempt = ex.attempt("onnx-legacy", case)
    assert attempt.outcome == "ok", attempt.message


class TextAndImage(torch.nn.Module):
    """Two inputs of different dtypes, as in CLIP-like models (input_ids, then pixel_values)."""

    def forward(self, input_ids, pixel_values):
        return input_ids.float().sum(-1, keepdim=True) * pixel_values.mean(dim=(1, 2, 3))[:, None]


class TensorDefault(torch.nn.Module):
    """ExportDB's optional_input shape: a tensor default that the legacy exporter keeps as a graph input."""

    def forward(self, x, y=torch.ones(2, 3)):
        return x + y


def test_onnx_legacy_names_keyword_inputs_in_signature_order():
    # The case's dict lists pixel_values first; the exporter orders graph inputs as forward
    # declares them. Naming them in dict order fed floats to input_ids (onnxruntime:
    # "Unexpected input data type. Actual: (tensor(float)) , expected: (tensor(int64))").
    kwargs = {"pixel_values": torch.randn(2, 3, 4, 4), "input_ids": torch.randint(0, 9, (2, 5))}
    assert list(ex.in_signature_order(TextAndImage(), kwargs)) == ["input_ids", "pixel_values"]
    attempt = ex.attempt("onnx-legacy", Case(TextAndImage().eval(), (), kwargs))
    assert attempt.outcome == "ok", attempt.message



def test_onnx_legacy_of_a_plain_function_fails_in_the_exporter_not_in_the_harness():
    # The export-non-module entry hands the exporters a bound method or a function. The
    # harness once read `model.forward` to order keyword inputs and died outside any stage,
    # which the collector recorded as a crash; the legacy exporter's own error is the fact.
    def scale(x, factor=2.0):
        return x * factor

    assert ex.in_signature_order(scale, {"factor": 3.0, "x": 1}) == {"x": 1, "factor": 3.0}
    attempt = ex.attempt("onnx-legacy", Case(scale, (torch.randn(2, 3),)))
    assert (attempt.outcome, attempt.failed_stage) == ("fail", "lower"), attempt.message
    assert "object has no attribute 'modules'" in attempt.message

def test_onnx_legacy_missing_graph_input_fails_with_onnxruntimes_own_error():
    attempt = ex.attempt("onnx-legacy", Case(TensorDefault().eval(), (torch.randn(2, 3),)))
    assert attempt.outcome == "fail" and attempt.failed_stage == "run"
    assert "Required inputs" in attempt.message and "are missing from input feed (['input_0'])" in attempt.message


def test_a_number_output_is_compared_by_value():
    case = exportdb.build("scalar_output")  # forward returns x.shape[1] + 1, a Python int
    attempt = ex.attempt("jit-trace", case)  # the trace returns it as a 0-d tensor
    assert attempt.outcome == "ok", attempt.message
    ex.compare(3, torch.tensor(3), "same value")
    with pytest.raises(ex.Mismatch):
        ex.compare(torch.tensor(4), 3, "another value")



def test_rounding_noise_on_a_large_output_agrees_and_a_real_difference_does_not():
    # inception_v3 built without weights returns logits near 1e9; another kernel's float32
    # rounding moved some by 2560 (2e-6 of the largest), far over the absolute 1e-3.
    eager_out = torch.tensor([1.1e9, -3.4e8, 0.5, 1200.0])
    noisy = eager_out + torch.tensor([0.0, 0.0, 2560.0, -900.0])
    ex.compare(noisy, eager_out, "rounding noise")
    with pytest.raises(ex.Mismatch, match="output 0 disagrees with eager"):
        ex.compare(eager_out + torch.tensor([0.0, 0.0, 2.2e5, 0.0]), eager_out, "2e-4 of the largest")
    # A small-valued output keeps the absolute tolerance: +1 is a real difference.
    with pytest.raises(ex.Mismatch):
        ex.compare(torch.ones(3) + 1, torch.ones(3), "plus one")
    # Infinities in eager's output do not widen the tolerance of the finite elements.
    with pytest.raises(ex.Mismatch):
        ex.compare(torch.tensor([float("inf"), 1.1]), torch.tensor([float("inf"), 1.0]), "inf beside")
    assert ex.tolerance(torch.tensor([3, 4])) == ex.ATOL


def test_an_int8_output_is_judged_against_the_float_model_it_came_from():
    # A deep int8 network: the reference quantize/dequantize graph and another kernel each
    # land within about 0.1 of the float output, independently, so they differ from each
    # other by several quantization steps (a step is max|out|/127, about 0.08 here).
    g = torch.Generator().manual_seed(0)
    float_out = torch.randn(2000, generator=g) * 3
    reference = float_out + torch.randn(2000, generator=g) * 0.1
    other_rounding = float_out + torch.randn(2000, generator=g) * 0.1
    with pytest.raises(ex.Mismatch):  # two steps of the reference alone: a false alarm
        ex.compare(other_rounding, reference, "int8", int8=True)
    ex.compare(other_rounding, reference, "int8", int8=True, float_expected=float_out)
    # A lost scale on one op is no rounding: far from the float model, it still disagrees.
    with pytest.raises(ex.Mismatch, match="against the float model its error is"):
        ex.compare(reference * 1.2, reference, "int8", int8=True, float_expected=float_out)
    # So does noise three times the reference's own.
    with pytest.raises(ex.Mismatch):
        ex.compare(float_out + torch.randn(2000, generator=g) * 0.3, reference, "int8", int8=True,
                   float_expected=float_out)
    # The float yardstick is only for int8 models.
    with pytest.raises(ex.Mismatch):
        ex.compare(other_rounding, reference, "float", float_expected=float_out)


def test_a_model_that_updates_its_input_is_compared_on_copies():
    # forward does x.mul_(2): eager and the program must each see the original input.
    case = exportdb.build("user_input_mutation")
    for exporter in ("export", "jit-trace"):
        attempt = ex.attempt(exporter, case)
        assert attempt.outcome == "ok", (exporter, attempt.message)


def test_a_silently_wrong_program_is_a_numeric_failure():
    # TorchScript compiles the undecorated source of a decorated forward: the decorator's
    # "+ 1" is lost, with no error at export time.
    attempt = ex.attempt("jit-script", exportdb.build("decorator"))
    assert attempt.outcome == "fail" and attempt.failed_stage == "numeric"
    assert "disagrees with eager" in attempt.message


class _Noisy(torch.nn.Module):
    """Draws noise in forward, as VITS and ViLT do."""

    def forward(self, x):
        return x + torch.randn_like(x)


def test_noise_drawn_in_forward_agrees_when_the_program_draws_the_same_way():
    from collectors.corpus.base import Case

    case = Case(_Noisy().eval(), (torch.randn(2, 3),))
    for exporter in ("export", "jit-trace"):
        attempt = ex.attempt(exporter, case)
        assert attempt.outcome == "ok", (exporter, attempt.message)
    # A program that makes one more random call before the model's gets other noise.
    def draws_first(a, k):
        torch.rand(1)
        return case.model(*a, **k)
    with pytest.raises(ex.Mismatch, match="disagrees with eager"):
        ex._agree(draws_first, case, case.args, {}, "fresh inputs")


def test_keyword_inputs_reach_onnx_export_the_way_its_release_takes_them(monkeypatch):
    # torch 2.4's torch.onnx.export had no kwargs=: keyword inputs went as a trailing dict
    # in args. Every 2.4.1 ONNX attempt of the release run once failed with "export() got
    # an unexpected keyword argument 'kwargs'", an error of the harness, not the model.
    x, flags = torch.randn(2), {"double": True}
    assert ex._onnx_inputs((x,), flags) == ((x,), {"kwargs": flags})

    def export_2_4(model, args, f=None, export_params=True, verbose=False, dynamo=False):
        raise AssertionError("not called")

    monkeypatch.setattr(torch.onnx, "export", export_2_4)
    assert ex._onnx_inputs((x,), flags) == ((x, flags), {})
    assert ex._onnx_inputs((x,), {}) == ((x,), {})
    # A positional dict last: an empty dict after it, or it would be read as the keywords.
    assert ex._onnx_inputs((x, {"a": x}), None) == ((x, {"a": x}, {}), {})
