"""Every entry's declared patterns, behind one literal prefilter: which of them name an exception.

The one home of the question "does this pattern, with its context, name an exception of
this text". The matcher asks it at each search (which entries' patterns hit, and how
much text they matched) and once at load (which patterns also name a text known for
another entry); the build asks it when it leaves a fold's own patterns out
(kb/build.py: fold_patterns).

A pattern names an exception when it matches the exception's text and, if it has a
context, the context matches the whole text the exception came from: a message other
causes raise too counts only next to, say, the frame's source line that tells them apart.
"""
from __future__ import annotations

from typing import Iterator, Sequence

import re2

from .extract import ExceptionBlock
from .prefilter import Prefilter

RE2_OPTIONS = re2.Options()
RE2_OPTIONS.log_errors = False


class PatternSet:
    """The patterns of `entries` (kb.matcher.EntryRef or kb.catalogue.Entry: `id`, `patterns`,
    `contexts`), numbered in catalogue order: pattern k belongs to `owners[k]`."""

    def __init__(self, entries: Sequence):
        self.owners: list[str] = []
        self._regex: list = []
        self._context: list = []
        sources: list[str] = []
        self._ranges: dict[str, range] = {}
        for e in entries:
            self._ranges[e.id] = range(len(self.owners), len(self.owners) + len(e.patterns))
            contexts = dict(e.contexts)
            for p in e.patterns:
                self.owners.append(e.id)
                sources.append(p)
                self._regex.append(re2.compile(p, RE2_OPTIONS))
                self._context.append(re2.compile(contexts[p], RE2_OPTIONS) if p in contexts else None)
        # One compiled expression per distinct context, for the texts a search reads.
        self.contexts = list({c.pattern: c for c in self._context if c is not None}.values())
        self._prefilter = Prefilter(sources)

    def __len__(self) -> int:
        return len(self.owners)

    def of(self, owner: str) -> range:
        """The numbers of `owner`'s patterns (an entry's patterns are numbered together)."""
        return self._ranges.get(owner, range(0))

    def naming(self, blocks: Sequence[ExceptionBlock], text: str | None = None,
               skip: set[int] | frozenset[int] = frozenset(),
               keep: range = range(0)) -> Iterator[tuple[int, int, int]]:
        """(pattern k, block index, length of the text it matched) for each pattern that names
        a block, block by block. `text` is the whole text the blocks came from, where
        contexts are looked for (default: the blocks joined); patterns in `skip` are not
        tried unless they are in `keep`."""
        whole = _Whole(blocks, text)
        for i, block in enumerate(blocks):
            raw = block.text.encode("utf-8")  # once per block: re2 would encode a str per pattern
            for k in self._prefilter.candidates(raw):
                if k in skip and k not in keep:
                    continue
                length = self._match(k, raw, whole)
                if length is not None:
                    yield k, i, length

    def first_named(self, owner: str, blocks: Sequence[ExceptionBlock],
                    text: str | None = None) -> ExceptionBlock | None:
        """The first block one of `owner`'s patterns names, or None. Only `owner`'s patterns
        are tried (the build asks this of every collected failure for its own entry)."""
        mine = self.of(owner)
        whole = _Whole(blocks, text)
        for block in blocks:
            raw = block.text.encode("utf-8")
            if any(k in mine and self._match(k, raw, whole) is not None for k in self._prefilter.candidates(raw)):
                return block
        return None

    def _match(self, k: int, raw: bytes, whole: _Whole) -> int | None:
        """The length of the text pattern k matched in `raw`, when it names it (with its
        context, looked for in `whole`); else None."""
        found = self._regex[k].search(raw)
        if found and (self._context[k] is None or whole.has(self._context[k])):
            return found.end() - found.start()
        return None

    def named(self, blocks: Sequence[ExceptionBlock], text: str | None = None) -> set[int]:
        """The patterns that name some block of the text."""
        return {k for k, _, _ in self.naming(blocks, text)}


class _Whole:
    """The text a pattern's context is looked for in, searched once per context expression."""

    def __init__(self, blocks: Sequence[ExceptionBlock], text: str | None):
        self._blocks, self._text, self._seen = blocks, text, {}

    def has(self, context) -> bool:
        if context.pattern not in self._seen:
            if self._text is None:
                self._text = "\n".join(b.text for b in self._blocks)
            self._seen[context.pattern] = context.search(self._text) is not None
        return self._seen[context.pattern]
