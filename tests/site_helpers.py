"""Helpers for the site tests: the session's site build (conftest.py's fixtures), pseudo-translated catalogues.

The site is built once per test run, in en, ko and zh_CN, from the current sources and
the committed catalogues merged with them (.pot -> sphinx-intl update in a temporary
directory), so it never lags behind an entry that was just added. When those catalogues
are complete, as they must be on main (`exportkb serve` refuses an incomplete one), that
build is also the committed-catalogue build. While a branch has messages that nobody has
translated yet, every message is pseudo-translated instead (the English text behind a
marker), which still exercises the whole pipeline, including that translated RST parses
(-W), without pretending to be a translation; the committed-catalogue tests then say
that the catalogues are incomplete.

Everything is built under pytest's temporary directory: the repository's _build/ and
site/locale/ are never written, so the tests can run while someone else builds the site.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from babel.messages.pofile import read_po, write_po

REPO = Path(__file__).resolve().parent.parent
LANGS = ("en", "ko", "zh_CN")

# Markers that read as the language and that jieba segments into words.
MARKERS = {"ko": "(한국어 번역) ", "zh_CN": "(中文译文) "}


def pseudo_translate(src: Path, dst: Path, langs=("ko", "zh_CN")) -> Path:
    """Copy the catalogues under `src` to `dst`, with every message translated."""
    for lang in langs:
        for po in sorted((src / lang / "LC_MESSAGES").rglob("*.po")):
            target = dst / po.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as fh:
                cat = read_po(fh)
            for m in cat:
                if m.id:
                    m.string = MARKERS[lang] + m.id
                    m.flags.discard("fuzzy")
            with target.open("wb") as fh:
                write_po(fh, cat, width=76)
    return dst


def set_message(po: Path, msgid: str, msgstr: str, *, fuzzy: bool = False) -> None:
    """Rewrite one message of a catalogue (to break it on purpose)."""
    with po.open("rb") as fh:
        cat = read_po(fh)
    m = cat[msgid]
    m.string = msgstr
    if fuzzy:
        m.flags.add("fuzzy")
    with po.open("wb") as fh:
        write_po(fh, cat, width=76)


def copy_locale(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.mo"))
    return dst


def add_corpus_observations(db: Path) -> None:
    """Insert a small made-up corpus into a copy of kb.db: two releases, three models."""
    import sqlite3

    rows = [
        # model, exporter, outcome, matched_entry, signature, torch
        ("bert-tiny", "export", "ok", None, None, "2.13.0+cpu"),
        ("bert-tiny", "onnx", "ok", None, None, "2.13.0+cpu"),
        ("whisper-tiny", "export", "fail", "cache-output-not-pytree", "RuntimeError: Found <q> in output", "2.13.0+cpu"),
        ("whisper-tiny", "export", "fail", "cache-output-not-pytree", "RuntimeError: Found <q> in output", "2.13.0+cpu"),
        ("whisper-tiny", "onnx", "fail", None, "torch.onnx._internal.exporter.errors: something *new*_ `odd`", "2.13.0+cpu"),
        ("vit-tiny", "jit-trace", "timeout", None, None, "2.13.0+cpu"),
        ("vit-tiny", "export", "ok", None, None, "2.12.0+cpu"),
    ]
    conn = sqlite3.connect(db)
    with conn:
        for i, (model, exporter, outcome, entry, sig, torch) in enumerate(rows):
            conn.execute(
                "insert into observations (key, source, model, exporter, stage, outcome, matched_entry, signature, torch)"
                " values (?, 'corpus', ?, ?, 'capture', ?, ?, ?, ?)",
                (f"synthetic{i}", model, exporter, outcome, entry, sig, torch),
            )
    conn.close()


@dataclass
class SiteBuild:
    base: Path
    src: Path
    out: Path  # <out>/html/<lang>/, <out>/gettext/
    locale: Path  # the catalogues it was built with: complete, pseudo-translated if `pseudo`
    result: dict
    real_coverage: dict  # lang -> site_i18n.Coverage of the committed catalogues
    pseudo: bool  # True when the committed catalogues were incomplete and markers stand in

    @property
    def html(self) -> Path:
        return self.out / "html"

    @property
    def pot(self) -> Path:
        return self.out / "gettext"

    @property
    def committed(self) -> Path | None:
        """The html root built with the committed catalogues, or None while they are incomplete."""
        return None if self.pseudo else self.html


def build_for_tests(tmp_path_factory) -> SiteBuild:
    """Build en, ko and zh_CN with complete catalogues and -W (conftest.py's session fixture site_build)."""
    from kb.site import builder as site, i18n as site_i18n

    base = tmp_path_factory.mktemp("site")
    src, out = base / "src", base / "out"
    locale = copy_locale(REPO / "site" / "locale", base / "locale")
    site.update_po(locale=locale, out=out, src=src)  # the catalogues as of today's sources
    real = site_i18n.report(site_i18n.TRANSLATED_LANGS, REPO / "site" / "locale", out / "gettext")
    pseudo = not all(c.complete for c in real.values())
    if pseudo:
        pseudo_translate(locale, locale)
    result = site.build_site(LANGS, locale=locale, out=out, src=src, db=None)
    return SiteBuild(base, src, out, locale, result, real, pseudo)


def translated_text(html: str, lang: str) -> int:
    """How many characters of `html` are in the script of `lang` (Hangul, or CJK ideographs)."""
    import re

    return len(re.findall("[\uac00-\ud7a3]" if lang == "ko" else "[\u4e00-\u9fff]", html))


def coverage_summary(covs: dict) -> str:
    return "; ".join(f"{c.lang}: {c.untranslated} untranslated ({c.missing} not merged), {c.fuzzy} fuzzy "
                     f"of {c.total}" for c in covs.values())
