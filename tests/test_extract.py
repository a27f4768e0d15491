import json

from conftest import REPO
from kb.extract import extract

CHAINED = '''Traceback (most recent call last):
  File "/x/a.py", line 3, in f
    raise KeyError("inner")
KeyError: 'inner'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/x/a.py", line 9, in <module>
    raise RuntimeError("outer") from e
RuntimeError: outer
'''

TORCHSCRIPT = '''Traceback (most recent call last):
  File "/tmp/m.py", line 12, in <module>
    torch.jit.script(M())
  File "/venv/lib/python3.11/site-packages/torch/jit/_recursive.py", line 473, in create_methods_and_properties_from_stubs
    concrete_type._create_methods_and_properties(
RuntimeError: 
Module 'M' has no attribute 'proj' :
  File "/tmp/m.py", line 10
    def forward(self, x):
        if self.use_proj:
            x = self.proj(x)
                ~~~~~~~~~ <--- HERE
        return x
'''


def test_chained_exceptions_are_all_found_in_order():
    blocks = extract(CHAINED)
    assert [(b.type, b.message) for b in blocks] == [("KeyError", "'inner'"), ("RuntimeError", "outer")]


def test_torchscript_bare_runtime_error_keeps_message_and_excerpt():
    (block,) = extract(TORCHSCRIPT)
    assert block.type == "RuntimeError"
    assert block.message.startswith("Module 'M' has no attribute 'proj' :")
    assert "<--- HERE" in block.message


def test_wrapper_summary_of_inner_exception_is_found():
    text = (
        "torch.onnx._internal.exporter._errors.TorchExportError: Failed to export the model with torch.export.\n"
        "## Exception summary\n\n"
        "<class 'torch._dynamo.exc.UserError'>: Constraints violated (batch)! For more information\n"
    )
    types = [b.type for b in extract(text)]
    assert types == ["torch.onnx._internal.exporter._errors.TorchExportError", "torch._dynamo.exc.UserError"]


def test_warnings_are_found_with_their_category():
    text = "/x/contextlib.py:144: UserWarning: The tensor attribute self.steps was assigned during export.\n  next(self.gen)\n"
    (block,) = extract(text)
    assert (block.kind, block.type) == ("warning", "UserWarning")
    assert block.message.startswith("The tensor attribute self.steps")


def test_prose_lines_with_colons_are_not_exceptions():
    text = "Explanation: Dynamo does not know\nHint: avoid it\nCaused by: x\nSuggested fixes:\nNote: y"
    (block,) = extract(text)
    assert block.kind == "text" and block.type == ""


def test_a_fragment_without_exception_line_is_kept_whole():
    (block,) = extract("Guard failed: x.size()[0] == 2")
    assert block.text == "Guard failed: x.size()[0] == 2"


def test_noisy_log_around_a_traceback():
    log = "\n".join(
        ["2024-01-01T00:00:00Z Collecting torch", "\x1b[32mok\x1b[0m step 1"]
        + [f"2024-01-01T00:00:01Z {line}" for line in CHAINED.splitlines()]
        + ["2024-01-01T00:00:02Z ##[error]Process completed with exit code 1."]
    )
    types = [b.type for b in extract(log)]
    assert types == ["KeyError", "RuntimeError"]


BARE_ASSERT = '''Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/torch/_export/verifier.py", line 274, in _check_valid_op
    self.check_valid_op(op)
  File "/venv/lib/python3.11/site-packages/executorch/exir/verification/verifier.py", line 312, in check_valid_edge_op
    assert op.__name__ in ("alloc",)
           ^^^^^^^^^^^^^^^^^^^^^^^^^
AssertionError
'''


def test_bare_assert_takes_the_statement_that_raised_as_its_message():
    (block,) = extract(BARE_ASSERT)
    assert (block.type, block.kind) == ("AssertionError", "exception")
    assert block.message == 'assert op.__name__ in ("alloc",)\n(in check_valid_edge_op, verifier.py)'


def test_bare_raise_chained_under_a_message_keeps_both_in_order():
    text = BARE_ASSERT + "\nThe above exception was the direct cause of the following exception:\n\n" + \
        'Traceback (most recent call last):\n  File "/x/run.py", line 4, in <module>\n    lower(ep)\n' + \
        "RuntimeError: lowering failed\n"
    assert [(b.type, b.message.split("\n")[0]) for b in extract(text)] == [
        ("AssertionError", 'assert op.__name__ in ("alloc",)'), ("RuntimeError", "lowering failed")]


def test_a_type_name_alone_outside_a_traceback_is_not_an_exception():
    # A log that mentions a type on its own line, or a frame followed by other output.
    assert [b.kind for b in extract("starting\nRuntimeError\ndone\n")] == ["text"]
    text = 'Traceback (most recent call last):\n  File "/x.py", line 3, in f\n    g()\nprinted by g\nValueError\n'
    assert [b.kind for b in extract(text)] == ["text"]


