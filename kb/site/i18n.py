"""Translation coverage of the site's catalogues: what is translated, untranslated, fuzzy.

The reference is the current set of messages, the .pot files that `sphinx-build -b
gettext` writes from today's sources, not just the .po files: a message that was added
to the English pages but never merged into a .po counts as untranslated too. Without
a .pot directory, only the .po files themselves are counted.

Usage: python -m kb.site.i18n [--pot DIR] [--locale DIR] [--lang ko ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from babel.messages.pofile import read_po

from .. import paths
from .languages import TRANSLATED_LANGS


class TranslationIncomplete(RuntimeError):
    """A translated build was asked for while a catalogue has untranslated or fuzzy messages."""


@dataclass
class Coverage:
    lang: str
    total: int = 0
    translated: int = 0
    untranslated: int = 0  # includes `missing`
    fuzzy: int = 0
    missing: int = 0  # in the sources but not yet merged into the .po (run --update-po)
    # A few (catalogue, msgid) examples of what is missing, to say what to fix.
    examples: list[tuple[str, str]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.untranslated == 0 and self.fuzzy == 0

    def _note(self, domain: str, msgid: str) -> None:
        if len(self.examples) < 5:
            self.examples.append((domain, msgid))


def locale_dir() -> Path:
    return paths.root() / "site" / "locale"


def _read(path: Path):
    with path.open("rb") as fh:
        return read_po(fh)


def _msgid(message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def _translated(message) -> bool:
    strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
    return all(s and s.strip() for s in strings)


def _catalogues(base: Path, suffix: str) -> dict[str, Path]:
    """Domain (path without suffix, e.g. 'entries' or 'browse/tags') -> file."""
    return {str(p.relative_to(base).with_suffix("")): p for p in sorted(base.rglob(f"*{suffix}"))}


def coverage(lang: str, locale: Path | None = None, pot_dir: Path | None = None) -> Coverage:
    locale = Path(locale or locale_dir())
    po_dir = locale / lang / "LC_MESSAGES"
    pos = _catalogues(po_dir, ".po") if po_dir.is_dir() else {}
    cov = Coverage(lang)
    if pot_dir is None:
        wanted = {d: None for d in pos}
    else:
        wanted = {d: {_msgid(m) for m in _read(p) if _msgid(m)} for d, p in _catalogues(Path(pot_dir), ".pot").items()}
    for domain, msgids in sorted(wanted.items()):
        found = {}
        if domain in pos:
            found = {_msgid(m): m for m in _read(pos[domain]) if _msgid(m)}  # obsolete (#~) entries are not iterated
        for msgid in sorted(msgids if msgids is not None else found):
            cov.total += 1
            m = found.get(msgid)
            if m is not None and m.fuzzy:
                cov.fuzzy += 1
                cov._note(domain, msgid)
            elif m is not None and _translated(m):
                cov.translated += 1
            else:
                cov.untranslated += 1
                cov.missing += m is None
                cov._note(domain, msgid)
    return cov


def report(langs=TRANSLATED_LANGS, locale: Path | None = None, pot_dir: Path | None = None) -> dict[str, Coverage]:
    return {lang: coverage(lang, locale, pot_dir) for lang in langs}


def check(covs: dict[str, Coverage]) -> None:
    """Raise TranslationIncomplete unless every catalogue is fully translated and not fuzzy."""
    bad = [c for c in covs.values() if not c.complete]
    if not bad:
        return
    lines = []
    for c in bad:
        missing = f" ({c.missing} not yet in the .po files: run python -m kb.site --update-po)" if c.missing else ""
        lines.append(f"{c.lang}: {c.untranslated} untranslated{missing}, {c.fuzzy} fuzzy of {c.total} messages")
        lines.extend(f"    {domain}: {msgid[:100]!r}" for domain, msgid in c.examples)
    raise TranslationIncomplete(
        "translations incomplete (fill site/locale/<lang>/LC_MESSAGES/*.po; see docs/TRANSLATING.md):\n  "
        + "\n  ".join(lines)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kb.site.i18n", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pot", type=Path, help="directory of .pot files (from sphinx-build -b gettext)")
    ap.add_argument("--locale", type=Path, help="locale directory (default: site/locale)")
    ap.add_argument("--lang", action="append", help="language (repeatable; default: ko, zh_CN)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    covs = report(tuple(args.lang or TRANSLATED_LANGS), args.locale, args.pot)
    if args.json:
        print(json.dumps({k: {**asdict(v), "complete": v.complete} for k, v in covs.items()}, ensure_ascii=False))
    else:
        for c in covs.values():
            print(f"{c.lang:6} {c.translated:5} translated  {c.untranslated:5} untranslated  {c.fuzzy:5} fuzzy"
                  f"  of {c.total}  {'ok' if c.complete else 'INCOMPLETE'}")
    return 0 if all(c.complete for c in covs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
