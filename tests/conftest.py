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


@pytest.fixture(scope="session")
def site_build(tmp_path_factory):
    """The documentation site in en, ko and zh_CN, built once per session from complete
    pseudo-translated catalogues with -W (tests/site_helpers.py)."""
    from site_helpers import build_pseudo_translated

    return build_pseudo_translated(tmp_path_factory)


@pytest.fixture(scope="session")
def committed_site(tmp_path_factory, site_build):
    """The site's html/ built with the committed catalogues, once they are complete; else None."""
    from site_helpers import build_with_committed_catalogues

    return build_with_committed_catalogues(tmp_path_factory, site_build)


@pytest.fixture(scope="session")
def ds(kb_db):
    """The Datasette app `exportkb serve` runs, over the repository's kb.db, started."""
    import asyncio

    from kb.ui.app import make_datasette

    datasette = make_datasette(kb_db)
    asyncio.run(datasette.invoke_startup())
    return datasette
