import time

import pytest

from kb.extract import extract
from kb.normalize import clean, normalize
from adversarial import ADVERSARIAL


def test_clean_strips_ansi_and_stacked_log_prefixes():
    line = "2024-05-01T10:00:00.1234567Z [rank0]: \x1b[31mAssertionError: Guard failed: x.size()[0] == 2\x1b[0m"
    assert clean(line) == "AssertionError: Guard failed: x.size()[0] == 2"


@pytest.mark.parametrize("prefix", [
    "[rank3]:", "[default0]: ", "2025-01-02 03:04:05,123 ", "[12:34:56] ", "##[error]", "E   ",
    "W1121 16:10:45.281000 2476 torch/fx/experimental/symbolic_shapes.py:8866] ",
    "E1213 17:31:51.629000 3722811 pytorch/torch/fx/experimental/recording.py:299] [0/0] ",
    "E torch/_guards.py:262] [0/0] ",  # as collectors.portable stores glog lines
    "ERROR:root:",
])
def test_clean_strips_each_known_log_prefix(prefix):
    assert clean(prefix + "ValueError: boom") == "ValueError: boom"


def test_stored_glog_lines_do_not_join_the_warning_before_them():
    # Recorded on torch 2.4.1 (observations/sweep-torch-2.4.1.jsonl, dynamic-dim-specialized).
    text = ("<site-packages>/onnxscript/converter.py:823: FutureWarning: 'param_schemas' is deprecated\n"
            "  param_schemas = callee.param_schemas()\n"
            "E torch/_guards.py:262] [0/0] Error while creating guard:\n"
            "E torch/_guards.py:262] [0/0] Traceback (most recent call last):\n"
            "E torch/_guards.py:262] [0/0]   File \"<site-packages>/torch/_guards.py\", line 260, in create\n"
            "E torch/_guards.py:262] [0/0]     return self.create_fn(builder, self)\n"
            "E torch/_guards.py:262] [0/0] torch.fx.experimental.symbolic_shapes.ConstraintViolationError: "
            "Constraints violated (batch)!\n")
    blocks = extract(text)
    assert blocks[0].kind == "warning" and "Error while creating guard" not in blocks[0].message
    assert any(b.type.endswith("ConstraintViolationError") for b in blocks)


def test_clean_keeps_the_error_wording():
    text = "torch._dynamo.exc.Unsupported: Data-dependent branching\n  Explanation: x"
    assert clean(text) == text


def test_normalize_masks_what_varies_between_runs():
    a = normalize(
        'File "/home/alice/.venv/lib/python3.11/site-packages/torch/export/_trace.py", line 1210, in f\n'
        "GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0 > 2 at 0x7f3a2c\n"
        "UnsupportedOperatorError: Exporting the operator 'aten::grid_sampler' to ONNX opset version 15 is not supported"
    )
    b = normalize(
        'File "C:\\Users\\bob\\envs\\ml\\Lib\\site-packages\\torch\\export\\_trace.py", line 977, in f\n'
        "GuardOnDataDependentSymNode: Could not guard on data-dependent expression s77 > 16 at 0xdeadbeef\n"
        "UnsupportedOperatorError: Exporting the operator 'aten::col2im' to ONNX opset version 11 is not supported"
    )
    assert a == b
    assert "<sym> > <n>" in a and "<hex>" in a and "opset version <n>" in a


def test_normalize_keeps_slash_separated_words():
    assert "ModuleList/Sequential" in normalize("ModuleList/Sequential indexing is only supported")


def test_normalize_masks_opset_glued_to_the_word_and_zuf_symbols():
    assert normalize("opset17 zuf0 zf3 ps2") == "opset<n> <sym> <sym> <sym>"


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_no_catastrophic_backtracking_on_a_1mb_line(name):
    # A correctness check, not a benchmark: a backtracking blow-up takes minutes, not 1 s.
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    blocks = extract(text)
    for b in blocks:
        normalize(b.text)
    assert time.perf_counter() - start < 1.0
