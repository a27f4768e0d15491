"""The one matcher: it answers a user's search and classifies collected tracebacks.

Given any text, it finds the exceptions in it (`extract`), then ranks entries by two
kinds of evidence:

* declared patterns: an entry's RE2 expressions searched in each exception's text;
* similarity: TF-IDF cosine between each exception's normalised head and the error
  texts actually observed for the entry (plus its patterns' literal text).

A pattern hit is strong evidence; similarity orders hits and catches wordings no
pattern anticipated. Below CONFIDENT the matcher reports "no confident match" instead
of guessing.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import re2

from .extract import ExceptionBlock, extract
from .normalize import clean, normalize
from .textin import InputText, read_input

CONFIDENT = 0.5
PATTERN_BASE = 0.6  # score of a pattern hit before similarity is added
SIMILARITY_ONLY = 0.85  # a similarity-only match is capped below a perfect pattern hit
# A pattern that hits only an earlier exception of the input (a chained cause, or an
# earlier error in a log) counts for less than one that hits the exception raised last,
# and ranks below every entry whose pattern names that raised exception: inspect's bare
# "could not get source code" sits under many more specific errors.
CAUSE_ONLY = 0.9
HEAD_LINES = 8
HEAD_CHARS = 1200

_TOKEN = re.compile(r"<\w{1,10}>|[a-z_][a-z0-9_]{1,60}")
_STOP = frozenset(
    "the a an and or of to in on for is are be was were it this that with as at by from "
    "not no if you your can will use using please see more set run".split()
)
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


def head(text: str) -> str:
    """The distinguishing start of an exception: its first lines, bounded in size."""
    lines = [ln for ln in text.split("\n") if ln.strip()][:HEAD_LINES]
    return "\n".join(lines)[:HEAD_CHARS]


def tokens(normalized: str) -> list[str]:
    """Words and word pairs. A mask placeholder (`<n>`, `<q>`, `<path>`...) counts only
    next to a real word ("opset <n>"): on its own it says nothing, and a text full of
    numbers (a tensor's repr in a message) would otherwise resemble any run of digits."""
    words = [w for w in _TOKEN.findall(normalized.lower()) if w not in _STOP]
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:]) if not (a[0] == "<" and b[0] == "<")]
    return [w for w in words if w[0] != "<"] + pairs


def pattern_literal(pattern: str) -> str:
    """Readable text of a regex, as a similarity document: `\\d+` becomes a number, etc."""
    text = re.sub(r"\\d[+*]?|\[\\d\][+*]?", "0", pattern)
    text = re.sub(r"\\[sSwW][+*?]?|\.\*\??|\.\+\??|\[\^?[^\]]*\][+*?]?|\(\?[:i]|[()|^$?*+{}]", " ", text)
    return text.replace("\\", "")


