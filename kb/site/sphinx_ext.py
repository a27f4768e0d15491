"""Sphinx extension for the exportkb site: what to translate, and the language switcher.

Loaded from conf.py. It:

* keeps data out of the translation catalogues. A paragraph, title or table cell
  whose only content is inline literals, cross-references without their own text,
  identifier-like links or substitutions (an exporter id, a torch version, a count)
  has nothing to translate. If it were extracted, every new observation would add a
  message, and the translated builds, which must be 100% translated, would break for a
  reason no translator can fix.
* gives every page the links to the same page in the other languages, for the
  `kb-language-switcher.html` template.
* pins the search language: jieba segmentation for Chinese (with a fix for Sphinx
  9.0's broken Chinese search script), and an explicit choice for Korean, which Sphinx
  has no search support for.
* turns inline markup that did not parse (a translation that glued a particle to
  ``literal``) into a warning, which -W makes a build failure.
* adds the theme's own interface strings ("On this page", "Back to top", ...) to the
  sphinx.pot that the gettext builder writes from our templates. pydata-sphinx-theme
  ships no Korean catalogue, so without this a Korean page would have English chrome.
  Our catalogue is looked up before the theme's, so the same words also follow the
  site's term table in Chinese.
"""
from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.transforms import Transform
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.nodes import IGNORED_NODES

from .languages import LANGUAGES

logger = logging.getLogger(__name__)

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
        for code, name in LANGUAGES.items()
    ]


def _page_context(app, pagename, templatename, context, doctree) -> None:
    context["kb_languages"] = language_links(pagename, app.config.language or "en")


def _config_inited(app, config) -> None:
    lang = config.language or "en"
    if lang in SEARCH_LANGUAGE:
        config.html_search_language = SEARCH_LANGUAGE[lang]
    if SEARCH_LANGUAGE.get(lang) == "zh":
        # Without a 'dict' option Sphinx loads jieba's default dictionary a second time,
        # as a user dictionary: several seconds per build for the same segmentation.
        config.html_search_options = {**(config.html_search_options or {}), "dict": ""}


def check_markup(app, doctree) -> None:
    """Warn (and so fail the -W build) where inline markup did not parse.

    docutils only recognises ``literal`` between spaces or punctuation. In a Korean or
    Chinese translation written without the escaped space (``x``\\ 를) it silently
    leaves the backticks in the text instead of warning; this makes the mistake loud.
    """
    for node in doctree.findall(nodes.Text):
        parent = node.parent
        if isinstance(parent, (nodes.literal, nodes.FixedTextElement, nodes.comment)):
            continue
        if "``" in node.astext() or re.search(r":(doc|ref):`", node.astext()):
            logger.warning("unparsed inline markup (a translated message needs '\\ ' next to ``literal``?): %r",
                           node.astext()[:120], location=parent)


def theme_pot() -> Path | None:
    try:
        import pydata_sphinx_theme
    except ImportError:
        return None
    pot = Path(pydata_sphinx_theme.__file__).parent / "locale" / "sphinx.pot"
    return pot if pot.is_file() else None


def merge_theme_messages(pot: Path, theme: Path) -> int:
    """Add the theme's messages to `pot` (our templates' sphinx.pot). Returns how many."""
    from babel.messages.pofile import read_po, write_po

    with pot.open("rb") as fh:
        ours = read_po(fh)
    with theme.open("rb") as fh:
        theirs = read_po(fh)
    added = 0
    for m in theirs:
        # Strings from the theme's own documentation (its own conf.py) never reach our pages.
        if m.id and m.id not in ours and any(path.startswith("src/") for path, _ in m.locations):
            ours.add(m.id, locations=[("pydata-sphinx-theme/" + path, line) for path, line in m.locations],
                     flags=m.flags - {"fuzzy"}, auto_comments=m.auto_comments)
            added += 1
    if added:
        with pot.open("wb") as fh:
            write_po(fh, ours, width=76)
    return added


def _build_finished(app, exception) -> None:
    if exception is not None or app.builder.name != "gettext":
        return
    theme = theme_pot()
    if theme is None:
        return
    pot = Path(app.outdir) / "sphinx.pot"
    if not pot.is_file():
        pot.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n', encoding="utf-8")
    merge_theme_messages(pot, theme)


def _chinese_search_language():
    """Sphinx's Chinese search language, with its browser-side stemmer named correctly.

    SearchChinese stems the Latin words in Chinese pages with the English Snowball
    stemmer, but Sphinx 9.0 names the JavaScript class after `language_name`, so
    language_data.js ends in `window.Stemmer = ChineseStemmer;`, which does not exist,
    and every search hangs on "Searching" (sphinx-doc/sphinx#14229, fixed upstream by
    deriving the name from the stemmer file). Naming the stemmer's language restores
    it; with the upstream fix the override changes nothing.
    """
    from sphinx.search.zh import SearchChinese

    class SearchChineseWithEnglishStemmer(SearchChinese):
        language_name = "English"

    return SearchChineseWithEnglishStemmer


def setup(app):
    app.add_search_language(_chinese_search_language())
    app.add_transform(KeepDataUntranslated)
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    app.connect("doctree-read", check_markup)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
