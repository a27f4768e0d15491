"""A search someone can send: the link form of a paste.

The server is served immutable and stores nothing, so a result link has to carry its
input. A one-line error goes in the address as it is (`/?q=...`). A traceback or a log
is reduced to what the matcher reads of it, the `excerpt`: the exceptions it weighs
(the last MAX_BLOCKS of distinct wording, matcher.bounded_blocks), the traceback
frames that name the exporter (kb/evidence.py), and the frames whose source lines confirm
a pattern's context (Matcher.context_lines). Re-extracting the excerpt gives the same
exceptions and the same exporter evidence as the whole paste, so the link answers what
the paste answered; `excerpt` says when that could not be kept (a link over its size
budget keeps the exceptions raised last). The excerpt is zlib-compressed into the
address (`/?z=...`): a 1 MB CI log becomes a link of a few kilobytes.
"""
from __future__ import annotations

import base64
import binascii
import zlib
from dataclasses import dataclass
from typing import Sequence
from urllib.parse import urlencode

from .evidence import exporter_family, family_frames, raising_frame
from .extract import LOG_KINDS, ExceptionBlock, extract
from .matcher import bounded_blocks, text_internal

BOUNDARY = "The above exception was the direct cause of the following exception:"
# One line, this short: readable in the address bar as it is.
MAX_PLAIN_QUERY = 500
# The compressed excerpt stays under this many characters, so that the whole request
# line fits the 16 KB that HTTP servers (uvicorn's h11 among them) accept by default.
MAX_TOKEN_CHARS = 8000
# A link's text never decompresses beyond this: a crafted token cannot inflate into a
# large allocation (12 exceptions of 4,000 characters and their frames fit easily).
MAX_EXCERPT_BYTES = 200_000
# Frames kept in an excerpt: enough for the exporter evidence, which only narrows.
MAX_FRAMES = 40


class BadLink(ValueError):
    """A `z` token that is not one this module wrote (cut short, edited, or not base64)."""


@dataclass(frozen=True)
class Excerpt:
    text: str
    exact: bool  # re-extracting it gives the paste's exceptions and exporter evidence


def _block_text(b: ExceptionBlock) -> str:
    if b.kind == "text":
        return b.message
    if b.kind == "warning":
        # As warnings.warn prints it, so that it is read back as a warning, not raised.
        return f"<warning>:1: {b.type}: {b.message}"
    if b.kind == "compiler":
        # As a compiler prints it (file:line:col: error: ...), so that it is read back as one.
        return f"<compiler>:1:1: {b.message}"
    if b.kind == "native":
        # As ExecuTorch's runtime logs it ("[file.cpp:line] message"), so that it is read back
        # as one whatever form gave it: a bare "Check failed ..." is not a log line.
        return f"[runtime.cpp:1] {b.message}"
    if b.kind == "log":
        return b.message  # "Ran into the following error when deserializing: ...": read back as one
    return b.text


def _family_frames(text: str) -> list[str]:
    """The frame lines that carry exporter evidence, without consecutive repeats of a family
    (the evidence only narrows from one family to the next, so a repeat adds nothing)."""
    lines, last = [], None
    for line, family in family_frames(text):
        if family != last:
            lines.append(line)
            last = family
    return lines[-MAX_FRAMES:]


def _compose(frames: list[str], blocks: list[ExceptionBlock]) -> str:
    parts = []
    if frames:
        parts.append("Traceback (most recent call last):\n" + "\n".join(f"  {f}" for f in frames))
    parts += [_block_text(b) for b in blocks]
    return f"\n\n{BOUNDARY}\n\n".join(parts)


def excerpt(text: str, keep: Sequence[str] = ()) -> Excerpt:
    """What a link carries of `text` (already cleaned, as the matcher reads it). `keep`
    lists frames (each with its source line) the matcher also reads: the lines that
    confirm a pattern's context (Matcher.context_lines)."""
    blocks = original = bounded_blocks(extract(text, already_clean=True))
    # With no exception line anywhere the matcher read the text's tail, frames and all
    # (and the compiler errors in it, which that tail gives back when read again).
    tail_only = all(b.kind == "text" or b.kind in LOG_KINDS for b in blocks)
    if tail_only:
        blocks = [b for b in blocks if b.kind == "text"] or blocks
    frames = [] if tail_only else _family_frames(text)
    # The frame that raised says whether the failure has the shape of an exporter's own
    # bug (evidence.internal_error_shape), so the excerpt keeps it too.
    raised_in = None if tail_only else raising_frame(text)
    if raised_in and (not frames or frames[-1] != raised_in):
        frames = [*frames, raised_in]
    if not tail_only:
        frames = [*keep, *frames]
    composed = _compose(frames, blocks)
    while len(encode(composed)) > MAX_TOKEN_CHARS and (len(blocks) > 1 or len(frames) > 1):
        # Over budget: keep the exceptions raised last, which carry most of the evidence.
        if len(blocks) > 1:
            blocks = blocks[1:]
        else:
            frames = frames[len(frames) // 2:]
        composed = _compose(frames, blocks)
    while len(encode(composed)) > MAX_TOKEN_CHARS:
        composed = composed[len(composed) // 4:]  # one long exception that does not compress (CJK text, say)
    kept = bounded_blocks(extract(composed, already_clean=True))
    exact = (kept == original and exporter_family(composed) == exporter_family(text)
             and text_internal(composed, kept) == text_internal(text, original)
             and all(line in composed for line in keep))
    return Excerpt(composed, exact)


def encode(text: str) -> str:
    raw = zlib.compress(text.encode("utf-8", "surrogatepass"), 9)
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode(token: str) -> str:
    if not token or len(token) > MAX_TOKEN_CHARS * 2:
        raise BadLink("the link's text is empty or too long to be one this site made")
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_", validate=True)
        inflater = zlib.decompressobj()
        data = inflater.decompress(raw, MAX_EXCERPT_BYTES)
        if inflater.unconsumed_tail:
            raise BadLink("the link's text is larger than any link this site makes")
        if not inflater.eof:
            raise BadLink("the link is cut short: copy it again, whole")
    except (binascii.Error, ValueError, zlib.error) as exc:
        if isinstance(exc, BadLink):
            raise
        raise BadLink("the link is damaged: copy it again, whole") from None
    return data.decode("utf-8", errors="replace")


def query(text: str, *, lang: str = "en", shown: list[str] = (), keep: Sequence[str] = ()) -> str:
    """The query string of a link to the search of `text` (cleaned) in `lang`.

    `e` lists the entries shown when the link was made, so that a link opened after the
    catalogue changed can say what it answered then; `keep` is passed to `excerpt`."""
    params: dict[str, str] = {}
    stripped = text.strip()
    if len(stripped) <= MAX_PLAIN_QUERY and "\n" not in stripped:
        params["q"] = stripped
    else:
        params["z"] = encode(excerpt(text, keep).text)
    if lang != "en":
        params["lang"] = lang
    if shown:
        params["e"] = ",".join(shown)
    return urlencode(params)
