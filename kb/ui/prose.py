"""Entry prose (cause, fix) as HTML: Markdown written in this repository, raw HTML off.

Kept apart from the Datasette plugin so that the search workers (search_pool.py), which
render results without Datasette, use the same renderer as the pages."""
from __future__ import annotations

from markdown_it import MarkdownIt
from markupsafe import Markup

# CommonMark with raw HTML disabled: a `<script>` in an entry is shown as text, and
# markdown-it refuses javascript: links by itself.
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def markdown(text: str | None) -> Markup:
    return Markup(_MARKDOWN.render(text or ""))
