"""Find the exceptions in a pasted error, a full traceback or a noisy log.

A Python traceback ends with `Type: message`; chained exceptions repeat the pattern
with "The above exception was the direct cause..." between them; TorchScript prints a
bare `RuntimeError:` and puts the message, a source excerpt and `~~~ <--- HERE` on the
following lines; wrappers (the ONNX exporter, `UserError`) embed the inner error's
text in their own message; `warnings.warn` prints `path:line: UserWarning: message`.
The extractor returns every such exception block, in the order printed, the first
errors of a C/C++ compiler printed outside them (AOTInductor's builds), and a native
runtime's log lines that say why a Python exception followed or the process aborted
(ExecuTorch's `ET_CHECK` failures and its missing-operator lines), and the error a torch
function logged before raising one that only says "check the warnings above". When the text
holds no recognisable exception line (a user pasted part of a message, or a build log),
the whole text is returned as one more block without a type.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .normalize import clean

# Only this much of a block's message is kept; the distinguishing part of an export
# error is at its start, and what follows is boilerplate or log noise.
MAX_BLOCK_CHARS = 4000
# Exception lines are short; a longer line is data, not a header, and skipping it keeps
# the per-line expressions cheap on adversarial input.
MAX_HEADER_LINE = 2000

_HEADER = re.compile(r"[ \t]{0,8}(?P<type>(?:[A-Za-z_]\w{0,100}\.){0,20}[A-Za-z_]\w{0,100}):(?:[ \t]+(?P<msg>.*))?$")
# ONNX's exporter and others summarise an inner exception as "<class 'pkg.Type'>: message".
_CLASS_HEADER = re.compile(r"[ \t]{0,8}<class '(?P<type>[\w.]{1,300})'>:[ \t]*(?P<msg>.*)$")
# warnings.warn output: "/path/file.py:123: UserWarning: message".
_WARNING = re.compile(r"(?P<loc>[^\n]{0,500}?):\d{1,9}: (?P<type>[A-Za-z_]\w{0,100}Warning): (?P<msg>.*)$")
# A traceback frame: '  File "path", line N, in function'; its source line follows.
FRAME_LINE = re.compile(r'[ \t]{0,8}File "(?P<file>[^"\n]{1,1000})", line \d{1,9}, in (?P<func>[^\n]{1,300})$')
# An exception raised without a message prints its type alone: "AssertionError".
_BARE = re.compile(r"(?P<type>(?:[A-Za-z_]\w{0,100}\.){0,20}[A-Za-z_]\w{0,100})$")
# A C or C++ compiler's diagnostic: "file.cpp:557:33: error: message", or "fatal error:".
# AOTInductor on older releases lets g++ print to stderr before torch raises a bare
# "CppCompileError: C++ compile error"; the compiler's line is the error that says why.
_COMPILER_ERROR = re.compile(r"[^\n]{0,1000}?:\d{1,9}:(?:\d{1,9}:)? (?P<msg>(?:fatal )?error: .*)$")
# The first errors are the cause; the rest of a long build log follows from them.
MAX_COMPILER_BLOCKS = 2
# A native runtime's log line that no Python exception carries, whatever prefix the log
# format puts before it:
# - a failed check, logged just before the process aborts (ExecuTorch's ET_CHECK_MSG:
#   "[file.cpp:104] In function f(), assert failed (cond): message"; ET_CHECK without a
#   message: "In function f(), assert failed: cond");
# - an operator the runtime has no kernel for, logged while a method loads; the Python
#   exception that follows says only "loading method forward failed with error 0x14"
#   ("[method.cpp:554] Missing operator: [6] dim_order_ops::_clone_dim_order.out").
# - any other line of ExecuTorch's log format ("[program.cpp:114] msg" from the Python
#   runtime, "E 00:00:00.085019 executorch:method.cpp:829] msg" from a C++ runner) whose
#   message says something failed: "File size is too small. Expected file size from
#   extended header is 21536, ...", "Check failed (all_contiguous || all_channels_last)",
#   "Error setting input 0: 0x10". Its progress lines ("Method loaded.") and the pieces of
#   a tensor it prints line by line say nothing.
_NATIVE_LINE = re.compile(r"[^\n]{0,1000}?(?P<msg>(?:In function [^\n]{1,300}?\(\), assert failed[ :(]"
                          r"|Missing operator: )[^\n]*)$")
_RUNTIME_LOG_LINE = re.compile(
    r"\s*(?:(?:[EWIFD] )?\d\d:\d\d:\d\d\.\d+ executorch:|\[)[\w./-]{1,200}\.(?:cpp|cc|h|mm):\d{1,6}\] "
    r"(?P<msg>[^\n]*?(?:[Ff]ail|[Ee]rror|[Mm]issing|not found|too small|too large|[Ii]nvalid|[Mm]ismatch"
    r"|Attempted to|[Uu]nsupported|[Cc]annot|[Cc]ould not)[^\n]*)$")
# A method missing many operators logs each one, once per instruction that calls it: the
# first few distinct lines name the cause.
MAX_NATIVE_BLOCKS = 4
# torch.export.load (2.9) logs the error that stopped it as a warning, then raises
# "We ran into an error when deserializing the saved file. Please check the warnings above
# for possible errors": the logged message is the cause. (2.13 logs the whole traceback,
# whose exception line is read as any other.) The message may run on to the next lines.
_LOGGED_ERROR = re.compile(r"[^\n]{0,1000}?(?P<msg>Ran into the following error when deserializing: .*)$")
# Kinds of block that stand for a line printed outside any exception's message (a
# compiler's error, a runtime's log line): when these are all a text holds, its tail is
# read as well.
LOG_KINDS = ("compiler", "native", "log")
_TYPE_SUFFIX = re.compile(r"(?:Error|Exception|Warning|Exit|Interrupt|Failure|Failed|Fail|Unsupported|SymNode)$")
_BOUNDARY = (
    "Traceback (most recent call last):",
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)


@dataclass(frozen=True)
class ExceptionBlock:
    type: str  # "" when the input held no recognisable exception line
    message: str
    kind: str = "exception"  # "exception", "warning", "compiler", "native", "log" or "text"

    @property
    def text(self) -> str:
        return f"{self.type}: {self.message}" if self.type else self.message


def _is_exception_type(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    if _TYPE_SUFFIX.search(last):
        return True
    # A qualified name whose last part is a class name: torch._dynamo.exc.Unsupported.
    return "." in name and last[:1].isupper()


def _header(line: str) -> tuple[str, str, str] | None:
    if len(line) > MAX_HEADER_LINE or ":" not in line:
        return None
    m = _HEADER.match(line)
    if m and _is_exception_type(m["type"]):
        return m["type"], (m["msg"] or "").strip(), "exception"
    m = _CLASS_HEADER.match(line)
    if m:
        return m["type"], m["msg"].strip(), "exception"
    if "error when deserializing: " in line:
        m = _LOGGED_ERROR.match(line)
        if m:
            return "", m["msg"].strip(), "log"
    if "Warning: " in line:
        m = _WARNING.match(line)
        if m:
            return m["type"], m["msg"].strip(), "warning"
    return None


def _bare_header(line: str, frame: tuple[str, str, str] | None) -> tuple[str, str, str] | None:
    """A type alone on its line, right after a traceback frame: a bare assert or raise.

    `frame` is the last frame's (file, function, source line). The block's message is the
    source line, with where it ran on a second line, so the failure's signature names the
    statement that raised."""
    if frame is None or len(line) > 300:
        return None
    m = _BARE.match(line)
    if not m or not _is_exception_type(m["type"]):
        return None
    file, func, source = frame
    where = f"(in {func}, {file.replace(chr(92), '/').rsplit('/', 1)[-1]})"
    return m["type"], f"{source}\n{where}" if source else where, "exception"


def extract(text: str, *, already_clean: bool = False) -> list[ExceptionBlock]:
    if not already_clean:
        text = clean(text)
    lines = text.split("\n")
    blocks: list[ExceptionBlock] = []
    current: tuple[str, str] | None = None
    body: list[str] = []
    size = 0
    # The last traceback frame seen, until a line that is neither its source line nor
    # the ^^^ markers under it: only a type printed there is a bare exception.
    frame: tuple[str, str, str] | None = None
    compiler_blocks = 0
    native: set[str] = set()

    def close() -> None:
        if current is not None:
            message = "\n".join(body).strip()
            blocks.append(ExceptionBlock(current[0], message, current[1]))

    for line in lines:
        stripped = line.strip()
        header = _header(line) or _bare_header(line, frame)
        m = FRAME_LINE.match(line) if stripped.startswith("File \"") else None
        if m:
            frame = (m["file"], m["func"].strip(), "")
        elif frame is not None and stripped and not frame[2] and line[:1] in (" ", "\t"):
            frame = (frame[0], frame[1], stripped[:MAX_HEADER_LINE])  # the frame's source line
        elif frame is not None and stripped and set(stripped) - set("^~ "):
            frame = None
        if header is not None:
            close()
            current = (header[0], header[2])
            body, size = [header[1]], len(header[1])
            continue
        if current is not None and (stripped in _BOUNDARY
                                    or (current[1] == "warning" and line[:1] not in ("", " ", "\t"))):
            # warnings.warn prints the message, then the indented source line; the next
            # unindented line is someone else's output (a log line, another message), read
            # below as any line outside an exception.
            close()
            current, body = None, []
            if stripped in _BOUNDARY:
                continue
        if current is None:
            # A compiler's error printed outside any exception (before the traceback, or a
            # build log pasted alone) is a block of its own; inside an exception's message
            # it stays part of that message.
            if (compiler_blocks < MAX_COMPILER_BLOCKS and "error: " in line and len(line) <= MAX_HEADER_LINE
                    and (c := _COMPILER_ERROR.match(line))):
                blocks.append(ExceptionBlock("", c["msg"].strip(), "compiler"))
                compiler_blocks += 1
            elif (("assert failed" in line or "Missing operator: " in line or "] " in line)
                  and len(line) <= MAX_HEADER_LINE and len(native) < MAX_NATIVE_BLOCKS
                  and (n := _NATIVE_LINE.match(line) or _RUNTIME_LOG_LINE.match(line))
                  and (msg := n["msg"].strip()) not in native):
                native.add(msg)
                blocks.append(ExceptionBlock("", msg, "native"))
            continue
        if size < MAX_BLOCK_CHARS:
            body.append(line.rstrip())
            size += len(line) + 1
    close()
    if all(b.kind in LOG_KINDS for b in blocks):
        tail = text.strip()[-MAX_BLOCK_CHARS:]
        if tail:
            blocks.append(ExceptionBlock("", tail, "text"))
    # A cut message ends where its lines do (rstripped), so that extracting it again gives it back.
    return [b if len(b.message) <= MAX_BLOCK_CHARS else ExceptionBlock(b.type, b.message[:MAX_BLOCK_CHARS].rstrip(), b.kind)
            for b in blocks]
