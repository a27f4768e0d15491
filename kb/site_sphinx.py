"""Sphinx extension for the exportkb site: what to translate, and the language switcher.

Loaded from conf.py. It does three things:

* It keeps data out of the translation catalogues. A paragraph, title or table cell
  whose only content is inline literals, cross-references without their own text,
  identifier-like links or substitutions (an exporter id, a torch version, a count)
  has nothing to translate. If it were extracted, every new observation would add a
  message, and the translated builds, which must be 100% translated, would break for a
  reason no translator can fix.
* It gives every page the links to the same page in the other languages, for the
  `kb-language-switcher.html` template.
* It pins the search language: jieba segmentation for Chinese, and an explicit choice
  for Korean, which Sphinx has no search support for.
"""
from __future__ import annotations

import re

from docutils import nodes
from docutils.transforms import Transform
from sphinx import addnodes
from sphinx.util.nodes import IGNORED_NODES

LANGUAGES = (("en", "English"), ("ko", "한국어"), ("zh_CN", "简体中文"))
# Korean has no Sphinx search language. English splits words at spaces and punctuation
# and leaves Hangul unchanged; what that can and cannot find is stated on the site's
# search page (find-an-error.rst).
SEARCH_LANGUAGE = {"en": "en", "ko": "en", "zh_CN": "zh"}
_LETTER = re.compile(r"[^\W\d_]")


def has_prose(node: nodes.Element) -> bool:
    """Whether anything in `node` is natural-language text a translator should see."""
    for child in node.children:
        if isinstance(child, nodes.Text):
            if _LETTER.search(str(child)):
                return True
        elif isinstance(child, (nodes.literal, nodes.substitution_reference, nodes.image, nodes.raw, nodes.math)):
            continue
        elif isinstance(child, addnodes.pending_xref):
            # :doc:`x` and :ref:`x` without their own text show the target's title, which is
            # translated on the target page.
            if child.get("refexplicit") and has_prose(child):
                return True
        elif isinstance(child, nodes.reference):
            text = child.astext().strip()
            # A bare URL, or an identifier such as GB0170 or pytorch/pytorch#123.
            if text == child.get("refuri") or not re.search(r"\s", text):
                continue
            return True
        elif isinstance(child, nodes.Element) and has_prose(child):
            return True
    return False


class KeepDataUntranslated(Transform):
    """Mark text elements that hold only data as not translatable.

    Runs before Sphinx's own i18n transforms (priority 10 and 20), so both the gettext
    builder and the translated builds see the mark.
    """

    default_priority = 5

    def apply(self, **kwargs) -> None:
        for node in self.document.findall(nodes.TextElement):
            if isinstance(node, (nodes.Inline, *IGNORED_NODES)) or "translatable" in node:
                continue
            if not has_prose(node):
                node["translatable"] = False


def language_links(pagename: str, current: str) -> list[dict]:
    """Relative links to `pagename` in every language: the site is served under any prefix."""
    up = "../" * (pagename.count("/") + 1)
    return [
        {"code": code, "name": name, "href": f"{up}{code}/{pagename}.html", "current": code == current}
        for code, name in LANGUAGES
    ]


def _page_context(app, pagename, templatename, context, doctree) -> None:
    context["kb_languages"] = language_links(pagename, app.config.language or "en")


def _config_inited(app, config) -> None:
    lang = config.language or "en"
    if lang in SEARCH_LANGUAGE:
        config.html_search_language = SEARCH_LANGUAGE[lang]


def setup(app):
    app.add_transform(KeepDataUntranslated)
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
