"""TF-IDF similarity between an error text and many documents, through an inverted index.

Each document is an error text observed for an entry (or the literal text of one of its
patterns, or a labelled train report). A query is scored against the documents that
share one of its informative words, not against all of them, so the cost of a query
grows with the overlap rather than with the size of the catalogue: a word found in
more than MAX_DF_SHARE of the documents ("error", "torch") only adds to documents that
a rarer word already brought in.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterable, Sequence

from .normalize import normalize

HEAD_LINES = 8
HEAD_CHARS = 1200
MAX_DF_SHARE = 0.05
MIN_COMMON_DF = 50  # below this many documents no word counts as common
MAX_CANDIDATES = 400  # documents scored exactly per query, by their partial score

_TOKEN = re.compile(r"<\w{1,10}>|[a-z_][a-z0-9_]{1,60}")
_STOP = frozenset(
    "the a an and or of to in on for is are be was were it this that with as at by from "
    "not no if you your can will use using please see more set run".split()
)


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


def text_tokens(text: str) -> list[str]:
    """The tokens of an exception's head, after masking what varies between runs."""
    return tokens(normalize(head(text)))


class SimIndex:
    """Documents owned by labels; `best(query)` gives each label its best cosine."""

    def __init__(self, owners: Sequence[str], docs: Sequence[list[str]]):
        self.owners = list(owners)
        self.n = len(docs)
        df = Counter(t for d in docs for t in set(d))
        self.idf = {t: math.log((self.n + 1) / (c + 1)) + 1.0 for t, c in df.items()}
        self.unseen_idf = math.log(self.n + 1) + 1.0
        self.vectors = [self.vector(d) for d in docs]
        common = max(MIN_COMMON_DF, int(MAX_DF_SHARE * self.n))
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for i, vec in enumerate(self.vectors):
            for t, w in vec.items():
                self.postings.setdefault(t, []).append((i, w))
        self.common = frozenset(t for t, p in self.postings.items() if len(p) > common)

    def vector(self, toks: Iterable[str]) -> dict[str, float]:
        counts = Counter(toks)
        vec = {t: (1.0 + math.log(c)) * self.idf.get(t, self.unseen_idf) for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    def best(self, toks: list[str]) -> dict[str, float]:
        """Each owner's highest cosine with the query (owners with no shared word are absent)."""
        qv = self.vector(toks)
        partial: dict[int, float] = {}
        for t, qw in qv.items():
            if t in self.common:
                continue
            for d, w in self.postings.get(t, ()):
                partial[d] = partial.get(d, 0.0) + qw * w
        if not partial:  # only common words: score the documents they bring, bounded
            for t in sorted((t for t in qv if t in self.postings), key=lambda t: -qv[t])[:3]:
                for d, _ in self.postings[t][:MAX_CANDIDATES]:
                    partial.setdefault(d, 0.0)
        candidates = sorted(partial, key=partial.__getitem__, reverse=True)[:MAX_CANDIDATES]
        # The exact cosine: the partial sum plus what the common words add.
        qcommon = [(t, qw) for t, qw in qv.items() if t in self.common]
        best: dict[str, float] = {}
        for d in candidates:
            dv = self.vectors[d]
            s = partial[d] + sum(qw * dv.get(t, 0.0) for t, qw in qcommon)
            owner = self.owners[d]
            if s > best.get(owner, 0.0):
                best[owner] = s
        return best
