"""Turn whatever a user pastes (or a log file) into text the matcher can read.

Input can be empty, huge, binary or not UTF-8. None of that may crash the search: we
decode leniently, drop control characters, keep only the tail of very large inputs
(an export error sits at the end of a log), and report what we did.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# The tail we analyse. A 200-line traceback is ~20 KB; a CI log can be many MB, and its
# error is nearly always at the end.
MAX_INPUT_BYTES = 1_000_000

# Control characters other than tab/newline/ESC carry no meaning in an error text. ESC
# stays so that ANSI colour codes can be recognised and removed as whole sequences.
_DROP = {c: None for c in range(32) if c not in (9, 10, 13, 27)}
_DROP[127] = None


class EmptyInput(ValueError):
    """Raised when the input holds no text at all (empty, whitespace, or pure binary)."""


@dataclass
class InputText:
    text: str
    original_bytes: int
    truncated: bool = False
    binary_fraction: float = 0.0
    notes: list[str] = field(default_factory=list)


def read_input(data: bytes | str, limit: int = MAX_INPUT_BYTES, *, size: int | None = None) -> InputText:
    """`size`: the whole input's size in bytes, when `data` is already only its tail (the web
    form decodes just the end of a long paste)."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data)
    size = max(size or 0, len(raw))
    notes: list[str] = []
    truncated = size > limit
    if truncated:
        raw = raw[-limit:]
        # Start at a line boundary so the first line is not a fragment.
        cut = raw.find(b"\n")
        if 0 <= cut < len(raw) - 1:
            raw = raw[cut + 1 :]
        notes.append(
            f"input is {_human(size)}; analysed only its last {_human(len(raw))}, "
            "where an export error normally is"
        )
    text = raw.decode("utf-8", errors="replace")
    # Windows line endings and lone carriage returns (progress bars) become newlines.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    cleaned = text.translate(_DROP)
    junk = text.count("\ufffd") + (len(text) - len(cleaned))
    fraction = junk / max(len(text), 1)
    cleaned = cleaned.replace("\ufffd", "")
    if fraction > 0.05:
        notes.append(f"{fraction:.0%} of the input was not text (binary or invalid UTF-8); those bytes were ignored")
    if not cleaned.strip():
        if size == 0 or not text.strip():
            raise EmptyInput("no input: paste an error message, a traceback or a log")
        raise EmptyInput("the input contains no readable text (it looks like binary data)")
    return InputText(cleaned, size, truncated, fraction, notes)


def _human(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    if n >= 1_000:
        return f"{n / 1_000:.0f} KB"
    return f"{n} bytes"
