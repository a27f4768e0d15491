"""Where the knowledge base's sources and build outputs live.

The sources are the repository's `entries/` and `observations/` folders. The root is
the checkout that holds this package (an editable install), or EXPORTKB_ROOT.
"""
from __future__ import annotations

import os
from pathlib import Path


def root() -> Path:
    env = os.environ.get("EXPORTKB_ROOT")
    return Path(env).resolve() if env else Path(__file__).resolve().parent.parent


def entries_dir() -> Path:
    return root() / "entries"


def observations_dir() -> Path:
    return root() / "observations"


def db_path() -> Path:
    env = os.environ.get("EXPORTKB_DB")
    return Path(env).resolve() if env else root() / "build" / "kb.db"


def build_dir() -> Path:
    """Sphinx's output: html/<lang>/, doctrees/, gettext/."""
    return root() / "_build"


def docs_dir() -> Path:
    """The built documentation site, one folder per language; `exportkb serve` mounts it."""
    return build_dir() / "html"


def base_url() -> str:
    """Where `exportkb serve` publishes the site; entry links in search results use it."""
    return os.environ.get("EXPORTKB_URL", "http://127.0.0.1:8001").rstrip("/")


def entry_url(entry_id: str, lang: str = "en") -> str:
    return f"{base_url()}/docs/{lang}/entries/{entry_id}.html"
