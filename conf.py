"""Sphinx configuration for the exportkb site (English sources; Korean and Chinese catalogues).

Build it with `python -m kb.site`, which first assembles the sources in site/generated/
from site/pages/ and kb.db, then runs sphinx-build once per language with
`-D language=<lang>`. The paths below are absolute, because Sphinx resolves some of them against the
source dir and others against this file.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # kb.site.sphinx_ext, also when the package is not installed

project = "exportkb"
author = "exportkb contributors"
copyright = "exportkb contributors"
language = "en"
root_doc = "index"

extensions = [
    "sphinx_design",
    "sphinx_copybutton",
    "kb.site.sphinx_ext",
]

# Absolute: the gettext builder looks for templates relative to the source dir, the
# HTML builder relative to this file; an absolute path means the same to both.
templates_path = [str(ROOT / "site" / "templates" / "html")]
html_static_path = [str(ROOT / "site" / "static")]
html_css_files = ["kb.css"]

# --- Translation ---------------------------------------------------------------
locale_dirs = [str(ROOT / "site" / "locale")]
# Documents under entries/ share one catalogue (entries.po), so a sentence that every
# entry page uses ("Cause", "Fix", the status words) is translated once. Top-level
# pages each get their own.
gettext_compact = True
gettext_uuid = False
gettext_location = True
# Code, error text and raw HTML stay out of the catalogues: only the default targets.
gettext_additional_targets: list[str] = []

# --- HTML ----------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "exportkb"
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_theme_options = {
    "navbar_end": ["kb-language-switcher.html", "theme-switcher"],
    "navbar_persistent": ["search-button"],
    "header_links_before_dropdown": 5,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["kb-footer.html"],
    "footer_center": [],
    "footer_end": [],
    "show_prev_next": False,
    "icon_links": [],
    "navigation_with_keys": False,
}
# Pages without sub-pages get no left sidebar rather than an empty one.
html_sidebars = {"**": ["sidebar-nav-bs"], "index": [], "find-an-error": [], "corpus/index": []}

copybutton_exclude = ".linenos, .gp"
pygments_style = "sphinx"
