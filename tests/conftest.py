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


def once_per_run(tmp_path_factory, name: str, make):
    """`make()`'s value, made once for the whole test run even under pytest-xdist.

    Each xdist worker has its own session, so a session fixture would be made once per
    worker; the site builds take minutes. The first worker to ask makes the value under a
    lock in the directory the workers share and pickles it; the others read it. The value
    only holds paths and plain data, and the files behind them stay until the run ends."""
    import os
    import pickle

    from filelock import FileLock

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make()
    shared = tmp_path_factory.getbasetemp().parent
    with FileLock(str(shared / f"{name}.lock")):
        stored = shared / f"{name}.pickle"
        if stored.is_file():
            return pickle.loads(stored.read_bytes())
        value = make()
        stored.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture(scope="session")
def site_build(tmp_path_factory):
    """The documentation site in en, ko and zh_CN, built once per run with -W from the
    committed catalogues, or from pseudo-translated ones while those are incomplete
    (tests/site_helpers.py). Tests read it; a test that needs to change a catalogue or a
    page copies it first."""
    from site_helpers import build_for_tests

    return once_per_run(tmp_path_factory, "site-build", lambda: build_for_tests(tmp_path_factory))


@pytest.fixture(scope="session")
def committed_site(site_build):
    """The site's html/ built with the committed catalogues, once they are complete; else None."""
    return site_build.committed


@pytest.fixture(scope="session")
def ds(kb_db):
    """The Datasette app `exportkb serve` runs, over the repository's kb.db, started."""
    import asyncio

    from kb.ui.app import make_datasette

    datasette = make_datasette(kb_db)
    asyncio.run(datasette.invoke_startup())
    return datasette
