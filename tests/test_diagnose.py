"""`exportkb diagnose` as a user runs it: the real command, real models, real exporters.

The models under tests/diagnose_models/ each misbehave in one way a user's model can:
hang or crash or eat memory inside one exporter, fail with an error no entry explains,
or be unusable (no `model`, an import error, a model broken in eager mode).
"""
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import re2

from conftest import REPO

MODELS = REPO / "tests" / "diagnose_models"


def diagnose(*args, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "kb.cli", "diagnose", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, env={**os.environ, **(env or {})}, timeout=timeout)


def report_of(r) -> dict:
    assert r.stdout.strip(), r.stderr
    return json.loads(r.stdout)


def by_exporter(report: dict) -> dict:
    return {x["exporter"]: x for x in report["results"]}


def test_failure_of_an_entry_is_named_and_its_automatic_fix_makes_the_exporter_pass():
    # strict-untraceable-call's own model: strict export cannot trace the tokenizer call;
    # its entry's fix is to export with strict=False, which the command retries.
    r = diagnose(REPO / "entries" / "strict-untraceable-call" / "failing.py", "--exporters", "export-strict,export",
                 "--json")
    report = report_of(r)
    strict = by_exporter(report)["export-strict"]
    assert strict["outcome"] == "fail" and strict["stage"] == "capture"
    assert strict["entry"] == "strict-untraceable-call"
    assert strict["entry_url"].endswith("/docs/en/entries/strict-untraceable-call.html")
    assert strict["fix"]["id"] == "strict-false" and strict["fix"]["outcome"] == "ok"
    assert strict["passed"] and by_exporter(report)["export"]["outcome"] == "ok"
    assert r.returncode == 0 and report["exit_code"] == 0  # every exporter passes, one with its fix


def test_markdown_report_is_a_table_with_the_entry_linked_and_the_error_folded():
    r = diagnose(REPO / "entries" / "strict-untraceable-call" / "failing.py", "--exporters", "export-strict",
                 "--no-fixes", "--markdown")
    assert r.returncode == 1, r.stderr  # without the fix the exporter fails
    md = r.stdout
    assert md.startswith("### `exportkb diagnose` on `failing.py`")
    assert "| exporter | outcome | stage | entry | fix tried → result |" in md
    assert "| export-strict | fail | capture | [strict-untraceable-call](" in md
    assert "<details><summary>export-strict: torch._dynamo.exc.Unsupported" in md
    assert md.count("```") % 2 == 0 and "</details>" in md


