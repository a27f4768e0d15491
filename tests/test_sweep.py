"""`exportkb sweep` and the retired-entry flag, through the real CLI.

The end-to-end sweep installs torch 2.13.0 into a throw-away venv (the pinned wheel
the machine has, plus the companions from the registry), so it takes a couple of minutes.
The tests that ask the package registry are marked `registry` (deselect them with
`-m "not registry"` where it cannot be reached).
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import PINNED_TORCH, REPO

pytestmark = pytest.mark.torch
ENTRY = "frozen-storage-mutation"


def cli(root, *args, timeout=1200):
    return subprocess.run([sys.executable, "-m", "kb.cli", *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "EXPORTKB_ROOT": str(root), "COLUMNS": "250"}, timeout=timeout)


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "kbroot"
    (root / "entries").mkdir(parents=True)
    (root / "observations").mkdir()
    shutil.copytree(REPO / "entries" / ENTRY, root / "entries" / ENTRY)
    return root


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_entry_that_reproduces_nowhere_is_flagged_retired_until_an_old_release_reproduces_it(root):
    r = cli(root, "check", "--record", ENTRY)
    assert r.returncode == 0, r.stdout + r.stderr  # no-repro as the entry states is not an error
    assert f"retired   {ENTRY}: reproduces on none of {PINNED_TORCH.split('+')[0]}" in r.stdout
    # Add the committed run of the same script on torch 2.4.1 (exportkb sweep's record).
    swept = [rec for rec in _records(REPO / "observations" / "sweep-torch-2.4.1.jsonl") if rec["entry"] == ENTRY]
    assert {rec["case"] for rec in swept} == {"failing.py", "fixed.py"}
    with (root / "observations" / "sweep-torch-2.4.1.jsonl").open("w") as fh:
        fh.writelines(json.dumps(rec) + "\n" for rec in swept)
    r = cli(root, "check", ENTRY)
    assert r.returncode == 0 and "retired" not in r.stdout, r.stdout


@pytest.mark.registry
def test_sweep_installs_runs_records_and_frees_the_disk(root, tmp_path):
    sweep_dir = tmp_path / "sweeps"
    env_root = {"EXPORTKB_SWEEP_DIR": str(sweep_dir)}
    r = subprocess.run([sys.executable, "-m", "kb.cli", "sweep", "--torch", "2.13.0", ENTRY], capture_output=True,
                       text=True, cwd=REPO, timeout=1500,
                       env={**os.environ, "EXPORTKB_ROOT": str(root), "COLUMNS": "250", **env_root})
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert "torch 2.13.0: 2 scripts (ok 2), 2 new observations" in r.stdout
    records = _records(root / "observations" / "sweep-torch-2.13.0.jsonl")
    assert {rec["case"] for rec in records} == {"failing.py", "fixed.py"}
    for rec in records:
        assert rec["sweep"] is True and rec["entry"] == ENTRY and rec["outcome"] == "ok"
        assert rec["versions"]["torch"].startswith("2.13.0") and rec["versions"]["transformers"]
        assert rec["python"] and rec["platform"]
    assert not any(sweep_dir.iterdir())  # the venv is gone
    # A second sweep of the same release runs nothing again and records nothing twice.
    r = subprocess.run([sys.executable, "-m", "kb.cli", "sweep", "--torch", "2.13.0", ENTRY], capture_output=True,
                       text=True, cwd=REPO, timeout=1500,
                       env={**os.environ, "EXPORTKB_ROOT": str(root), "COLUMNS": "250", **env_root})
    assert "torch 2.13.0: 2 scripts (2 recorded before), 0 new observations" in r.stdout
    assert len(_records(root / "observations" / "sweep-torch-2.13.0.jsonl")) == 2


@pytest.mark.registry
def test_a_release_that_cannot_be_installed_is_a_clear_error_and_records_nothing(root, tmp_path):
    r = subprocess.run([sys.executable, "-m", "kb.cli", "sweep", "--torch", "0.0.1", ENTRY], capture_output=True,
                       text=True, cwd=REPO, timeout=600,
                       env={**os.environ, "EXPORTKB_ROOT": str(root), "COLUMNS": "250",
                            "EXPORTKB_SWEEP_DIR": str(tmp_path / "sweeps")})
    assert r.returncode == 1
    # pip's own last error line is shown; its wording is the registry's ("No matching distribution",
    # or "ResolutionImpossible" where the registry constrains torch).
    assert "torch 0.0.1: pip install failed (exit 1)" in r.stdout and "ERROR: " in r.stdout
    assert not (root / "observations" / "sweep-torch-0.0.1.jsonl").exists()
    # The venv is gone; pip's log stays for the reader.
    assert [p.name for p in (tmp_path / "sweeps").iterdir()] == ["torch-0.0.1.pip.log"]


def test_each_release_records_its_companions_and_why_one_is_missing(tmp_path):
    from pathlib import Path

    from collectors.sweep import EXECUTORCH, ReleaseReport, add_executorch, companions_path, record_companions

    # torch 2.1.2 has no executorch wheel for Python 3.11: said without asking pip.
    reason = add_executorch(Path("/no/such/python"), "2.1.2")
    assert "2.1.2" not in EXECUTORCH and "no executorch release is paired with torch 2.1.2" in reason
    old = ReleaseReport("2.1.2", versions={"torch": "2.1.2", "onnx": "1.15.0", "executorch": None},
                        missing={"executorch": reason})
    new = ReleaseReport("2.13.0", versions={"torch": "2.13.0", "onnx": "1.23.2", "executorch": "1.5.1"})
    record_companions(new, tmp_path)
    record_companions(old, tmp_path)
    data = json.loads(companions_path(tmp_path).read_text())
    assert list(data) == ["2.1.2", "2.13.0"]
    assert data["2.1.2"] == {"versions": {"executorch": None, "onnx": "1.15.0"}, "missing": {"executorch": reason}}
    assert data["2.13.0"]["missing"] == {} and data["2.13.0"]["versions"]["executorch"] == "1.5.1"
    # A later sweep of one AOTInductor entry installs no executorch: the earlier record of
    # executorch stays (on both releases), and the other companions are updated.
    for torch, onnx in (("2.1.2", "1.15.1"), ("2.13.0", "1.23.3")):
        record_companions(ReleaseReport(torch, versions={"torch": torch, "onnx": onnx, "executorch": None}), tmp_path)
    data = json.loads(companions_path(tmp_path).read_text())
    assert data["2.1.2"] == {"versions": {"executorch": None, "onnx": "1.15.1"}, "missing": {"executorch": reason}}
    assert data["2.13.0"]["versions"] == {"executorch": "1.5.1", "onnx": "1.23.3"}
    # A sweep that does try it records what it found, even that it is gone now.
    record_companions(ReleaseReport("2.13.0", versions={"torch": "2.13.0", "onnx": "1.23.3", "executorch": None},
                                    missing={"executorch": "pip failed"}), tmp_path, tried=frozenset({"executorch"}))
    data = json.loads(companions_path(tmp_path).read_text())
    assert data["2.13.0"] == {"versions": {"executorch": None, "onnx": "1.23.3"}, "missing": {"executorch": "pip failed"}}
    # Every release the sweep pins has an executorch from its time or says why not.
    assert set(EXECUTORCH) <= set(__import__("collectors.sweep", fromlist=["COMPANIONS"]).COMPANIONS)


def test_executorch_that_pins_an_older_numpy_is_installed_with_its_own_numpy(monkeypatch, tmp_path):
    from collectors import sweep

    calls = []

    def fake_pip(python, args, log):
        calls.append(args)
        if any(a.startswith("numpy==") for a in args):
            raise sweep.SweepError("ERROR: Cannot install executorch==0.5.0 and numpy==2.2.2")

    monkeypatch.setattr(sweep, "run_pip", fake_pip)
    monkeypatch.setenv("EXPORTKB_SWEEP_DIR", str(tmp_path))
    assert sweep.add_executorch(tmp_path / "python", "2.6.0") is None
    assert "numpy==2.2.2" in calls[0] and not any(a.startswith("numpy") for a in calls[1])
    assert calls[1][:3] == ["install", "--prefer-binary", "executorch==0.5.0"] and "torch==2.6.0" in calls[1]

    def always_fails(python, args, log):
        raise sweep.SweepError("ERROR: Cannot install executorch==0.5.0 (no wheel for this Python)")

    monkeypatch.setattr(sweep, "run_pip", always_fails)
    assert sweep.add_executorch(tmp_path / "python", "2.6.0").startswith("executorch==0.5.0: ERROR: Cannot install")


def test_torchao_is_installed_and_recorded_only_for_the_entries_that_import_it(monkeypatch, tmp_path):
    from collectors import sweep
    from kb.catalogue import load_entry

    quantized = load_entry(REPO / "entries" / "torchao-tensor-subclass-export")
    plain = load_entry(REPO / "entries" / ENTRY)
    lowered = load_entry(REPO / "entries" / "executorch-missing-kernel")
    # Read from the scripts' imports (torchao is imported inside a helper function there).
    assert quantized.libraries == ("torchao",) and plain.libraries == () and lowered.libraries == ()
    assert sweep.needs(quantized, "torchao") and not sweep.needs(quantized, "executorch")
    assert sweep.needs(lowered, "executorch") and not sweep.needs(lowered, "torchao")
    assert not any(sweep.needs(plain, lib) for lib in sweep.OPTIONAL_COMPANIONS)

    # Only the entry that imports torchao records its version, so no other run is re-keyed.
    report = sweep.ReleaseReport("2.5.1", versions={"torch": "2.5.1", "onnx": "1.17.0"},
                                 entry_libs={"torchao": "0.6.1"})
    assert report.versions_for(plain) == {"torch": "2.5.1", "onnx": "1.17.0"}
    assert report.versions_for(quantized) == {"torch": "2.5.1", "onnx": "1.17.0", "torchao": "0.6.1"}
    from collectors.check import case_key
    assert case_key(plain, "failing.py", report.versions_for(plain)) == case_key(plain, "failing.py", report.versions)
    assert (case_key(quantized, "failing.py", report.versions_for(quantized))
            != case_key(quantized, "failing.py", report.versions))

    # The release's torchao, with its own pins so pip keeps its torch; a release before
    # torchao's first wheel for this Python says so without asking pip.
    calls = []
    monkeypatch.setattr(sweep, "run_pip", lambda python, args, log: calls.append(args))
    monkeypatch.setenv("EXPORTKB_SWEEP_DIR", str(tmp_path))
    assert sweep.add_torchao(tmp_path / "python", "2.5.1") is None
    assert "torchao==0.6.1" in calls[0] and "torch==2.5.1" in calls[0]
    assert "no torchao release is paired with torch 2.1.2" in sweep.add_torchao(tmp_path / "python", "2.1.2")
    assert set(sweep.TORCHAO) <= set(sweep.COMPANIONS)

    # The companions file records torchao for a release whose sweep installed it.
    sweep.record_companions(report, tmp_path, tried=frozenset({"torchao"}))
    data = json.loads(sweep.companions_path(tmp_path).read_text())
    assert data["2.5.1"]["versions"] == {"onnx": "1.17.0", "torchao": "0.6.1"}


def test_the_version_probe_keeps_entry_libraries_apart_from_what_every_run_records():
    from pathlib import Path

    from collectors.sweep import probe_versions
    from kb.observations import ENTRY_LIBS, VERSIONED_LIBS

    probed = probe_versions(Path(sys.executable))
    assert tuple(probed["versions"]) == VERSIONED_LIBS and tuple(probed["entry_libs"]) == ENTRY_LIBS
    # This venv has torchao (executorch brings it), and it is not in what every run records.
    assert probed["entry_libs"]["torchao"] and "torchao" not in probed["versions"]