def _swept_failure(entry: str, torch: str) -> dict:
    path = REPO / "observations" / f"sweep-torch-{torch}.jsonl"
    return next(r for r in map(json.loads, path.read_text().splitlines())
                if r.get("entry") == entry and r["case"] == "failing.py" and r["outcome"] == "fail")


def test_a_compiler_error_printed_before_the_traceback_is_a_block_of_its_own():
    # torch 2.4.1's AOTInductor lets g++ write to stderr, then raises a bare
    # "CppCompileError: C++ compile error ... Output: None": the cause is only in g++'s line.
    rec = _swept_failure("aoti-missing-c-shim", "2.4.1")
    blocks = extract(rec["traceback"])
    compiler = [b for b in blocks if b.kind == "compiler"]
    assert [b.text for b in compiler] == [
        "error: ‘aoti_torch_cpu_linalg_inv_ex’ was not declared in this scope; did you mean ‘aoti_torch_cpu_view_dtype’?"]
    assert blocks[-1].kind == "exception" and blocks[-1].type.endswith("CppCompileError")
    assert "was not declared" not in blocks[-1].text  # the exception itself does not say why


def test_compiler_lines_inside_an_exception_stay_in_its_message_and_a_bare_log_keeps_its_text_block():
    inside = "torch._inductor.exc.CppCompileError: C++ compile error\n\nOutput:\nm.cpp:4:10: fatal error: omp.h: No such file or directory\n"
    blocks = extract(inside)
    assert [b.kind for b in blocks] == ["exception"] and "omp.h" in blocks[0].message
    log = "m.cpp: In function ‘void f()’:\nm.cpp:9:3: error: ‘g’ was not declared in this scope\n" + "".join(
        f"m.cpp:{n}:1: error: ‘h{n}’ was not declared in this scope\n" for n in range(10, 40))
    blocks = extract(log)
    # the first two errors, then (no exception at all) the whole text as before
    assert [b.kind for b in blocks] == ["compiler", "compiler", "text"]
    assert blocks[0].text == "error: ‘g’ was not declared in this scope" and "h39" in blocks[-1].text


def test_a_native_runtime_s_failed_assertion_before_the_abort_is_a_block_of_its_own():
    # ExecuTorch's runtime logs a failed ET_CHECK and aborts the process: the Python side
    # only sees a child that "died with SIGABRT", so the log line is the cause.
    rec = next(r for r in map(json.loads, (REPO / "observations" / "entries.jsonl").read_text().splitlines())
               if r.get("entry") == "executorch-kernel-registered-twice" and r["case"] == "failing.py")
    blocks = extract(rec["traceback"])
    assert [b.kind for b in blocks] == ["native", "exception"]
    assert blocks[0].text.startswith("In function register_kernels_internal(), assert failed (false): "
                                     "Kernel registration failed with error ")
    assert "SIGABRT" in blocks[1].text and "registration" not in blocks[1].text
    # Read back alone (a link's excerpt, a pasted line), it is the same block, and a log
    # with it as the only error keeps the whole text as well.
    assert extract(blocks[0].text)[0] == blocks[0]
    assert [b.kind for b in extract(blocks[0].text)] == ["native", "text"]
    # Inside an exception's message it stays part of that message.
    inside = "RuntimeError: loading failed\n[x.cpp:1] In function f(), assert failed (n > 0): no kernels\n"
    assert [b.kind for b in extract(inside)] == ["exception"]


def test_et_check_without_a_message_is_a_native_block_too():
    # ET_CHECK(cond) logs "assert failed: cond", without the parenthesised condition of
    # ET_CHECK_MSG (a 2.6.0 .pte run on executorch 0.5.0, observations/compat).
    log = ("[program.cpp:135] InternalConsistency verification requested but not available\n"
           "[op_add.cpp:151] In function opt_add_out(), assert failed: "
           "selected_optimized_path == ElementwiseOptimizedPath::kBroadcast2dBy1d")
    blocks = extract(log)
    assert [b.kind for b in blocks] == ["native", "text"]
    assert blocks[0].text == ("In function opt_add_out(), assert failed: "
                              "selected_optimized_path == ElementwiseOptimizedPath::kBroadcast2dBy1d")
    # Prose that mentions an assert is not a runtime's log line.
    assert [b.kind for b in extract("the assert failed: see above")] == ["text"]