class _Index:
    """TF-IDF vectors over a small, fixed corpus of documents."""

    def __init__(self, docs: Sequence[list[str]]):
        self.n = len(docs)
        df = Counter(t for d in docs for t in set(d))
        self.idf = {t: math.log((self.n + 1) / (c + 1)) + 1.0 for t, c in df.items()}
        self.unseen_idf = math.log(self.n + 1) + 1.0
        self.vectors = [self.vector(d) for d in docs]

    def vector(self, toks: Iterable[str]) -> dict[str, float]:
        counts = Counter(toks)
        vec = {t: (1.0 + math.log(c)) * self.idf.get(t, self.unseen_idf) for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    @staticmethod
    def cosine(a: dict[str, float], b: dict[str, float]) -> float:
        if len(a) > len(b):
            a, b = b, a
        return sum(v * b.get(t, 0.0) for t, v in a.items())


@dataclass(frozen=True)
class EntryRef:
    """What the matcher needs of an entry; built from the catalogue or from kb.db."""
    id: str
    title: str
    exporters: tuple[str, ...]
    patterns: tuple[str, ...]


@dataclass
class Match:
    id: str
    title: str
    score: float
    exporters: tuple[str, ...]
    pattern_hit: bool
    similarity: float
    evidence: str  # the exception text that gave the best evidence


@dataclass
class SearchResult:
    ranked: list[Match]  # every entry with any evidence, best first
    exceptions: list[ExceptionBlock]
    notes: list[str] = field(default_factory=list)

    @property
    def confident(self) -> list[Match]:
        return [m for m in self.ranked if m.score >= CONFIDENT]

    @property
    def best(self) -> Match | None:
        matches = self.confident
        return matches[0] if matches else None


class Matcher:
    def __init__(self, entries: Sequence[EntryRef], observed: dict[str, list[str]] | None = None):
        """`observed` maps entry id to error texts seen for it (cleaned, not normalised)."""
        self.entries = list(entries)
        self._patterns = {e.id: [re2.compile(p, _RE2_OPTIONS) for p in e.patterns] for e in self.entries}
        owners: list[str] = []
        docs: list[list[str]] = []
        for e in self.entries:
            texts = [pattern_literal(p) for p in e.patterns] + list((observed or {}).get(e.id, ()))
            for t in dict.fromkeys(texts):  # de-duplicate, keep order
                toks = tokens(normalize(head(t)))
                if toks:
                    owners.append(e.id)
                    docs.append(toks)
        self._index = _Index(docs)
        self._owners = owners

    # -- evidence -----------------------------------------------------------------
    def pattern_hits(self, entry_id: str, blocks: Sequence[ExceptionBlock]) -> ExceptionBlock | None:
        for block in blocks:
            text = block.text
            for p in self._patterns[entry_id]:
                if p.search(text):
                    return block
        return None

    def _similarities(self, blocks: Sequence[ExceptionBlock]) -> dict[str, tuple[float, ExceptionBlock]]:
        best: dict[str, tuple[float, ExceptionBlock]] = {}
        for block in blocks:
            qv = self._index.vector(tokens(normalize(head(block.text))))
            if not qv:
                continue
            for owner, dv in zip(self._owners, self._index.vectors):
                s = self._index.cosine(qv, dv)
                if s > best.get(owner, (0.0, block))[0]:
                    best[owner] = (s, block)
        return best

    # -- public API ---------------------------------------------------------------
    def rank_blocks(self, blocks: Sequence[ExceptionBlock]) -> list[Match]:
        sims = self._similarities(blocks)
        scored: list[tuple[Match, bool]] = []
        for e in self.entries:
            hit = self.pattern_hits(e.id, blocks)
            sim, sim_block = sims.get(e.id, (0.0, None))
            if hit is None and sim <= 0.0:
                continue
            score = PATTERN_BASE + (1 - PATTERN_BASE) * sim if hit is not None else SIMILARITY_ONLY * sim
            cause_only = hit is not None and hit is not blocks[-1] and self.pattern_hits(e.id, blocks[-1:]) is None
            evidence = (hit or sim_block).text
            scored.append((Match(e.id, e.title, score, e.exporters, hit is not None, round(sim, 4), evidence),
                           cause_only))
        named_raised = [m.score for m, cause_only in scored if m.pattern_hit and not cause_only]
        ranked = []
        for m, cause_only in scored:
            if cause_only:
                m.score = min(m.score, max(named_raised, default=1.0)) * CAUSE_ONLY
            m.score = round(m.score, 4)
            ranked.append(m)
        ranked.sort(key=lambda m: (-m.score, m.id))
        return ranked

    def search(self, data: bytes | str | InputText) -> SearchResult:
        """Rank entries for any pasted text. Raises textin.EmptyInput on empty input."""
        inp = data if isinstance(data, InputText) else read_input(data)
        blocks = extract(clean(inp.text), already_clean=True)
        return SearchResult(self.rank_blocks(blocks), blocks, list(inp.notes))