def test_unexplained_failure_gives_an_exportkb_new_command_that_starts_a_matching_entry(kb_root):
    r = diagnose(MODELS / "unexplained.py", "--exporters", "export,jit-trace", "--json")
    assert r.returncode == 1
    report = report_of(r)
    export, trace = by_exporter(report)["export"], by_exporter(report)["jit-trace"]
    assert trace["outcome"] == "ok" and trace["passed"]
    assert export["outcome"] == "fail" and export["entry"] is None and not export["passed"]
    assert "frobnicator cannot be exported in quantum mode 7" in export["message"]
    command = shlex.split(export["new_entry"])
    assert command[:2] == ["exportkb", "new"] and "--script" in command

    # The printed command, run as printed, scaffolds an entry whose pattern names the error
    # and whose failing.py, run on its own, fails with it.
    made = subprocess.run([sys.executable, "-m", "kb.cli", *command[1:]], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "EXPORTKB_ROOT": str(kb_root)}, timeout=120)
    assert made.returncode == 0, made.stderr
    from kb.catalogue import load_catalogue

    entry = next(e for e in load_catalogue(kb_root / "entries") if e.id == command[2])
    assert entry.exporters == ("export",) and entry.stage == "capture"
    assert any(p.search(f"RuntimeError: {export['message']}") for p in entry.compiled_patterns())
    run = subprocess.run([sys.executable, "failing.py"], cwd=entry.folder, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and "frobnicator cannot be exported in quantum mode 7" in run.stderr


@pytest.mark.parametrize("model, exporter, outcome, args", [
    ("hangs_in_export.py", "export", "timeout", ["--timeout", "15"]),
    ("crashes_in_trace.py", "jit-trace", "crash", []),
    ("eats_memory.py", "jit-trace", "oom", ["--memory-mb", "2000"]),
])
def test_a_model_that_hangs_crashes_or_eats_memory_in_one_exporter_is_an_outcome(model, exporter, outcome, args):
    other = "jit-trace" if exporter == "export" else "export"
    r = diagnose(MODELS / model, "--exporters", f"{exporter},{other}", "--json", *args)
    report = report_of(r)
    bad, good = by_exporter(report)[exporter], by_exporter(report)[other]
    assert bad["outcome"] == outcome and bad["stage"] == "capture" and not bad["passed"]
    assert good["outcome"] == "ok"  # the other exporter of the same model is unaffected
    assert r.returncode == 1
    if outcome == "crash":
        assert "SIGSEGV" in bad["message"]
    if outcome == "oom":
        assert bad["peak_rss_mb"] > 2000


def test_terminal_report_says_what_each_outcome_means():
    r = diagnose(MODELS / "crashes_in_trace.py", "--exporters", "jit-trace,export")
    assert r.returncode == 1
    assert "jit-trace crash at capture" in r.stdout and "crashed in native code" in r.stdout
    assert "1 of 2 exporters pass" in r.stdout


@pytest.mark.parametrize("model, says", [
    ("no_model.py", "no_model.py does not define `model` at module level"),
    ("import_error.py", "importing import_error.py raised AttributeError"),
    ("eager_fails.py", "fails in eager mode on example_args: RuntimeError"),
])
def test_unusable_file_exits_2_with_the_users_own_traceback(model, says):
    r = diagnose(MODELS / model, "--exporters", "export")
    assert r.returncode == 2 and r.stdout == ""
    assert says in r.stderr
    if model == "import_error.py":
        # The user's own line, and none of exportkb's frames before it.
        assert 'import_error.py", line 5, in <module>' in r.stderr and "torch.nn.Relu()" in r.stderr
        assert "collectors/" not in r.stderr and "importlib" not in r.stderr
    if model == "eager_fails.py":
        assert "mat1 and mat2 shapes cannot be multiplied" in r.stderr and "user_script.py" not in r.stderr


def test_unusable_input_json_still_reports_why():
    report = report_of(diagnose(MODELS / "no_model.py", "--exporters", "export", "--json"))
    assert report["exit_code"] == 2 and report["results"] == [] and "`model`" in report["unusable"]


@pytest.mark.parametrize("args, says", [
    ([], "name one model"),
    (["--hf", "bert", "--timm", "resnet18"], "name one model"),
    ([str(MODELS / "unexplained.py"), "--exporters", "export,bogus"], "unknown exporter(s) bogus"),
    ([str(MODELS / "missing.py")], "does not exist"),
    ([str(MODELS / "unexplained.py"), "--json", "--markdown"], "choose one"),
])
def test_bad_command_lines_are_usage_errors(args, says):
    r = diagnose(*args, timeout=60)
    assert r.returncode == 2 and says in r.stderr


def test_unknown_builder_model_is_unusable_input():
    r = diagnose("--hf", "not-a-model-type", "--exporters", "export")
    assert r.returncode == 2 and "unknown transformers model type 'not-a-model-type'" in r.stderr


def test_real_torchvision_model_passes_three_exporters():
    report = report_of(diagnose("--torchvision", "resnet18", "--exporters", "export,jit-trace,onnx-legacy", "--json"))
    assert [x["outcome"] for x in report["results"]] == ["ok", "ok", "ok"] and report["exit_code"] == 0
    assert report["model"] == "torchvision/resnet18" and report["versions"]["torch"].startswith("2.13.0")


def test_real_transformers_model_runs_from_its_config():
    report = report_of(diagnose("--hf", "bert", "--exporters", "export,export-dynamic", "--json"))
    assert report["unusable"] is None and report["model"] == "transformers/bert"
    assert {x["exporter"] for x in report["results"]} == {"export", "export-dynamic"}
    assert all(x["outcome"] in ("ok", "fail") for x in report["results"])
    for x in report["results"]:  # whatever fails is either explained or gets a command to start an entry
        assert x["outcome"] == "ok" or x["entry"] or x["new_entry"].startswith("exportkb new ")
