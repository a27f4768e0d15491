"""Turn the catalogue's prose into reStructuredText, and quote values safely for it.

entry.toml prose is written like Markdown: `code` in single backticks, paragraphs split
by blank lines, and "- " bullet lists. In reStructuredText single backticks mean
something else, and `*`, `_` and `|` start markup, so every piece of prose goes through
here before it reaches a template. A stray markup character would otherwise become a
docutils warning, and the site is built with -W.
"""
from __future__ import annotations

import re
import unicodedata

# Characters that may touch an inline literal's start or end without an escaped space
# (docutils' inline markup recognition rules, kept to the ASCII set we need).
_OK_BEFORE = set(" \n\t'\"([{<-/:")
_OK_AFTER = set(" \n\t'\")]}>-/:.,;!?\\")
_URL = re.compile(r"https?://[^\s<>`]+[^\s<>`.,;:!?)\]'\"]")
_ENUMERATOR = re.compile(r"^(\d+|[a-zA-Z#]|[ivxlcdmIVXLCDM]+)[.)]\s")
_BULLET = re.compile(r"^[-*+]\s+")


def escape(text: str) -> str:
    """Plain text with every character that could start RST inline markup escaped."""
    out = []
    pos = 0
    for m in _URL.finditer(text):
        out.append(_escape_plain(text[pos:m.start()]))
        out.append(m.group(0))  # docutils links bare URLs itself; escapes would break them
        pos = m.end()
    out.append(_escape_plain(text[pos:]))
    return "".join(out)


def _escape_plain(text: str) -> str:
    text = text.replace("\\", "\\\\")
    return re.sub(r"([*_|`])", r"\\\1", text)


def literal(value: str) -> str:
    """An inline literal for an identifier or a short value: data, never offered for translation."""
    value = " ".join(str(value).split())
    # A `` inside, or a backtick next to the fence, would end or open the literal early
    # (Dynamo's graph-break types quote code: "Call to `torch._dynamo.graph_break()`").
    if not value:
        return escape(value)
    if "``" not in value and not value.startswith("`") and not value.endswith("`"):
        return f"``{value}``"
    # The :literal: role, where backslash escapes hold: still a literal, never offered for translation.
    return ":literal:`" + value.replace("\\", "\\\\").replace("`", "\\`") + "`"


def inline(text: str) -> str:
    """One paragraph of Markdown-style prose as RST inline text."""
    text = " ".join(text.split())
    # Markdown code spans: ``...`` (which may hold single backticks, as error texts do)
    # or `...`. The double form is tried first so its backticks stay inside the literal.
    pieces = re.split(r"(``.+?``|`[^`]+`)", text)
    out: list[str] = []
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            out.append(escape(piece))
            continue
        fence = 2 if piece.startswith("``") else 1
        code = piece[fence:-fence].strip()
        if not code or "``" in code:
            out.append(escape(code))
            continue
        before = "".join(out)[-1:] if out else ""
        after = pieces[i + 1][:1] if i + 1 < len(pieces) else ""
        # docutils only sees ``...`` as a literal when it is delimited; an escaped space
        # delimits it and renders as nothing ("``Tensor``\ s" shows "Tensors").
        lead = "" if not before or before in _OK_BEFORE else "\\ "
        trail = "" if not after or after in _OK_AFTER else "\\ "
        out.append(f"{lead}``{code}``{trail}")
    return strong("".join(out))


# In escaped RST: an inline literal (or the :literal: role), an escaped character, and
# the escaped form of Markdown's bold marker that escape() leaves behind.
_RST_TOKEN = re.compile(r"``.+?``|:literal:`(?:\\.|[^`\\])*`|\\\*\\\*|\\.")
_MARKER = "\\*\\*"
# A stretch of text: its spaces (plain or escaped) at each end, and what they surround.
_SPACED = re.compile(r"((?:\s|\\ )*)(.*?)((?:\s|\\ )*)", re.S)


