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
    # A second sweep of the same release records nothing twice.
    r = subprocess.run([sys.executable, "-m", "kb.cli", "sweep", "--torch", "2.13.0", ENTRY], capture_output=True,
                       text=True, cwd=REPO, timeout=1500,
                       env={**os.environ, "EXPORTKB_ROOT": str(root), "COLUMNS": "250", **env_root})
    assert "0 new observations" in r.stdout and len(_records(root / "observations" / "sweep-torch-2.13.0.jsonl")) == 2


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
