"""Helpers for the site tests: the session's site builds (conftest.py's fixtures), pseudo-translated catalogues.

The committed ko/zh_CN catalogues stay empty until translators fill them, so the tests
make their own complete catalogues: every msgstr is the English text behind a marker.
That exercises the whole pipeline, including that translated RST still parses (-W),
without pretending to be a translation. The catalogues are made from the current
sources (.pot -> sphinx-intl update in a temporary directory), so they never lag behind
an entry that was just added.

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
    locale: Path  # the complete (pseudo-translated) catalogues
    result: dict
    real_coverage: dict  # lang -> site_i18n.Coverage of the committed catalogues

    @property
    def html(self) -> Path:
        return self.out / "html"

    @property
    def pot(self) -> Path:
        return self.out / "gettext"


def build_pseudo_translated(tmp_path_factory) -> SiteBuild:
    """Build en, ko and zh_CN with complete catalogues and -W (conftest.py's session fixture site_build)."""
    from kb.site import builder as site, i18n as site_i18n

    base = tmp_path_factory.mktemp("site")
    src, out = base / "src", base / "out"
    locale = copy_locale(REPO / "site" / "locale", base / "locale")
    site.update_po(locale=locale, out=out, src=src)  # the catalogues as of today's sources
    pseudo_translate(locale, locale)
    result = site.build_site(LANGS, locale=locale, out=out, src=src, db=None)
    real = site_i18n.report(site_i18n.TRANSLATED_LANGS, REPO / "site" / "locale", out / "gettext")
    return SiteBuild(base, src, out, locale, result, real)


def build_with_committed_catalogues(tmp_path_factory, built: SiteBuild) -> Path | None:
    """The site built with the committed catalogues, once they are complete; else None.

    Only the translated languages are built again: the English pages read no catalogue,
    so the pseudo-translated build's English pages, built from the same sources, are
    linked in beside them (a third of a build saved on every test run)."""
    from kb.site import builder as site

    html = None
    if all(c.complete for c in built.real_coverage.values()):
        base = tmp_path_factory.mktemp("site-real")
        locale = copy_locale(REPO / "site" / "locale", base / "locale")
        translated = [lang for lang in LANGS if lang != "en"]
        site.build_site(translated, locale=locale, out=base / "out", src=built.src)
        html = base / "out" / "html"
        (html / "en").symlink_to(built.html / "en", target_is_directory=True)
    return html


def coverage_summary(covs: dict) -> str:
    return "; ".join(f"{c.lang}: {c.untranslated} untranslated ({c.missing} not merged), {c.fuzzy} fuzzy "
                     f"of {c.total}" for c in covs.values())