def strong(rst: str) -> str:
    """Markdown's **bold** in escaped RST (`\\*\\*...\\*\\*`) as RST strong emphasis.

    RST cannot nest inline markup, so bold text around an inline literal becomes one
    strong run on each side of it ("**Keep the** ``x`` **switch**"). Each run is cut
    free of spaces, and an escaped space (which renders as nothing) separates it from a
    neighbour that docutils would not accept next to markup, as a Korean particle or a
    Chinese character. Applied to the English text and, by the catalogue migration, to
    the translations, which hold the same markers."""
    # CommonMark's flanking rules decide which markers open and close: "2 ** 3" and
    # "f(**kwargs), {**d}" hold no bold. A marker left unpaired stays escaped.
    pairs, opening = [], None
    for m in _RST_TOKEN.finditer(rst):
        if m.group(0) != _MARKER:
            continue
        prev, nxt = rst[m.start() - 1:m.start()], rst[m.end():m.end() + 1]
        if opening is None:
            if not _space(nxt) and (not _punct(nxt) or _space(prev) or _punct(prev)):
                opening = m
        elif not _space(prev) and (not _punct(prev) or _space(nxt) or _punct(nxt)):
            pairs.append((opening, m))
            opening = None
    if not pairs:
        return rst
    out: list[str] = []
    pos = 0
    for opening, closing in pairs:
        out.append(rst[pos:opening.start()])
        out.append(_strong_runs(rst[opening.end():closing.start()], "".join(out)[-1:], rst[closing.end():][:1]))
        pos = closing.end()
    out.append(rst[pos:])
    return "".join(out)


def _space(char: str) -> bool:
    return not char or char.isspace()  # the start and the end of the text count as space


def _punct(char: str) -> bool:
    return bool(char) and unicodedata.category(char)[0] in "PS"


def _strong_runs(inner: str, before: str, after: str) -> str:
    """`inner` (escaped RST) with every stretch of text outside literals in **...**."""
    pieces: list[str] = []
    pos = 0
    for m in _RST_TOKEN.finditer(inner):
        if m.group(0).startswith(("``", ":literal:")):
            pieces += [inner[pos:m.start()], m.group(0)]
            pos = m.end()
    pieces.append(inner[pos:])
    out: list[str] = []
    for i, piece in enumerate(pieces):
        if i % 2:  # a literal: already delimited by spaces or escaped spaces
            out.append(piece)
            continue
        head, core, tail = _SPACED.fullmatch(piece).groups()
        if not core:
            out.append(piece)
            continue
        prev = ("".join(out) + head)[-1:] or before
        nxt = tail[:1] or (pieces[i + 1][:1] if i + 1 < len(pieces) else after)
        lead = "" if not prev or prev in _OK_BEFORE else "\\ "
        trail = "" if not nxt or nxt in _OK_AFTER else "\\ "
        out.append(f"{head}{lead}**{core}**{trail}{tail}")
    return "".join(out)


def blocks(text: str) -> list[tuple[str, str]]:
    """Split prose into ('p', paragraph) and ('li', list item) blocks, lines joined, and
    ('code', source) blocks from ```-fenced lines, kept line by line."""
    result: list[tuple[str, list[str]]] = []
    fenced = False
    for line in text.strip().splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            if fenced:
                result.append(("code", []))
            continue
        if fenced:
            result[-1][1].append(line)
        elif not line.strip():
            result.append(("", []))
        elif _BULLET.match(line):
            result.append(("li", [_BULLET.sub("", line)]))
        elif result and result[-1][0] == "li" and line[:1].isspace():
            result[-1][1].append(line)
        elif result and result[-1][0] == "p":
            result[-1][1].append(line)
        else:
            result.append(("p", [line]))
    return [(kind, "\n".join(lines).rstrip() if kind == "code" else " ".join(" ".join(lines).split()))
            for kind, lines in result if kind]


def prose(text: str) -> str:
    """Markdown-style prose (paragraphs, "- " lists, ```-fenced code) as RST body text."""
    parts: list[str] = []
    previous = ""
    for kind, body in blocks(text):
        if kind == "code":
            # Code is shown as written and never translated (Sphinx does not extract
            # literal blocks into the catalogues).
            parts.append("\n.. code-block:: python\n\n" + "\n".join(
                "   " + ln if ln.strip() else "" for ln in body.splitlines()) + "\n")
            previous = kind
            continue
        rst = inline(body)
        if kind == "p":
            if _ENUMERATOR.match(rst) or _BULLET.match(rst):
                rst = "\\" + rst  # a paragraph that merely starts like a list item
            parts.append("\n" + rst + "\n")
        else:
            # Consecutive items form one list; a blank line must separate it from a paragraph.
            parts.append(("" if previous == "li" else "\n") + "- " + rst + "\n")
        previous = kind
    return "".join(parts).strip("\n") + "\n"


def heading(title: str, char: str) -> str:
    """A section title with its underline (the underline must be at least as long)."""
    return f"{title}\n{char * max(len(title), 3)}"
