"""Clean and normalise error text.

`clean` removes what is not part of the error at all: ANSI colour codes and the
prefixes that loggers, CI runners and distributed launchers put in front of each line.
Patterns are matched against cleaned text.

`normalize` additionally masks what varies from run to run (paths, line numbers, hex
addresses, symbolic sizes like `s77`/`u0`, numbers, opset versions, quoted names), so
that the same failure on two machines or two models gives the same signature.

Every expression here runs on untrusted input up to 1 MB, so each is written to match in
linear time: no nested quantifiers over overlapping classes, bounded repetition where a
terminator may be missing.
"""
from __future__ import annotations

import re

# CSI sequences (colours, cursor moves) and OSC sequences (terminal titles, hyperlinks).
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")

# Prefixes that wrap every line of a log. Applied repeatedly at the start of a line,
# since they stack (a CI timestamp, then a rank prefix, then pytest's "E   ").
_LOG_PREFIXES = [
    # ISO-8601 timestamps (GitHub Actions, Python logging, most CI systems).
    r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?\]?[ \t]*(?:[-|:][ \t]*)?",
    # Bracketed clock times: "[12:34:56]" or "[12:34:56.789]".
    r"\[\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?\][ \t]*",
    # torch.distributed / torchrun: "[rank0]:", "[default3]:", "[rank1]:[W1121 ...]".
    r"\[(?:rank|default|local_rank)\d{1,6}\]:[ \t]?",
    # glog-style lines that torch itself prints: "W1121 16:10:45.281000 2476 path.py:123] ".
    # Under torch.compile they carry a frame id too: "...recording.py:299] [0/0] ".
    r"[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{1,9}[ \t]+\d{1,10}[ \t]+[^\]\n]{1,300}\][ \t]?(?:\[\d{1,6}/\d{1,6}\][ \t]?)?",
    # The same lines as the collectors store them, with clock and pid removed so that
    # records stay reproducible (collectors.portable): "E torch/_guards.py:262] [0/0] ".
    r"[IWEF] [\w./<>-]{1,300}:\d{1,7}\][ \t]?(?:\[\d{1,6}/\d{1,6}\][ \t]?)?",
    # GitHub Actions annotations.
    r"##\[(?:error|warning|notice|debug|group|endgroup)\]",
    # pytest's failure-section prefix "E   ".
    r"E {1,4}(?=\S)",
    # Logging levels at the start of a line: "ERROR: ", "ERROR:root:".
    r"(?:ERROR|CRITICAL|FATAL)(?::[\w.]{1,100})?:[ \t]*(?=\S)",
]
_PREFIX = re.compile(r"^(?:" + "|".join(_LOG_PREFIXES) + r")", re.MULTILINE)


def clean(text: str) -> str:
    """Remove ANSI codes and log prefixes; keep the error's own wording intact."""
    text = _ANSI.sub("", text)
    # Each pass strips one layer of prefix from every line; three covers real stacks.
    for _ in range(3):
        text, n = _PREFIX.subn("", text)
        if not n:
            break
    return text


# Order matters: URLs before paths, paths before numbers, symbols before numbers.
_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bhttps?://[^\s'\"<>)\]]{1,500}"), "<url>"),
    # Windows paths: C:\Users\me\env\lib\site-packages\torch\x.py
    (re.compile(r"\b[A-Za-z]:\\(?:[^\\\s\"'<>|:*?]{1,255}\\){0,64}[^\\\s\"'<>|:*?,)]{0,255}"), "<path>"),
    # POSIX paths with at least one slash-separated segment: /a/b.py, ./x/y, pkg/mod.py
    (re.compile(r"(?:(?<![\w.])(?:~|\.{1,2})?/[\w.+@-]{1,255}(?:/[\w.+@-]{1,255}){0,64}/?|\b(?:[\w+@-]{1,255}/){1,32}[\w.+@-]{0,255}\.(?:py|pyi|pyx|c|cc|cpp|h|hpp|cu|so|pt|pte|onnx)\b)"), "<path>"),
    # Memory addresses and other hex.
    (re.compile(r"\b0x[0-9a-fA-F]{1,32}\b"), "<hex>"),
    # Symbolic sizes and unbacked symbols from torch.fx: s0, s77, u0, zuf0, zf1, ps3.
    (re.compile(r"\b(?:s|u|zuf|zf|ps|q)\d{1,9}\b"), "<sym>"),
    # Opset versions written glued to the word: opset17, opset_version=17.
    (re.compile(r"(?i)\b(opset(?:_version)?[ =_]?)\d{1,4}\b"), r"\1<n>"),
    # Numbers (sizes, line numbers, ids, floats).
    (re.compile(r"(?<![\w<])-?\d{1,64}(?:\.\d{1,64})?(?:e[-+]?\d{1,4})?(?![\w>])"), "<n>"),
    # Quoted identifiers and dotted names: 'proj', "x", `mod`, 'transformers.cache_utils.X'.
    (re.compile(r"'[^'\s]{1,200}'|\"[^\"\s]{1,200}\"|`[^`\s]{1,200}`"), "<q>"),
]
_SPACES = re.compile(r"[ \t]+")


def normalize(text: str) -> str:
    """Mask the variable parts of an (already cleaned) error text."""
    for pattern, repl in _MASKS:
        text = pattern.sub(repl, text)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)
