"""`exportkb new`: the files of a new entry, rendered from the templates beside this module.

Without options they are a blank form. `exportkb diagnose` prints `exportkb new` with the
failure filled in (exporter, stage, the error's first line, the user's file), so a
contribution starts from the real error: its first pattern is that line, escaped for
RE2, and failing.py is the user's own model.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2

FILES = ("entry.toml", "failing.py", "fixed.py")
# The longest error text a starting pattern copies: past it, a pattern names one model.
PATTERN_CHARS = 160

# How each exporter is called on the script's `model`, for failing.py's main().
EXPORT_CALLS = {
    "export": "    torch.export.export(model, tuple(example_args), globals().get(\"example_kwargs\"))",
    "export-strict": "    torch.export.export(model, tuple(example_args), globals().get(\"example_kwargs\"), strict=True)",
    "export-dynamic": "    torch.export.export(model, tuple(example_args), globals().get(\"example_kwargs\"),\n"
                      "                        dynamic_shapes=dynamic_shapes)",
    "jit-script": "    torch.jit.script(model)",
    "jit-trace": "    torch.jit.trace(model, tuple(example_args))",
    "onnx": "    torch.onnx.export(model, tuple(example_args), dynamo=True)",
    "onnx-legacy": "    import io\n\n    torch.onnx.export(model, tuple(example_args), io.BytesIO(), dynamo=False)",
    "aoti": "    import tempfile\n\n    exported = torch.export.export(model, tuple(example_args))\n"
            "    torch._inductor.aoti_compile_and_package(exported, package_path=tempfile.mkdtemp() + \"/model.pt2\")",
    "executorch": "    from executorch.exir import to_edge_transform_and_lower\n\n"
                  "    to_edge_transform_and_lower(torch.export.export(model, tuple(example_args))).to_executorch()",
}


def starting_pattern(error: str) -> str:
    """An RE2 pattern for the message of `error` ("Type: message"): escaped, numbers generalised."""
    line = next((ln.strip() for ln in error.splitlines() if ln.strip()), "")
    # The exception's type is matched by the matcher apart; a pattern names the message.
    head, sep, rest = line.partition(": ")
    message = rest if sep and re.fullmatch(r"[\w.]+", head) else line
    if len(message) > PATTERN_CHARS:
        message = message[:PATTERN_CHARS].rsplit(" ", 1)[0]
    return re.sub(r"\d+", r"\\d+", re.escape(message).replace(r"\ ", " "))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined, autoescape=False)
    # A TOML basic string: JSON's escapes are TOML's.
    env.filters["toml"] = lambda value: json.dumps(value, ensure_ascii=False)
    return env


def scaffold(folder: Path, entry_id: str, *, exporter: str | None = None, stage: str | None = None,
             error: str | None = None, script: Path | None = None) -> None:
    """Write the entry's three files into `folder`, which must not exist yet."""
    exporter = exporter or "export"
    code = script.read_text(encoding="utf-8") if script else ""
    values = {
        "id": entry_id, "exporter": exporter, "stage": stage or "capture", "error": error or "",
        "pattern": starting_pattern(error) if error else "", "script": bool(script),
        "script_name": script.name if script else "", "script_code": code.rstrip("\n"),
        "has_main": "__main__" in code, "export_call": EXPORT_CALLS[exporter],
    }
    env = _environment()
    folder.mkdir(parents=True)
    for name in FILES:
        (folder / name).write_text(env.get_template(f"{name}.j2").render(values), encoding="utf-8")