def test_an_executorch_missing_operator_log_line_is_a_block_before_the_exception():
    # A .pte file written by a newer executorch, loaded by an older runtime: the runtime
    # logs the operator it has no kernel for, once per instruction, and Python only gets
    # "loading method forward failed with error 0x14". The log line says why.
    rec = next(r for r in map(json.loads, (REPO / "observations" / "compat" / "loaded-on-2.6.0.jsonl")
                                         .read_text().splitlines())
               if r["exporter"] == "executorch" and r["outcome"] == "fail"
               and "Missing operator: " in r["traceback"])
    blocks = extract(rec["traceback"])
    native = [b for b in blocks if b.kind == "native"]
    # The runtime says it twice, in two wordings: the kernel lookup and the method's load.
    assert native and all(b.text.startswith(("Missing operator: [", "kernel 'dim_order_ops::")) for b in native)
    assert any(b.text.startswith("Missing operator: [") for b in native)
    # each distinct line once, and no more than a few of them
    assert len({b.text for b in native}) == len(native) <= 4
    assert rec["traceback"].count("Missing operator: ") > len(native)
    assert blocks[-1].kind == "exception"
    assert blocks[-1].text == "RuntimeError: loading method forward failed with error 0x14"
    # With a log prefix of another format, and read back alone, it is the same block.
    line = "E 00:00:00.021213 executorch:method.cpp:554] Missing operator: [2] aten::sort.values"
    assert extract(line)[0] == extract("Missing operator: [2] aten::sort.values")[0]
    assert extract(line)[0].kind == "native"


def test_the_error_torch_export_load_logged_before_check_the_warnings_above_is_a_block():
    # torch 2.9's torch.export.load logs the error as a warning, then raises an exception
    # that only points at it (observations/compat: a 2.9.1 .pt2 of a transformers model
    # loaded where transformers was not imported).
    rec = next(r for r in map(json.loads, (REPO / "observations" / "compat" / "loaded-on-2.9.1.jsonl")
                                         .read_text().splitlines())
               if r["exporter"] == "export" and "error when deserializing: Deserializing " in (r.get("traceback") or ""))
    blocks = extract(rec["traceback"])
    logged = [b for b in blocks if b.kind == "log"]
    assert len(logged) == 1
    assert logged[0].text.startswith("Ran into the following error when deserializing: Deserializing transformers.")
    assert logged[0].text.endswith("in pytree is not registered.")
    assert blocks[-1].text.startswith("RuntimeError: We ran into an error when deserializing the saved file.")
    # Read back alone it is the same block; the message may go on over the next lines.
    assert extract(logged[0].text)[0] == logged[0]
    two = ("W x.py:451] Ran into the following error when deserializing: first line\nsecond line\n"
           "Traceback (most recent call last):\nRuntimeError: We ran into an error")
    assert [(b.kind, b.text) for b in extract(two)] == [
        ("log", "Ran into the following error when deserializing: first line\nsecond line"),
        ("exception", "RuntimeError: We ran into an error")]


def test_executorch_log_lines_that_say_what_failed_are_blocks_and_progress_lines_are_not():
    # artifact-file-incomplete's failing_pte.py on torch 2.13.0 / executorch 1.5.1: the
    # runtime logs why, Python gets the status code only.
    # A warning printed just before (as this run printed it) does not swallow the line.
    text = ("<python>/copyreg.py:105: FutureWarning: `isinstance(treespec, LeafSpec)` is deprecated, use "
            "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.\n"
            "  return cls.__new__(cls, *args)\n"
            "[program.cpp:114] File size is too small. Expected file size from extended header is 369792, "
            "actual file size from data loader is 277344\n"
            "Traceback (most recent call last):\n"
            '  File "failing_pte.py", line 29, in main\n'
            "RuntimeError: Failed to load program, error: 0x:23\n")
    blocks = extract(text)
    assert [b.kind for b in blocks] == ["warning", "native", "exception"]
    assert blocks[1].text.startswith("File size is too small. Expected file size from extended header is 369792")
    # A C++ runner's format, with its progress lines and the pieces of a tensor it prints
    # line by line: only the failures are blocks (a train report, quoted as posted).
    report = next(r for r in map(json.loads, (REPO / "devset" / "reports" / "mined-aoti-executorch-6.jsonl")
                                 .read_text().splitlines())
                  if r["source"] == "https://github.com/pytorch/executorch/issues/9930")
    native = [b.text for b in extract(report["text"]) if b.kind == "native"]
    assert native[:2] == ["Check failed (all_contiguous || all_channels_last): 2 input tensors have different dim orders",
                          "Check failed (tensors_have_same_dim_order(in, out)):"]
    assert any(t.startswith("KernelCall failed at instruction") for t in native)
    assert not any(t.startswith("arg 0") for t in native)
    # A Python logging line in glog's format is not ExecuTorch's.
    assert [b.kind for b in extract("W1128 05:11:46.263000 28472 torch/export/__init__.py:348] failed to load")] == [
        "text"]
