import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "entries" / "static-batch-size"
# The torch release the project pins (constraints.txt): where `exportkb check` holds.
PINNED_TORCH = next(line.split("==", 1)[1].strip() for line in (REPO / "constraints.txt").read_text().splitlines()
                    if line.startswith("torch=="))


@pytest.fixture
def kb_root(tmp_path, monkeypatch):
    """An isolated knowledge-base root holding a copy of the example entry."""
    root = tmp_path / "kbroot"
    (root / "entries").mkdir(parents=True)
    (root / "observations").mkdir()
    shutil.copytree(EXAMPLE, root / "entries" / EXAMPLE.name)
    monkeypatch.setenv("EXPORTKB_ROOT", str(root))
    monkeypatch.delenv("EXPORTKB_DB", raising=False)
    return root


@pytest.fixture(scope="session")
def kb_db() -> Path:
    """The repository's kb.db, built if stale."""
    from kb.build import ensure_built

    db, _ = ensure_built()
    return db


@pytest.fixture(scope="session")
def repo_matcher(kb_db):
    """The matcher over the repository's kb.db."""
    from kb.build import load_matcher

    return load_matcher(kb_db)
