"""A broken contribution fails `exportkb check` with a message that says what is wrong.

Each test starts from a copy of a real entry (static-batch-size) in an isolated root,
breaks it the way a pull request might, and runs the real `exportkb check`, which runs
the real scripts on the installed torch.
"""
import os
import subprocess
import sys

import pytest

from conftest import REPO

ENTRY = "static-batch-size"


def check(root, *ids):
    return subprocess.run(
        [sys.executable, "-m", "kb.cli", "check", "--jobs", "2", *ids], capture_output=True, text=True, cwd=REPO,
        env={**os.environ, "EXPORTKB_ROOT": str(root), "COLUMNS": "250"}, timeout=600,
    )


def _replace(path, old, new):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))


def test_the_untouched_copy_passes(kb_root):
    r = check(kb_root, ENTRY)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"pass      {ENTRY}" in r.stdout


def test_pattern_that_does_not_match_the_real_error(kb_root):
    toml = kb_root / "entries" / ENTRY / "entry.toml"
    text = toml.read_text()
    start = text.index("patterns = [")
    end = text.index("]\n", start) + 2
    toml.write_text(text[:start] + "patterns = ['Expected a batch of exactly \\d+']\n" + text[end:])
    r = check(kb_root, ENTRY)
    assert r.returncode == 1
    assert "failing.py: none of the entry's patterns matches the real error: AssertionError: Guard failed" in r.stdout


def test_failing_script_that_does_not_fail(kb_root):
    folder = kb_root / "entries" / ENTRY
    (folder / "failing.py").write_text((folder / "fixed.py").read_text())
    r = check(kb_root, ENTRY)
    assert r.returncode == 1
    assert "failing.py does not fail on torch" in r.stdout and "it exited 0" in r.stdout


def test_fixed_script_that_still_fails(kb_root):
    folder = kb_root / "entries" / ENTRY
    (folder / "fixed.py").write_text((folder / "failing.py").read_text())
    r = check(kb_root, ENTRY)
    assert r.returncode == 1
    assert "fixed.py still fails on torch" in r.stdout and "Guard failed" in r.stdout


def test_fixed_script_that_disagrees_with_eager(kb_root):
    fixed = kb_root / "entries" / ENTRY / "fixed.py"
    # An exported program that drifts from eager, as a wrong "fix" would.
    _replace(fixed, "torch.testing.assert_close(exported.module()(bigger_batch), model(bigger_batch))",
             "torch.testing.assert_close(exported.module()(bigger_batch) * 1.5, model(bigger_batch))")
    r = check(kb_root, ENTRY)
    assert r.returncode == 1
    assert "fixed.py disagrees with eager on torch" in r.stdout and "Tensor-likes are not close" in r.stdout


def test_fixed_script_that_does_not_compare_with_eager(kb_root):
    fixed = kb_root / "entries" / ENTRY / "fixed.py"
    _replace(fixed, 'print("ok: exported program matches eager on batch 4")', 'print("exported")')
    r = check(kb_root, ENTRY)
    assert r.returncode == 1
    assert "fixed.py exited 0 but printed no 'ok:' line" in r.stdout


def test_duplicate_id(kb_root):
    import shutil

    shutil.copytree(kb_root / "entries" / ENTRY, kb_root / "entries" / "my-copy")
    r = check(kb_root)
    assert r.returncode == 1
    assert f"id '{ENTRY}' is a duplicate" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("field", ["rule", "patterns", "fix"])
def test_missing_required_field(kb_root, field):
    toml = kb_root / "entries" / ENTRY / "entry.toml"
    lines = toml.read_text().split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{field} = "))
    end = start + 1
    if not lines[start].rstrip().endswith(("]", '"')) or lines[start].rstrip().endswith('"""'):
        while end < len(lines) and lines[end].strip() not in ("]", '"""'):
            end += 1
        end += 1
    toml.write_text("\n".join(lines[:start] + lines[end:]))
    r = check(kb_root, ENTRY)
    assert r.returncode == 1
    assert f"missing required field(s): {field}" in r.stderr and "Traceback" not in r.stderr
