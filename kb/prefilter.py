"""Run only the patterns whose required text occurs in the input.

Most error patterns contain a stretch of plain text that every match must contain
("is not in Core ATen opset", "Cannot insert a Tensor"). `required_literal` finds the
longest such stretch, conservatively: anything inside a group (alternations live there), any
pattern with an alternation outside a group, and anything under a quantifier that allows zero repeats is left out, and a pattern with no safe
stretch of MIN_LITERAL characters has none. A `re2.Set` of the literals (an automaton
over plain strings, small whatever their number) tells which literals a text holds;
only their patterns are then run. Patterns without a literal are always run.
"""
from __future__ import annotations

from typing import Sequence

import re2

MIN_LITERAL = 4
_ESCAPED_LITERAL = set(".()[]{}*+?^$|\\/-'\" :,<>=!#&%@~`;_")
_CLASS_ESCAPES = set("dDwWsSbBAzZ")
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 1 << 28


def _top_level_alternation(pattern: str) -> bool:
    """A `|` outside every group: then no part of the pattern is required."""
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def _skip_class(pattern: str, i: int) -> int:
    """The index after the character class that starts at pattern[i] == "["."""
    i += 1
    if pattern[i:i + 1] == "^":
        i += 1
    if pattern[i:i + 1] == "]":  # a "]" right after "[" or "[^" is a member
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def _skip_group(pattern: str, i: int) -> int:
    """The index after the group or class that starts at pattern[i]."""
    if pattern[i] == "[":
        return _skip_class(pattern, i)
    depth, i = 1, i + 1
    while i < len(pattern) and depth:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _skip_class(pattern, i)
            continue
        depth += c == "("
        depth -= c == ")"
        i += 1
    return i


def required_literal(pattern: str) -> str | None:
    """The longest plain text every match of `pattern` contains, or None."""
    if "(?i" in pattern or _top_level_alternation(pattern):
        return None
    runs: list[str] = []
    cur: list[str] = []
    i, n = 0, len(pattern)

    def end_run() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt in _CLASS_ESCAPES or nxt.isalnum():
                end_run()
                i += 2
                continue
            atom, i = nxt, i + 2
        elif c in "([":
            end_run()
            i = _skip_group(pattern, i)
            continue
        elif c in ".^$":
            end_run()
            i += 1
            continue
        elif c in "*+?{":
            # a quantifier on the previous atom: that atom may repeat or vanish
            if c in "*?" or (c == "{" and pattern[i + 1:i + 2] == "0"):
                if cur:
                    cur.pop()
            end_run()
            if c == "{":
                i = pattern.find("}", i) + 1 or n
            else:
                i += 1
            continue
        else:
            atom, i = c, i + 1
        # an atom followed by an optional quantifier is not required
        if i < n and (pattern[i] in "*?" or pattern[i:i + 2] == "{0"):
            end_run()
            continue
        cur.append(atom)
    end_run()
    best = max(runs, key=len, default="")
    return best if len(best) >= MIN_LITERAL else None


class Prefilter:
    """Which of `patterns` may match a text: those whose literal it holds, and those without one."""

    def __init__(self, patterns: Sequence[str]):
        self.always: list[int] = []
        by_literal: dict[str, list[int]] = {}
        for k, p in enumerate(patterns):
            lit = required_literal(p)
            if lit is None:
                self.always.append(k)
            else:
                by_literal.setdefault(lit, []).append(k)
        self.literals = list(by_literal)
        self.groups = [by_literal[lit] for lit in self.literals]
        self._set = re2.Set.SearchSet(_OPTIONS)
        for lit in self.literals:
            self._set.Add(re2.escape(lit))
        self._set.Compile()

    def candidates(self, text: str | bytes) -> list[int]:
        found = (self._set.Match(text) or []) if self.literals else []
        return self.always + [k for g in found for k in self.groups[g]]
