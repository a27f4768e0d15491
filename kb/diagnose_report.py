"""How `exportkb diagnose` shows its findings: a terminal table, Markdown for an issue or a PR.

Both read the report as JSON (collectors.diagnose.Diagnosis.as_json), the same object
`--json` prints, so the three faces cannot disagree about what happened.
"""
from __future__ import annotations

import html

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

OUTCOME_STYLE = {"ok": "green", "skip": "dim", "fail": "red", "timeout": "magenta", "crash": "magenta",
                 "oom": "magenta"}
# What an attempt whose process was stopped or died means, and what to try.
STOPPED = {
    "timeout": "the attempt did not finish in time and was stopped; a larger --timeout tells a slow export "
               "from a stuck one",
    "oom": "the attempt used more memory than --memory-mb allows and was stopped",
    "crash": "the attempt's process died: the exporter crashed in native code (the --json or --markdown "
             "report holds its last output)",
}
# A line of an error shown in the table or in Markdown is cut here.
SHOWN_CHARS = 240


def first_line(text: str | None) -> str:
    line = next((ln.strip() for ln in (text or "").splitlines() if ln.strip()), "")
    return line if len(line) <= SHOWN_CHARS else line[:SHOWN_CHARS - 1] + "…"


def error_line(r: dict) -> str:
    message = first_line(r.get("message"))
    return f"{r['exc_type']}: {message}" if r.get("exc_type") else message


def skip_note(report: dict) -> str | None:
    """Why an exporter was skipped: export-dynamic needs the dims the file declares dynamic."""
    if any(r["outcome"] == "skip" and r["exporter"] == "export-dynamic" for r in report["results"]):
        return "export-dynamic was skipped: the model declares no dynamic_shapes."
    return None


def fix_text(r: dict) -> str:
    fix = r.get("fix")
    if not fix:
        return ""
    if fix["outcome"] == "ok":
        return f"{fix['id']} → passes"
    return f"{fix['id']} → {fix['outcome']} at {fix['stage']}"


def summary(report: dict) -> str:
    results = report["results"]
    passed = [r for r in results if r["passed"]]
    fixed = [r for r in passed if r["outcome"] not in ("ok", "skip")]
    text = f"{len(passed)} of {len(results)} exporters pass"
    if fixed:
        text += f" ({len(fixed)} with an automatic fix)"
    return text + f"; {report['wall_s']:.0f} s"


def table(report: dict) -> Group:
    """The terminal view: one row per exporter, then what each failure means."""
    grid = Table(title=f"exportkb diagnose {escape(report['model'])}", title_justify="left")
    for column in ("exporter", "outcome", "stage", "time", "entry", "fix tried → result"):
        # An entry id is what the user searches for: fold it, never cut it with an ellipsis.
        grid.add_column(column, no_wrap=column in ("exporter", "outcome", "stage", "time"), overflow="fold",
                        min_width=14 if column == "entry" else None)
    for r in report["results"]:
        style = OUTCOME_STYLE.get(r["outcome"], "")
        stage = r["stage"] if r["outcome"] not in ("ok", "skip") else ""
        grid.add_row(r["exporter"], Text(r["outcome"], style=style), stage or "", f"{r['duration_s']:.1f} s",
                     r.get("entry") or ("no entry" if r["outcome"] == "fail" else ""), fix_text(r))
    parts: list = [grid, Text(summary(report), style="bold")]
    if skip_note(report):
        parts.append(Text(skip_note(report), style="dim"))
    for r in report["results"]:
        if r["outcome"] in ("ok", "skip"):
            continue
        parts.append(Text(""))
        parts.append(Text.assemble((f"{r['exporter']}", "bold"), f" {r['outcome']} at {r['stage']}: ",
                                   error_line(r)))
        if r.get("entry"):
            parts.append(Text(f"  explained by {r['entry']}: {r['entry_title']}\n  {r['entry_url']}"))
            fix = r.get("fix")
            if fix:
                verdict = "and the exporter then passes, numeric check included" if fix["outcome"] == "ok" else \
                    f"but it still fails ({fix['outcome']} at {fix['stage']}: {first_line(fix.get('message'))})" + \
                    (f", which {fix['then_entry']} explains" if fix.get("then_entry") else "")
                parts.append(Text(f"  tried the entry's fix ({fix['summary']}), {verdict}"))
        elif r["outcome"] == "fail":
            parts.append(Text("  no entry explains this error yet; to start one:"))
            parts.append(Text(f"  {r['new_entry']}", style="cyan"))
        else:
            parts.append(Text("  " + STOPPED[r["outcome"]]))
    return Group(*parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: dict) -> str:
    """The report for an issue or a PR: a table, then each error in a collapsed block."""
    versions = ", ".join(f"{k} {v}" for k, v in sorted(report["versions"].items()) if v)
    note = f" {skip_note(report)}" if skip_note(report) else ""
    lines = [f"### `exportkb diagnose` on `{report['model']}`", "", f"{summary(report)}. Versions: {versions}.{note}", "",
             "| exporter | outcome | stage | entry | fix tried → result |", "|---|---|---|---|---|"]
    for r in report["results"]:
        stage = r["stage"] if r["outcome"] not in ("ok", "skip") else ""
        entry = f"[{r['entry']}]({r['entry_url']})" if r.get("entry") else ("no entry" if r["outcome"] == "fail" else "")
        lines.append(f"| {r['exporter']} | {r['outcome']} | {stage or ''} | {entry} | {_cell(fix_text(r))} |")
    for r in report["results"]:
        if r["outcome"] in ("ok", "skip"):
            continue
        text = (r.get("traceback") or error_line(r)).strip()
        fence = "````" if "```" in text else "```"
        lines += ["", f"<details><summary>{r['exporter']}: {html.escape(_cell(error_line(r)))}</summary>", "",
                  f"{fence}text", text, fence, "", "</details>"]
    return "\n".join(lines) + "\n"
