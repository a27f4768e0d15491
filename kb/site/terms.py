"""One vocabulary per language: translated messages checked against the term table.

`docs/TRANSLATING.md` holds the term table (English | Korean | Chinese). A message whose
English prose uses a table term must use that term's rendering in its translation; a
Korean page that says 트레이스 in one paragraph and 추적 in the next reads as two ideas.

Only prose counts: inline literals, roles, links' targets and substitutions are removed
from both sides first, so ``torch.jit.trace`` does not ask for 추적; so are code written
as plain words and quoted text (an error message) on the English side. Korean attaches
particles and endings to a stem, and conjugation changes the last syllable (내보내기,
내보낸, 내보냅니다), so a one-word Korean rendering of three syllables or more matches by
its first two.

Where the English uses a table word in another sense (a lock "guards" a counter, a
convolution's "kernel"), the translator adds the comment `# terms-ok: guard` above
the message in the .po file.

Usage: python -m kb.site --terms [--lang ko ...]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from babel.messages.pofile import read_po

from .. import paths
from .languages import TRANSLATED_LANGS

# Column of each language in the table (after the English one).
_COLUMNS = {"ko": 1, "zh_CN": 2}
_MARKUP = re.compile(r"``.*?``|:\w+:`[^`]*`|`[^`<]*<[^>]*>`_{1,2}|\|[\w-]+\||https?://\S+")
_PARENS = re.compile(r"\([^)]*\)")
# Code written without markup: torch.export.export, strict=False, aten::add, max_len.
_CODE_WORD = re.compile(r"\S*\w(?:[._=(\[]|::|\\_)+\w\S*")
# Quoted text: an error message or a search word, which stays in English in every language.
_QUOTED = re.compile(r'"[^"\n]{1,300}"|“[^”\n]{1,300}”')
# A translator's comment "# terms-ok: guard, kernel" on a message: the English uses the
# word in another sense there (a lock guards a counter; a convolution's kernel).
_OK = re.compile(r"terms-ok:\s*(?P<terms>.+)")


@dataclass(frozen=True)
class Term:
    english: tuple[str, ...]  # the English words, each with its inflections matched
    renderings: dict[str, tuple[str, ...]]  # language -> accepted renderings

    @property
    def name(self) -> str:
        return self.english[0]


@dataclass(frozen=True)
class Finding:
    lang: str
    domain: str
    term: str
    msgid: str
    msgstr: str

    def __str__(self) -> str:
        wanted = " / ".join(TERMS_BY_NAME[self.term].renderings[self.lang]) if self.term in TERMS_BY_NAME else "?"
        return (f"{self.lang}/{self.domain}.po: '{self.term}' should be rendered {wanted}:\n"
                f"    msgid:  {_short(self.msgid)}\n    msgstr: {_short(self.msgstr)}")


def _short(text: str, n: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _split(cell: str) -> tuple[str, ...]:
    cell = _PARENS.sub("", cell).replace("`", "")
    return tuple(p.strip() for p in re.split(r"[/,]", cell) if p.strip())


def parse_table(markdown: str) -> list[Term]:
    """The rows of the table under the '## Term table' heading."""
    section = markdown.split("## Term table", 1)[-1].split("\n## ", 1)[0]
    terms = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0] or cells[0] == "English" or set(cells[0]) <= set("-: "):
            continue
        terms.append(Term(_split(cells[0]), {lang: _split(cells[col]) for lang, col in _COLUMNS.items()}))
    return terms


def table_path() -> Path:
    return paths.root() / "docs" / "TRANSLATING.md"


TERMS = parse_table(table_path().read_text(encoding="utf-8")) if table_path().exists() else []
TERMS_BY_NAME = {t.name: t for t in TERMS}


def _english_pattern(word: str) -> re.Pattern:
    stem = re.escape(word[:-1]) + "(?:e|es|ed|ing)" if word.endswith("e") else re.escape(word) + "(?:s|es|ed|ing)?"
    return re.compile(rf"\b(?:{stem}|{re.escape(word)})\b", re.IGNORECASE)


def _rendering_stem(rendering: str, lang: str) -> str:
    hangul = sum("\uac00" <= ch <= "\ud7a3" for ch in rendering)
    if lang == "ko" and hangul >= 3 and " " not in rendering:
        return rendering[:2]
    return rendering


def prose(text: str) -> str:
    """A message without its markup: the words a reader reads as prose."""
    return _MARKUP.sub(" ", text)


def english_prose(text: str) -> str:
    """An English message's prose, without code written as plain words (torch.export)."""
    return _CODE_WORD.sub(" ", _QUOTED.sub(" ", prose(text)))


def _waived(message) -> set[str]:
    return {t.strip() for c in message.user_comments if (m := _OK.search(c)) for t in m["terms"].split(",")}


def uses(term: Term, english: str) -> bool:
    return any(_english_pattern(w).search(english) for w in term.english)


def follows(term: Term, lang: str, translation: str) -> bool:
    text = translation.lower()
    return any(_rendering_stem(r, lang).lower() in text for r in term.renderings[lang])


def check_catalogue(lang: str, domain: str, po: Path, terms=None) -> list[Finding]:
    terms = TERMS if terms is None else terms
    out = []
    with po.open("rb") as f:
        catalogue = read_po(f)
    for m in catalogue:
        if not m.id or not m.string or m.fuzzy:
            continue
        msgid = m.id if isinstance(m.id, str) else m.id[0]
        msgstr = m.string if isinstance(m.string, str) else m.string[0]
        english, translation = english_prose(msgid), prose(msgstr)
        waived = _waived(m)
        for term in terms:
            if term.name in waived:
                continue
            if lang in term.renderings and uses(term, english) and not follows(term, lang, translation):
                out.append(Finding(lang, domain, term.name, msgid, msgstr))
    return out


def check(langs=TRANSLATED_LANGS, locale: Path | None = None, terms=None) -> list[Finding]:
    from .i18n import locale_dir
    locale = Path(locale or locale_dir())
    found = []
    for lang in langs:
        for po in sorted((locale / lang / "LC_MESSAGES").glob("*.po")):
            found += check_catalogue(lang, po.stem, po, terms)
    return found
