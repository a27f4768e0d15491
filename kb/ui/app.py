"""Build the Datasette app that `exportkb serve` runs and the tests drive.

One factory for both, so what the tests check is what users get: kb.db served
immutable, arbitrary SQL off, a SQL time limit, the exportkb plugin, and the Sphinx
site mounted under /docs/.
"""
from __future__ import annotations

from pathlib import Path

from datasette.app import Datasette
from datasette.plugins import pm

from kb import paths

from . import plugin
from .metadata import metadata

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
SETTINGS = {
    "sql_time_limit_ms": 1000,  # stored queries and table pages; arbitrary SQL is off
    "default_allow_sql": False,
    "max_returned_rows": 1000,
    "allow_download": False,  # the database is built from the repo; no need to hand out the file
    "default_facet_size": 20,
}


def make_datasette(db: Path | None = None, *, docs: Path | None = None) -> Datasette:
    if not pm.is_registered(plugin):
        pm.register(plugin, name="exportkb")
    db = Path(db or paths.db_path())
    docs = docs or paths.docs_dir()
    docs.mkdir(parents=True, exist_ok=True)
    return Datasette(
        immutables=[str(db)],
        metadata=metadata(),
        template_dir=str(TEMPLATES),
        static_mounts=[("docs", str(docs)), ("exportkb-static", str(STATIC))],
        settings=SETTINGS,
    )
