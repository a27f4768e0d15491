"""TF-IDF similarity between an error text and many documents, through an inverted index.

Each document is an error text observed for an entry (or the literal text of one of its
patterns, or a labelled train report). A query is scored only against the documents
that share its most telling words (the highest idf), not against all of them, so the
cost of a query is bounded whatever the size of the catalogue.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import Iterable, Sequence

from .normalize import normalize

HEAD_LINES = 8
HEAD_CHARS = 1200
RARE_TERMS = 12  # the query's most telling words that choose the candidates
MAX_POSTINGS = 500  # documents read per such word
MAX_CANDIDATES = 32  # documents scored exactly per query

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


_PROSE_WORD = re.compile(r"[a-z][a-z0-9]{2,40}")
_PROSE_STOP = _STOP | frozenset(
    "its has have had but which when where what how than then there their they them into onto "
    "only also does did done just like such these those each other any all some may might must "
    "should would could been being here why who whom while".split()
)


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def prose_tokens(text: str) -> list[str]:
    """Stemmed words, for comparing an error with an entry's prose rather than with other
    errors: the explanation says "tracing" where the error says "traced", and names an API
    (`register_fake`, `torch.jit.script`) by the parts an error also prints."""
    words = [w for w in _PROSE_WORD.findall(text.lower().replace("_", " ")) if w not in _PROSE_STOP]
    return [_stem(w) for w in words]


# The pure-Python stemmer costs more than the rest of a search's prose channel, and the
# words of error texts repeat from one paste to the next.
@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


class SimIndex:
    """Documents owned by labels; `best(query)` gives each label its best cosine."""

    def __init__(self, owners: Sequence[str], docs: Sequence[list[str]]):
        self.owners = list(owners)
        self.n = len(docs)
        df = Counter(t for d in docs for t in set(d))
        self.idf = {t: math.log((self.n + 1) / (c + 1)) + 1.0 for t, c in df.items()}
        self.unseen_idf = math.log(self.n + 1) + 1.0
        self.vectors = [self.vector(d) for d in docs]
        self.postings: dict[str, list[int]] = {}
        for i, vec in enumerate(self.vectors):
            for t in vec:
                self.postings.setdefault(t, []).append(i)

    def vector(self, toks: Iterable[str]) -> dict[str, float]:
        counts = Counter(toks)
        vec = {t: (1.0 + math.log(c)) * self.idf.get(t, self.unseen_idf) for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    def best(self, toks: list[str]) -> dict[str, float]:
        """Each owner's highest cosine with the query (owners with no shared word are absent).

        Candidates are the documents that share one of the query's RARE_TERMS most telling
        words (by idf), ranked by that overlap; only the best MAX_CANDIDATES get an exact
        cosine. The cost is bounded whatever the index's size."""
        qv = self.vector(toks)
        known = sorted((t for t in qv if t in self.postings), key=lambda t: -qv[t])[:RARE_TERMS]
        overlap: dict[int, float] = {}
        for t in known:
            w = qv[t]
            for d in self.postings[t][:MAX_POSTINGS]:
                overlap[d] = overlap.get(d, 0.0) + w
        candidates = sorted(overlap, key=overlap.__getitem__, reverse=True)[:MAX_CANDIDATES]
        best: dict[str, float] = {}
        get = qv.get
        for d in candidates:
            s = sum(w * get(t, 0.0) for t, w in self.vectors[d].items())
            owner = self.owners[d]
            if s > best.get(owner, 0.0):
                best[owner] = s
        return best
