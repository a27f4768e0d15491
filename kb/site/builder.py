"""Build the documentation site: kb.db -> RST pages -> Sphinx, in English, Korean and Chinese.

    python -m kb.site [--lang en --lang ko ...] [--full] [--allow-untranslated]
    python -m kb.site --update-po      # regenerate .pot and merge into the ko/zh_CN .po files
    python -m kb.site --coverage       # translation coverage per language
    python -m kb.site --terms          # translations that stray from docs/TRANSLATING.md's term table

Output: _build/html/<lang>/ (doctrees in _build/doctrees/<lang>, catalogue templates in
_build/gettext). Every Sphinx run uses -W --keep-going, so any warning fails the build
after all of them have been reported. A Korean or Chinese build also fails when its
catalogue is not complete (untranslated or fuzzy messages): the coverage is checked
against .pot files made from the current sources before any translated page is built.

Each Sphinx run is its own process: Sphinx keeps per-language state in module globals,
and separate processes let English and the catalogue extraction, then Korean and
Chinese, run side by side. They are forked from one runner that imported Sphinx once
(kb.site.fork), because the imports cost more than an incremental build's work.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from .. import paths
from ..build import ensure_built
from . import data, fork, i18n, render, terms
from .languages import LANGS, TRANSLATED_LANGS


class SiteBuildError(RuntimeError):
    """sphinx-build failed; the message carries its warnings and errors."""


def _sphinx(builder: str, lang: str, src: Path, out: Path, doctrees: Path, *,
            locale: Path | None, full: bool) -> list[str]:
    cmd = [sys.executable, "-m", "sphinx", "build", "-b", builder, "-W", "--keep-going", "-q",
           "-c", str(paths.root()), "-d", str(doctrees), "-D", f"language={lang}"]
    if locale is not None:
        cmd += ["-D", f"locale_dirs={locale}"]
    if full:
        cmd += ["-E", "-a"]  # fresh environment, every page written
    return cmd + [str(src), str(out)]


class _Job:
    """One sphinx-build, run by a kb.site.fork runner; its output is collected on wait()."""

    def __init__(self, runner: fork.Runner, name: str, cmd: list[str]):
        self.runner, self.name, self.cmd = runner, name, cmd
        runner.start(name, cmd[3:])  # the arguments after `python -m sphinx`

    def wait(self) -> float:
        result = self.runner.wait(self.name)
        if result["returncode"] != 0:
            raise SiteBuildError(f"sphinx-build ({self.name}) failed with exit code {result['returncode']}:\n"
                                 f"{result['output'].strip()[-6000:]}")
        return result["seconds"]

    def settle(self) -> None:
        """Wait for the build without judging it."""
        self.runner.wait(self.name)


def _run(name: str, cmd: list[str]) -> float:
    """One sphinx-build on its own (for the commands that need just one)."""
    with fork.Runner(paths.root()) as runner:
        return _Job(runner, name, cmd).wait()


def render_sources(db: Path | None = None, src: Path | None = None) -> render.RenderReport:
    """Write the Sphinx sources that kb.db implies.

    Without `db`, the repository's kb.db is rebuilt first if any source changed; a
    database passed explicitly is used as it is (tests hand in prepared ones).
    """
    if db is None:
        db, _ = ensure_built()
    return render.render(data.load(Path(db)), src)


def build_site(langs=LANGS, *, incremental: bool = True, require_translations: bool = True,
               db: Path | None = None, locale: Path | None = None, out: Path | None = None,
               src: Path | None = None) -> dict:
    """Build the site for `langs` into <out>/html/<lang>/ (default out: _build/).

    Raises SiteBuildError when Sphinx reports any warning, and
    i18n.TranslationIncomplete when a translated language's catalogue is not
    complete (unless require_translations=False, which builds it with English left in
    place of the missing translations). Returns timings, page counts and coverage.
    `locale` (catalogue directory) and `src` (where the RST sources are assembled,
    default site/generated/) exist so that tests can build in isolation.
    """
    t0 = time.perf_counter()
    langs = tuple(dict.fromkeys(langs))
    unknown = set(langs) - set(LANGS)
    if unknown:
        raise ValueError(f"unknown language(s) {sorted(unknown)}; the site has {', '.join(LANGS)}")
    out = Path(out or paths.build_dir())
    src = Path(src or render.site_dir() / "generated")
    rendered = render_sources(db, src)
    result: dict = {"langs": list(langs), "incremental": incremental, "pages": rendered.pages,
                    "pages_written": len(rendered.written), "seconds": {"render": time.perf_counter() - t0},
                    "html": {}, "coverage": {}}
    full = not incremental

    with fork.Runner(paths.root()) as runner:
        _build_all(runner, langs, result, out=out, src=src, locale=locale, full=full,
                   require_translations=require_translations)
    result["seconds"]["total"] = time.perf_counter() - t0
    return result


def _build_all(runner, langs, result: dict, *, out: Path, src: Path, locale: Path | None, full: bool,
               require_translations: bool) -> None:
    """English and the catalogue extraction side by side, then the translated languages."""
    def html(lang: str) -> _Job:
        result["html"][lang] = str(out / "html" / lang)
        return _Job(runner, lang, _sphinx("html", lang, src, out / "html" / lang, out / "doctrees" / lang,
                                          locale=locale, full=full))

    translated = [lang for lang in langs if lang != "en"]
    runs = [html("en")] if "en" in langs else []
    if translated:
        gettext = _Job(runner, "gettext", _sphinx("gettext", "en", src, out / "gettext",
                                                  out / "doctrees" / "gettext", locale=None, full=full))
        try:
            result["seconds"]["gettext"] = gettext.wait()
            covs = i18n.report(translated, locale, out / "gettext")
            result["coverage"] = {k: {"total": c.total, "translated": c.translated, "untranslated": c.untranslated,
                                      "missing": c.missing, "fuzzy": c.fuzzy} for k, c in covs.items()}
            if require_translations:
                i18n.check(covs)
        except BaseException:
            for r in runs:  # let the English build finish, so its pages are still fresh
                r.settle()
            raise
        runs += [html(lang) for lang in translated]
    errors = []
    for r in runs:
        try:
            result["seconds"][r.name] = r.wait()
        except SiteBuildError as exc:
            errors.append(str(exc))
    if errors:
        raise SiteBuildError("\n\n".join(errors))


def extract_messages(*, out: Path | None = None, src: Path | None = None, db: Path | None = None) -> Path:
    """Write the .pot files for the current sources into <out>/gettext and return that path."""
    out = Path(out or paths.build_dir())
    src = Path(src or render.site_dir() / "generated")
    render_sources(db, src)
    pot = out / "gettext"
    _run("gettext", _sphinx("gettext", "en", src, pot, out / "doctrees" / "gettext", locale=None, full=False))
    return pot


def update_po(langs=TRANSLATED_LANGS, *, locale: Path | None = None, out: Path | None = None,
              src: Path | None = None) -> dict:
    """Regenerate the .pot files and merge them into site/locale/<lang>/LC_MESSAGES/*.po.

    Changed English messages come back fuzzy (with the old translation as a hint), new
    ones empty; both fail the translated builds until a translator has looked at them.
    """
    locale = Path(locale or i18n.locale_dir())
    pot = extract_messages(out=out, src=src)
    cmd = [sys.executable, "-m", "sphinx_intl", "update", "-p", str(pot), "-d", str(locale)]
    for lang in langs:
        cmd += ["-l", lang]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=paths.root())
    if proc.returncode != 0:
        raise SiteBuildError(f"sphinx-intl update failed:\n{proc.stdout}{proc.stderr}")
    for lang in langs:
        for po in (locale / lang / "LC_MESSAGES").rglob("*.po"):
            _tidy(po)
    return {lang: i18n.coverage(lang, locale, pot).__dict__ for lang in langs}


def _tidy(po: Path) -> None:
    """Remove what sphinx-intl leaves behind that is no use to a translator.

    * The '#, fuzzy' mark on a new catalogue's header, a template leftover that tools
      such as msgfmt --statistics would count.
    * Obsolete (#~) messages that were never translated: they hold no work to reuse.
      Obsolete messages with a translation stay, as hints for reworded sentences.
    """
    from babel.messages.pofile import read_po, write_po

    with po.open("rb") as fh:
        cat = read_po(fh)
    dropped = [k for k, m in cat.obsolete.items() if not m.string]
    text = po.read_text(encoding="utf-8")
    header_fuzzy = "#, fuzzy\n" in text.partition('msgid ""\n')[0]
    if not dropped and not header_fuzzy:
        return
    for k in dropped:
        del cat.obsolete[k]
    cat.fuzzy = False
    with po.open("wb") as fh:
        write_po(fh, cat, width=76)  # the width sphinx-intl writes with


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kb.site", description="Build the exportkb documentation site.")
    ap.add_argument("--lang", action="append", choices=LANGS, help="language to build (repeatable; default: all)")
    ap.add_argument("--full", action="store_true", help="rebuild every page from a fresh environment")
    ap.add_argument("--allow-untranslated", action="store_true",
                    help="build ko/zh_CN even with untranslated messages (English shows in their place)")
    ap.add_argument("--update-po", action="store_true", help="regenerate .pot and update the ko/zh_CN .po files")
    ap.add_argument("--coverage", action="store_true", help="print translation coverage and exit")
    ap.add_argument("--terms", action="store_true",
                    help="list translated messages that do not use the term table's renderings, and exit")
    args = ap.parse_args(argv)
    if args.terms:
        found = terms.check(tuple(lang for lang in (args.lang or LANGS) if lang != "en"))
        for finding in found:
            print(finding)
        print(f"{len(found)} message(s) stray from the term table ({terms.table_path().name})")
        return 1 if found else 0
    try:
        if args.update_po:
            for lang, c in update_po().items():
                print(f"{lang}: {c['total']} messages, {c['translated']} translated, "
                      f"{c['untranslated']} untranslated, {c['fuzzy']} fuzzy")
            return 0
        if args.coverage:
            return i18n.main(["--pot", str(extract_messages())])
        result = build_site(tuple(args.lang or LANGS), incremental=not args.full,
                            require_translations=not args.allow_untranslated)
    except (SiteBuildError, i18n.TranslationIncomplete) as exc:
        print(f"site build failed: {exc}", file=sys.stderr)
        return 1
    secs = ", ".join(f"{k} {v:.1f}s" for k, v in result["seconds"].items())
    for lang, path in result["html"].items():
        print(f"{lang}: {path}/index.html")
    print(f"{result['pages']} pages ({result['pages_written']} rewritten); {secs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
