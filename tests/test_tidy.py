"""`exportkb check --catalogue`: every cross-reference of the project lands, checked without torch."""
import dataclasses
import os
import shutil
import sqlite3
import subprocess
import sys

from conftest import REPO
from kb import tidy
from kb.catalogue import load_catalogue


def test_every_cross_reference_of_the_repository_resolves_without_torch():
    code = ("import sys\n"
            "sys.modules['torch'] = None  # any import of torch now raises ImportError\n"
            "from kb.cli import main\n"
            "sys.argv = ['exportkb', 'check', '--catalogue']\n"
            "main()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300,
                       env={**os.environ, "COLUMNS": "250"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every reference resolves" in r.stdout and "not checked" not in r.stderr, r.stdout + r.stderr


def test_a_path_or_a_name_that_leads_nowhere_is_reported(tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "__init__.py").write_text('"""See `kb/present.py`, kb.present.defined and kb.present."""\n')
    (tmp_path / "kb" / "present.py").write_text("defined = 1\n")
    (tmp_path / "README.md").write_text("Edit `collectors/gone.py`; run `python -m kb.gone`; call kb.present.missing.\n"
                                        "Copy `entries/my-failure-id/` and `observations/sweep-torch-<version>.jsonl`.\n")
    problems = tidy.reference_problems(tmp_path)
    assert sorted(problems) == [
        "README.md: names collectors/gone.py, which does not exist",
        "README.md: names kb.gone, which is neither a module nor a name one defines",
        "README.md: names kb.present.missing, which is neither a module nor a name one defines",
    ]


def test_a_column_the_metadata_does_not_describe_is_reported(tmp_path, kb_db):
    db = tmp_path / "kb.db"
    shutil.copy(kb_db, db)
    assert tidy.metadata_problems(db) == []
    with sqlite3.connect(db) as conn:
        conn.execute("alter table entries add column secret text")
        conn.execute("create table scratch (x int)")
    assert tidy.metadata_problems(db) == ["kb.db table scratch is not described in kb/ui/metadata.py",
                                          "kb.db column entries.secret is not described in kb/ui/metadata.py"]


def test_an_automatic_fix_must_name_a_transform_and_be_claimed_once():
    entries = [e for e in load_catalogue(REPO / "entries") if e.auto_fix is not None]
    assert len(entries) >= 2
    from collectors.fixes import TRANSFORMS

    assert tidy.fix_problems(entries, TRANSFORMS) == []
    first, second = entries[0], entries[1]
    typo = dataclasses.replace(first, auto_fix=dataclasses.replace(first.auto_fix, transform="no-such-transform",
                                                                   retry_as=None))
    twice = dataclasses.replace(second, auto_fix=first.auto_fix)
    problems = tidy.fix_problems([typo, twice], TRANSFORMS)
    assert problems[0].startswith(f"entries/{first.id}: [auto_fix] transform 'no-such-transform' is not one of")
    assert any(p.startswith(f"entries/{second.id}: [auto_fix] '{first.auto_fix.id}' on ") for p in problems[1:])
