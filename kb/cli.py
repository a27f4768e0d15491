"""The `exportkb` command line."""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from . import paths
from .catalogue import CORPUS_SOURCES, EXPORTERS, STAGES, EntryError, first_sentence, load_catalogue
from .textin import EmptyInput, read_input

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _matcher_and_db():
    from .build import ensure_built, load_matcher

    try:
        db, report = ensure_built()
    except EntryError as exc:
        raise click.ClickException(str(exc)) from None
    if report is not None:
        for problem in report.problems:
            err.print(f"[yellow]observations: {escape(problem)}[/]")
    return load_matcher(db), db


@contextmanager
def _progress(description: str, *, counts: bool = False, remaining: bool = True, transient: bool = True,
              auto_refresh: bool = True):
    """A progress bar on stderr; yields update(done, total, label, **fields) for the long commands."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    if counts:
        columns.append(TextColumn("{task.fields[counts]}"))
    columns.append(TimeElapsedColumn())
    if remaining:
        columns.append(TimeRemainingColumn())
    with Progress(*columns, console=err, transient=transient, auto_refresh=auto_refresh) as bar:
        task = bar.add_task(description, total=None, **({"counts": ""} if counts else {}))

        def update(done, total, label, **fields):
            bar.update(task, completed=done, total=total, description=label, **fields)
            if not auto_refresh:
                bar.refresh()

        yield update


def _results_obj(result, limit: int, db: Path, text: str) -> dict:
    """What --json prints; the web API (`/search.json`) answers the same (kb/answer.py)."""
    from .answer import results_obj, shown, where_matched
    from .normalize import clean

    from .graph_breaks import found_in

    matches = shown(result, limit)
    cleaned = clean(text)
    return results_obj(result, limit, _entry_rows(db, [m.id for m in matches]), where_matched(cleaned, matches),
                       found_in(db, cleaned))


def _entry_rows(db: Path, ids: list[str]) -> dict[str, dict]:
    import sqlite_utils

    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = sqlite_utils.Database(db).query(f"select id, cause, fix, verified from entries where id in ({marks})", ids)
    return {r["id"]: r for r in rows}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """exportkb: find why a PyTorch model export failed, and how to fix it."""


@cli.command()
@click.argument("text", required=False)
@click.option("--file", "file_", type=click.Path(dir_okay=False, path_type=Path), help="Read the error from a log file.")
@click.option("--json", "as_json", is_flag=True, help='Print {"results": [...]} as JSON.')
@click.option("--jsonl", is_flag=True, help='Batch mode: each stdin line is {"text": ...}; print one result object per line.')
@click.option("--limit", default=3, show_default=True, type=click.IntRange(1, 50), help="Most results to show.")
def search(text, file_, as_json, jsonl, limit):
    """Find the entry that explains an export error.

    TEXT is the error (a last line, a traceback or a log); use - to read stdin, or --file.
    Exit status: 0 when an entry matches confidently, 1 when none does, 2 on bad input.
    """
    if jsonl:
        _search_jsonl(*_matcher_and_db(), limit)
        return
    if sum(x is not None for x in (text, file_)) != 1:
        raise click.UsageError("give the error as TEXT, as - (stdin), or with --file LOG")
    if file_ is not None:
        try:
            data = file_.read_bytes()
        except OSError as exc:
            raise click.UsageError(f"cannot read {file_}: {exc.strerror}") from None
    elif text == "-":
        data = sys.stdin.buffer.read()
    else:
        data = text
    try:
        inp = read_input(data)
    except EmptyInput as exc:
        err.print(f"[red]exportkb search:[/] {escape(str(exc))}")
        sys.exit(2)
    for note in inp.notes:
        err.print(f"[yellow]note:[/] {escape(note)}")
    matcher, db = _matcher_and_db()
    result = matcher.search(inp)
    confident = result.confident[:limit]
    from .graph_breaks import found_in
    from .normalize import clean

    breaks = found_in(db, clean(inp.text))
    if as_json:
        click.echo(json.dumps(_results_obj(result, limit, db, inp.text), ensure_ascii=False))
        sys.exit(0 if confident or breaks else 1)
    if breaks:
        _print_graph_breaks(breaks)
        out.print()
    if not confident:
        if breaks:
            out.print("[bold]No entry matches the rest of the error confidently;[/] the graph break's entry is above.")
        else:
            out.print("[bold]No confident match.[/] No entry in the catalogue is known to explain this error.")
        possible = result.possible[:limit]
        if possible:
            out.print("[bold]Possible matches[/] (low confidence: check the cause against your error):")
            _print_matches(db, possible)
        if breaks:
            sys.exit(0)
        out.print("If it is an export failure, please add it: run [bold]exportkb new ID[/] and see CONTRIBUTING.md.")
        sys.exit(1)
    if sum(m.tie for m in confident) > 1:
        out.print("[bold]These entries are equally likely:[/] the error text alone cannot tell them apart.")
    _print_matches(db, confident)
    others = result.possible[:max(0, limit - len(confident))]
    if others:
        out.print()
        out.print("[dim]Other possible matches (low confidence): " +
                  ", ".join(f"{escape(m.id)} ({m.confidence:.2f})" for m in others) + "[/]")


def _print_graph_breaks(breaks: list[dict]) -> None:
    """Dynamo's own description of each graph break in the paste, and the entry for it."""
    if len(breaks) > 1:
        out.print("[bold]The paste shows several Dynamo graph breaks[/] (the last raised first):")
    for gb in breaks:
        out.print(f"[bold]Dynamo graph break {gb['id']}:[/] {escape(gb['gb_type'])}  [dim](registry of torch "
                  f"{escape(gb['releases'])})[/]")
        kind = "its entry" if gb["own_entry"] else "strict-mode graph breaks as a class"
        out.print(f"   [bold]Entry ({kind}):[/] {escape(gb['entry_title'] or gb['entry'])}  [dim]{gb['entry']}[/]")
        out.print(f"   {paths.entry_url(gb['entry'])}")
        out.print(f"   [bold]Dynamo explains:[/] {escape(gb['explanation'])}")
        for hint in gb["hints"]:
            out.print(f"   [bold]Hint:[/] {escape(hint)}")
        out.print(f"   {gb['url']}")


def _print_matches(db: Path, matches) -> None:
    details = _entry_rows(db, [m.id for m in matches])
    for rank, m in enumerate(matches, 1):
        row = details.get(m.id, {})
        tie = " · tie" if m.tie else ""
        out.print(f"[bold]{rank}. {escape(m.title)}[/]  [dim]{m.id} · confidence {m.confidence:.2f}{tie} · "
                  f"{', '.join(m.exporters)}[/]")
        if row and not row["verified"]:
            out.print("   [yellow]Not verified here:[/] the error is quoted from reports and the fix was not run.")
        if row:
            out.print(f"   [bold]Cause:[/] {escape(first_sentence(row['cause']))}")
            out.print(f"   [bold]Fix:[/] {escape(' '.join(row['fix'].split()))}")
        out.print(f"   {paths.entry_url(m.id)}")
        if rank < len(matches):
            out.print()


def _search_jsonl(matcher, db: Path, limit: int) -> None:
    for lineno, raw in enumerate(sys.stdin.buffer, 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            text = obj["text"]
            if not isinstance(text, str):
                raise TypeError
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
            click.echo(json.dumps({"results": [], "error": f'line {lineno}: expected a JSON object {{"text": "..."}}'}))
            continue
        try:
            inp = read_input(text)
        except EmptyInput as exc:
            click.echo(json.dumps({"results": [], "error": f"line {lineno}: {exc}"}))
            continue
        click.echo(json.dumps(_results_obj(matcher.search(inp), limit, db, inp.text), ensure_ascii=False))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as JSON.")
def entries(as_json):
    """List the catalogue's entries."""
    try:
        catalogue = load_catalogue(paths.entries_dir())
    except EntryError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps([
            {"id": e.id, "title": e.title, "rule": e.rule, "exporters": list(e.exporters), "stage": e.stage,
             "tags": list(e.tags), "reproduces": e.reproduces, "url": paths.entry_url(e.id)}
            for e in catalogue
        ], indent=2, ensure_ascii=False))
        return
    from rich.table import Table

    table = Table(show_lines=False)
    for col in ("id", "title", "exporters", "stage"):
        table.add_column(col)
    for e in catalogue:
        title = e.title if e.reproduces else f"{e.title} [dim](does not reproduce on the pinned torch)[/]"
        table.add_row(e.id, title, ", ".join(e.exporters), e.stage)
    out.print(table)
    out.print(f"{len(catalogue)} entries")


@cli.command()
def build():
    """Build kb.db from the entries and observations."""
    from .build import build as run_build

    try:
        report = run_build()
    except EntryError as exc:
        raise click.ClickException(str(exc)) from None
    for problem in report.problems:
        err.print(f"[yellow]observations: {escape(problem)}[/]")
    out.print(f"built {paths.db_path()}: {report.entries} entries, {report.observations} observations "
              f"({report.explained}/{report.classified} failed observations explained by an entry)")


def _select_entries(entry_ids: tuple[str, ...]) -> list:
    """The named entries, or the whole catalogue; a clear error for a broken or unknown one."""
    try:
        catalogue = load_catalogue(paths.entries_dir())
    except EntryError as exc:
        raise click.ClickException(str(exc)) from None
    by_id = {e.id: e for e in catalogue}
    unknown = [i for i in entry_ids if i not in by_id]
    if unknown:
        raise click.UsageError(f"no such entry: {', '.join(unknown)}")
    return [by_id[i] for i in entry_ids] if entry_ids else catalogue


@cli.command()
@click.argument("entry_ids", nargs=-1)
@click.option("--record", is_flag=True, help="Append each run to observations/entries.jsonl.")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option("--timeout", default=300.0, show_default=True, help="Seconds allowed per script.")
@click.option("--catalogue", "catalogue_only", is_flag=True,
              help="Instead, check every cross-reference (fixes, kb.db's metadata, paths and names in docs and code); "
                   "fast, no torch.")
def check(entry_ids, record, jobs, timeout, catalogue_only):
    """Run entries' failing and fixed scripts on the installed torch and judge them."""
    if catalogue_only:
        _check_catalogue()
        return
    try:
        from collectors.check import check_entries
    except ImportError as exc:  # the collectors need the [collect] extra
        raise click.ClickException(f"exportkb check needs the collectors: {exc}") from None
    selected = _select_entries(entry_ids)
    with _progress("checking") as progress:
        reports = check_entries(selected, jobs=jobs, record=record, timeout_s=timeout, progress=progress)
    from collectors.versions import library_versions

    torch_version = library_versions().get("torch")
    bad = 0
    for r in reports:
        if r.status == "pass":
            out.print(f"[green]pass[/]      {r.entry.id}")
        elif r.status == "no-repro":
            out.print(f"[yellow]no-repro[/]  {r.entry.id}: does not reproduce on torch {torch_version} (as the entry states)")
        elif r.status == "unverified":
            out.print(f"[cyan]unverified[/] {r.entry.id}: not run here (`verified = false`); "
                      f"its {len(r.entry.quotes)} quoted error(s) match it")
        else:
            bad += 1
            out.print(f"[red]error[/]     {r.entry.id}")
            for p in r.problems:
                out.print(f"          - {escape(p)}")
    counts = {s: sum(r.status == s for r in reports) for s in ("pass", "no-repro", "unverified", "error")}
    retired = _retired_entries([r.entry.id for r in reports])
    for eid, summary in retired:
        out.print(f"[yellow]retired[/]   {eid}: {summary} (kept for old logs; see the entry's release table)")
    out.print(f"{counts['pass']} pass, {counts['no-repro']} no-repro, {counts['unverified']} unverified, "
              f"{counts['error']} error on torch {torch_version}"
              + (f"; {len(retired)} retired" if retired else ""))
    sys.exit(1 if bad else 0)


def _check_catalogue() -> None:
    from .build import ensure_built
    from .tidy import check_catalogue

    try:
        catalogue = load_catalogue(paths.entries_dir())
        db, _ = ensure_built()
    except EntryError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        from collectors.fixes import TRANSFORMS  # no torch at import: the transforms import it when they run
    except ImportError as exc:
        TRANSFORMS = None
        err.print(f"[yellow]note:[/] the automatic fixes' transforms are not checked ({escape(str(exc))})")
    problems = check_catalogue(catalogue, db, TRANSFORMS)
    for problem in problems:
        out.print(f"[red]error[/]     {escape(problem)}")
    fixes = sum(e.auto_fix is not None for e in catalogue)
    if problems:
        out.print(f"{len(problems)} broken reference(s)")
        sys.exit(1)
    out.print(f"catalogue: {len(catalogue)} entries, {fixes} automatic fixes, kb.db described, every reference resolves")


def _retired_entries(ids: list[str]) -> list[tuple[str, str]]:
    """Entries whose failing scripts reproduce on no release that ran them (pinned run and sweeps)."""
    import sqlite_utils

    from .build import ensure_built

    db, _ = ensure_built()
    marks = ",".join("?" * len(ids))
    rows = sqlite_utils.Database(db).query(
        f"select id, version_summary from entries where retired = 1 and id in ({marks}) order by id", ids)
    return [(r["id"], r["version_summary"]) for r in rows]


@cli.command()
@click.option("--torch", "releases", multiple=True, metavar="VERSION",
              help="A torch release to sweep (repeatable). Default: every release with companion pins, 2.1.2 to 2.15.0.")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 64), help="Scripts in parallel.")
@click.option("--timeout", default=300.0, show_default=True, help="Seconds per script.")
@click.option("--keep-venv", is_flag=True, help="Keep each release's venv (under build/sweep) instead of deleting it.")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Run the releases side by side as tasks on the Ray cluster at ADDRESS (alone: a Ray started "
                   "on this machine); each node keeps the venvs it made. Needs the cluster extra.")
@click.argument("entry_ids", nargs=-1)
def sweep(releases, jobs, timeout, keep_venv, ray_address, entry_ids):
    """Run every entry's scripts on other torch releases, each in a throw-away venv.

    Observations go to observations/sweep-torch-<version>.jsonl; kb.db derives from them
    on which releases each entry reproduces and the error text each release prints.
    """
    try:
        from collectors.sweep import DEFAULT_RELEASES, run_release
    except ImportError as exc:
        raise click.ClickException(f"exportkb sweep needs the collectors: {exc}") from None
    from .catalogue import runnable_here

    selected = runnable_here(_select_entries(entry_ids))
    if not selected:
        raise click.UsageError("nothing to sweep: the entries named are `verified = false` (their scripts are not run here)")
    if ray_address is not None:
        _sweep_cluster(selected, list(releases or DEFAULT_RELEASES), ray_address, jobs, timeout)
        return

    from rich.table import Table

    reports = []
    for release in releases or DEFAULT_RELEASES:
        with _progress(f"torch {release}: installing into a throw-away venv", remaining=False) as progress:
            report = run_release(selected, release, jobs=jobs, timeout_s=timeout, keep_venv=keep_venv,
                                 progress=progress)
        reports.append(report)
        if report.error:
            out.print(f"[red]torch {release}: {escape(report.error)}[/]")
        else:
            parts = [f"{report.skipped} recorded before"] if report.skipped else []
            parts += [f"{k} {v}" for k, v in sorted(report.outcomes.items())]
            out.print(f"torch {release}: {report.scripts} scripts ({', '.join(parts)}), {report.recorded} new observations; "
                      f"venv {report.venv_mb / 1024:.1f} GB, install {report.install_s:.0f}s, run {report.run_s:.0f}s")
    table = Table("torch", "venv GB", "install s", "run s", "scripts", "recorded", "error")
    for r in reports:
        table.add_row(r.torch, f"{r.venv_mb / 1024:.2f}", f"{r.install_s:.0f}", f"{r.run_s:.0f}", str(r.scripts),
                      str(r.recorded), escape(r.error or ""))
    out.print(table)
    sys.exit(1 if any(r.error for r in reports) else 0)


@cli.command()
@click.option("--torch", "releases", multiple=True, metavar="VERSION",
              help="Write artifacts on these releases and load each on every one of them (repeatable). "
                   "Without it, print the matrix recorded so far.")
@click.option("--exporters", default="export,jit-script,jit-trace,onnx-legacy,onnx,aoti", show_default=True,
              help="Comma-separated exporters that write an artifact; executorch (.pte files, run on each "
                   "release's paired executorch runtime) is added to a release's venv only when named here.")
@click.option("--timeout", default=300.0, show_default=True, help="Seconds per artifact written or loaded.")
@click.option("--keep-venvs", is_flag=True, help="Keep each release's venv between the two passes (more disk, "
              "one install per release instead of two).")
@click.option("--onnxruntime", "runtimes", multiple=True, metavar="VERSION",
              help="Also run every ONNX file written so far on this onnxruntime release, installed on its own "
                   "without torch (repeatable).")
@click.option("--cases", "case_set", type=click.Choice(["entries", "corpus", "all"]), default="entries",
              show_default=True, help="What to export: the entries' fixed scripts (those named, or all), the corpus "
                                      "slice (collectors.compat.CORPUS_SLICE: 50 real models), or both.")
@click.option("--json", "as_json", is_flag=True, help="Print the matrix as JSON: one object per load.")
@click.argument("entry_ids", nargs=-1)
def compat(releases, exporters, timeout, keep_venvs, runtimes, case_set, as_json, entry_ids):
    """Artifacts written on one torch release, loaded and run on others: the matrix."""
    from .compat_view import matrix_grids, matrix_json, print_matrix

    if not releases and not runtimes:
        if as_json:
            print(json.dumps(matrix_json(), indent=1))
        else:
            print_matrix(out, matrix_grids())
        return
    from collectors.compat import EXPORTERS as WRITERS, corpus_cases, entry_cases, run_release, run_runtime

    names = [e.strip() for e in exporters.split(",") if e.strip()]
    unknown = [e for e in names if e not in WRITERS]
    if unknown:
        raise click.UsageError(f"unknown exporter(s) {', '.join(unknown)}; these write artifacts: {', '.join(WRITERS)}")
    cases = [*(entry_cases(_select_entries(entry_ids)) if case_set != "corpus" else []),
             *(corpus_cases() if case_set != "entries" else [])]
    order = list(dict.fromkeys(releases))
    reports = []
    for n, release in enumerate(order):
        with _progress(f"torch {release}", remaining=False) as update:
            reports.append(run_release(cases, release, order, exporters=names, timeout_s=timeout,
                                       keep_venv=keep_venvs and n < len(order) - 1,
                                       progress=lambda msg: update(0, None, msg)))
    # Second pass: releases visited first load what the later ones wrote.
    for release in order[:-1]:
        with _progress(f"torch {release}", remaining=False) as update:
            reports.append(run_release(cases, release, order, exporters=names, timeout_s=timeout, write=False,
                                       progress=lambda msg: update(0, None, msg)))
    # Then each onnxruntime of its own runs every ONNX file, those written just now included.
    for version in dict.fromkeys(runtimes):
        with _progress(f"onnxruntime {version}", remaining=False) as update:
            reports.append(run_runtime(version, exporters=names, timeout_s=timeout, keep_venv=keep_venvs,
                                       progress=lambda msg: update(0, None, msg)))
    for r in reports:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(r.outcomes.items()))
        name = r.name or f"torch {r.torch}"
        line = (f"{name}: {r.written} written, {r.loaded} loaded ({counts}); install {r.install_s:.0f}s, "
                f"write {r.write_s:.0f}s, load {r.load_s:.0f}s")
        out.print(f"[red]{name}: {escape(r.error)}[/]" if r.error else line)
        if r.missing:
            out.print(f"[yellow]{name}: {escape(r.missing)}[/]")
    sys.exit(1 if any(r.error for r in reports) else 0)


@cli.command()
@click.option("--corpus", "sources", default=",".join(CORPUS_SOURCES), show_default=True,
              help="Comma-separated corpus sources (or module:dotted.name for a custom one).")
@click.option("--exporters", default=",".join(EXPORTERS), show_default=True, help="Comma-separated exporter ids.")
@click.option("--models", default=None, help="Comma-separated glob patterns of model ids (e.g. 'bert,gpt2,resnet*').")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 64), help="Models in parallel.")
@click.option("--shard", default=None, help="Take shard i of n (e.g. 2/8) of the models, for a CI matrix or a cluster.")
@click.option("--timeout", default=600.0, show_default=True, help="Seconds per attempt.")
@click.option("--build-timeout", default=300.0, show_default=True, help="Seconds to build one model.")
@click.option("--memory-mb", default=8000.0, show_default=True, help="Resident memory limit per attempt.")
@click.option("--limit", default=None, type=int, help="At most this many models (after resume filtering).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Observations file (default observations/corpus-torch-<version>[.shard-i-of-n].jsonl).")
@click.option("--merge", is_flag=True, help="Merge shard files into their unsharded file and exit.")
@click.option("--apply-fixes", is_flag=True,
              help="Retry the corpus failures that an entry with an automatic fix explains, with that fix "
                   "(observations/fixes/).")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Run the models as tasks on the Ray cluster at ADDRESS (host:port); alone, on a Ray "
                   "started on this machine for the run. Needs the cluster extra.")
@click.option("--torch", "torch_versions", multiple=True, metavar="VERSION",
              help="Run on this torch release, in the sweep's venv for it (made on each node if missing); "
                   "repeatable: the releases share the cluster.")
@click.option("--batch", default=2, show_default=True, type=click.IntRange(1, 100),
              help="Models per task, with --ray or --torch.")
def collect(sources, exporters, models, jobs, shard, timeout, build_timeout, memory_mb, limit, out_path, merge,
            apply_fixes, ray_address, torch_versions, batch):
    """Run exporters over the corpus in isolated warm workers; append observations (resumable).

    --models takes comma-separated patterns, or @FILE with one pattern per line."""
    try:
        from collectors.collect import collect as run_collect, merge as run_merge, parse_shard
    except ImportError as exc:
        raise click.ClickException(f"exportkb collect needs the collectors: {exc}") from None
    if merge:
        for target, added in run_merge():
            out.print(f"merged {added} observations into {target.name}")
        return
    model_patterns = _model_patterns(models)
    if ray_address is not None or torch_versions:
        if shard or apply_fixes:
            raise click.UsageError("--shard and --apply-fixes run on the local pool, without --ray or --torch")
        _collect_cluster(sources, exporters, model_patterns, jobs, timeout, build_timeout, memory_mb, limit,
                         out_path, ray_address, list(torch_versions) or [None], batch)
        return
    try:
        shard_spec = parse_shard(shard)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    # No auto-refresh thread: workers are forked from this process, and a fork must not
    # happen while another thread holds a lock (the console's) the child would inherit.
    with _progress("collecting", counts=True, transient=False, auto_refresh=False) as update:

        def progress(done, total, tally, label):
            update(done, total, label[:60], counts=" ".join(f"{k}={v}" for k, v in sorted(tally.counts.items())))

        try:
            path, tally, total = run_collect(
                [s.strip() for s in sources.split(",") if s.strip()], [e.strip() for e in exporters.split(",") if e.strip()],
                models=model_patterns, jobs=jobs, shard=shard_spec,
                attempt_timeout=timeout, build_timeout=build_timeout, memory_mb=memory_mb, out=out_path, limit=limit,
                apply_fixes=apply_fixes, progress=progress)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    counts = ", ".join(f"{k} {v}" for k, v in sorted(tally.counts.items())) or "nothing to do"
    out.print(f"{tally.attempts}/{total} attempts recorded in {path}: {counts}")
    _print_lost("", tally)


def _print_lost(name: str, tally) -> None:
    """Attempts whose model's worker ended before running them: not recorded, so say so."""
    if tally.lost:
        why = "; ".join(f"{w}: {n}" for w, n in sorted(tally.lost_why.items(), key=lambda kv: -kv[1]))
        out.print(f"[yellow]{name}{tally.lost} attempts were lost with their model's worker ({escape(why)}); "
                  f"run the same command again to redo them[/]")


def _sweep_cluster(selected, releases, ray_address, jobs, timeout):
    from collectors.cluster import ClusterError, sweep_cluster

    with _progress("sweeping on the cluster", remaining=False) as update:
        try:
            reports = sweep_cluster(selected, releases, address=None if ray_address == "local" else ray_address,
                                    jobs=jobs, timeout_s=timeout, progress=lambda d, t, label: update(d, t, label))
        except ClusterError as exc:
            raise click.ClickException(str(exc)) from None
    for r in reports:
        if r["error"]:
            out.print(f"[red]torch {r['torch']}: {escape(r['error'])}[/]")
        parts = [f"{r['skipped']} recorded before"] if r["skipped"] else []
        parts += [f"{k} {v}" for k, v in sorted(r["outcomes"].items())]
        nodes = ", ".join(f"{n} ({b})" for n, b in sorted(r["nodes"].items())) or "none"
        out.print(f"torch {r['torch']}: {r['scripts']} scripts ({', '.join(parts)}), {r['recorded']} new observations; "
                  f"tasks on {nodes}")
    sys.exit(1 if any(r["error"] for r in reports) else 0)


def _model_patterns(models: str | None) -> list[str] | None:
    if not models:
        return None
    if models.startswith("@"):
        path = Path(models[1:])
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise click.UsageError(f"--models {models}: cannot read {path}: {exc}") from None
        found = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
        if not found:
            raise click.UsageError(f"--models {models}: {path} names no model")
        return found
    return [m.strip() for m in models.split(",") if m.strip()]


def _collect_cluster(sources, exporters, models, jobs, timeout, build_timeout, memory_mb, limit, out_path,
                     ray_address, torch_versions, batch):
    from collectors.cluster import ClusterError, collect_cluster

    with _progress("collecting", counts=True, transient=False) as update:

        def progress(done, total, tally, label):
            update(done, total, label[:60], counts=" ".join(f"{k}={v}" for k, v in sorted(tally.counts.items())))

        try:
            runs = collect_cluster(
                [s.strip() for s in sources.split(",") if s.strip()], [e.strip() for e in exporters.split(",") if e.strip()],
                models=models, address=None if ray_address in (None, "local") else ray_address,
                use_ray=ray_address is not None, torch_versions=torch_versions, jobs=jobs, batch=batch,
                attempt_timeout=timeout, build_timeout=build_timeout, memory_mb=memory_mb, out=out_path, limit=limit,
                progress=progress)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        except ClusterError as exc:
            raise click.ClickException(str(exc)) from None
    failed = False
    for path, tally, total, report in runs:
        name = f"torch {report.versions.get('torch') or report.torch or 'installed'}"
        counts = ", ".join(f"{k} {v}" for k, v in sorted(tally.counts.items())) or "nothing to do"
        nodes = ", ".join(f"{n} ({b})" for n, b in sorted(report.nodes.items())) or "none"
        if path:
            out.print(f"{name}: {tally.attempts}/{total} attempts recorded in {path}: {counts}")
        _print_lost(f"{name}: ", tally)
        out.print(f"{name}: {report.backend}: {report.batches} tasks on {len(report.nodes)} nodes ({nodes}); "
                  f"{report.skipped} of {report.planned} planned attempts were already recorded; {report.wall_s:.0f}s")
        for error in report.errors:
            out.print(f"[red]{escape(error)}[/]")
        if report.errors:
            failed = True
            out.print(f"[yellow]{name}: {report.lost} attempts were not recorded; run the same command again "
                      f"to resume[/]")
    if failed:
        sys.exit(1)


@cli.command()
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True)
def unexplained(limit, as_json):
    """The most frequent failure signatures that no entry explains, with counts and example models."""
    from .build import ensure_built
    from .unexplained import unexplained_signatures

    try:
        db, _ = ensure_built()
    except EntryError as exc:
        raise click.ClickException(str(exc)) from None
    rows = unexplained_signatures(db, limit)
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        out.print("Every failed observation is explained by an entry.")
        return
    from rich.table import Table

    table = Table()
    for col in ("failures", "signature", "exporters", "example models"):
        table.add_column(col)
    for r in rows:
        table.add_row(str(r["failures"]), escape(r["signature"][:160]), ", ".join(r["exporters"]), ", ".join(r["examples"]))
    out.print(table)


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def docs(args):
    """Build the Sphinx site (en, ko, zh_CN). Options: --lang L, --full, --update-po, --coverage."""
    from .site.builder import main as site_main

    sys.exit(site_main(list(args)))


@cli.command()
@click.argument("entry_id")
@click.option("--exporter", type=click.Choice(EXPORTERS), default=None, help="The exporter that fails.")
@click.option("--stage", type=click.Choice(STAGES), default=None, help="The stage where it fails.")
@click.option("--error", "error", default=None, help="The error's first line: it becomes the entry's first pattern.")
@click.option("--script", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="A file defining `model` and `example_args` (as `exportkb diagnose` takes): it becomes failing.py.")
def new(entry_id, exporter, stage, error, script):
    """Scaffold entries/ENTRY_ID with entry.toml, failing.py and fixed.py to fill in.

    `exportkb diagnose` prints this command with the options filled in from a failure that
    no entry explains yet."""
    from .catalogue import ID_RE
    from .scaffold import scaffold

    if not ID_RE.fullmatch(entry_id):
        raise click.UsageError(f"'{entry_id}' is not a valid id: use lowercase words joined by '-'")
    folder = paths.entries_dir() / entry_id
    if folder.exists():
        raise click.ClickException(f"entries/{entry_id} already exists")
    scaffold(folder, entry_id, exporter=exporter, stage=stage, error=error, script=script)
    out.print(f"created entries/{entry_id}/: fill in entry.toml, failing.py and fixed.py, "
              f"then run [bold]exportkb check {entry_id}[/]")


@cli.command()
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--hf", "hf", metavar="MODEL_TYPE", help="A transformers model type, built from its default config.")
@click.option("--timm", "timm", metavar="NAME", help="A timm model, built without weights.")
@click.option("--torchvision", "torchvision", metavar="NAME", help="A torchvision model, built without weights.")
@click.option("--exporters", default=",".join(EXPORTERS), show_default=True, help="Comma-separated exporter ids.")
@click.option("--jobs", "-j", default=2, show_default=True, type=click.IntRange(1, 64), help="Exporters in parallel.")
@click.option("--timeout", default=600.0, show_default=True, type=click.FloatRange(1), help="Seconds per exporter.")
@click.option("--build-timeout", default=300.0, show_default=True, type=click.FloatRange(1),
              help="Seconds to import the file (or build the model) and run it once.")
@click.option("--memory-mb", default=8000.0, show_default=True, type=click.FloatRange(100),
              help="Resident memory limit per process.")
@click.option("--no-fixes", is_flag=True, help="Do not retry explained failures with their entry's automatic fix.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--markdown", is_flag=True, help="Print the report as Markdown, for an issue or a pull request.")
def diagnose(path, hf, timm, torchvision, exporters, jobs, timeout, build_timeout, memory_mb, no_fixes, as_json,
             markdown):
    """Run every exporter on your model and explain each failure.

    PATH is a Python file that defines `model` and `example_args` (optionally
    `example_kwargs` and `dynamic_shapes`), the shape of an entry's failing.py; or name a
    model of a builder with --hf, --timm or --torchvision. Exit code 0: every exporter
    passes (with or without a fix); 1: some do not; 2: the model cannot be used."""
    chosen = [(s, v) for s, v in (("user", path), ("hf", hf), ("timm", timm), ("torchvision", torchvision)) if v]
    if len(chosen) != 1:
        raise click.UsageError("name one model: a PATH, or one of --hf, --timm, --torchvision")
    if as_json and markdown:
        raise click.UsageError("--json and --markdown are two formats of one report: choose one")
    names = [e.strip() for e in exporters.split(",") if e.strip()]
    unknown = [e for e in names if e not in EXPORTERS]
    if unknown or not names:
        raise click.UsageError(f"unknown exporter(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(EXPORTERS)}")
    from collectors.diagnose import BUILDERS, Target, diagnose as run_diagnose

    source, value = chosen[0]
    target = Target("user", str(Path(value).resolve())) if source == "user" else Target(BUILDERS[source], value)
    with _diagnose_progress(names) as on_event:
        report = run_diagnose(target, names, jobs=jobs, attempt_timeout=timeout, build_timeout=build_timeout,
                              memory_mb=memory_mb, apply_fixes=not no_fixes, on_event=on_event).as_json()
    if as_json:
        print(json.dumps(report, indent=2))
    elif markdown and report["unusable"] is None:
        from .diagnose_report import markdown as to_markdown

        print(to_markdown(report), end="")
    elif report["unusable"] is None:
        from .diagnose_report import table

        out.print(table(report))
    if report["unusable"] is not None:
        err.print(f"[red]cannot diagnose {escape(target.label)}:[/] {escape(report['unusable'])}")
        if report["unusable_details"]:
            err.print(escape(report["unusable_details"].rstrip()))
    sys.exit(report["exit_code"])


@contextmanager
def _diagnose_progress(exporters: list[str]):
    """One line per exporter on stderr, showing the stage each attempt is in."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err,
                  transient=True) as bar:
        build = bar.add_task("building the model", total=1)
        rows = {}

        def on_event(exporter: str, kind: str, data: dict) -> None:
            if kind == "built":
                bar.update(build, completed=1, description="model built")
            elif kind == "fixes":
                for label in data["labels"]:
                    rows[label] = bar.add_task(f"{label}: waiting", total=1)
            elif kind == "stage":
                if exporter not in rows:
                    rows[exporter] = bar.add_task(exporter, total=1)
                bar.update(rows[exporter], description=f"{exporter}: {data['stage']}")
            elif kind == "done" and exporter in rows:
                bar.update(rows[exporter], completed=1, description=f"{exporter}: {data['outcome']}")

        yield on_event


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8001, show_default=True, type=click.IntRange(0, 65535))
@click.option("--no-docs", is_flag=True, help="Do not build the documentation site first.")
@click.option("--docs-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Serve this already-built site (one folder per language, like build/html) instead of building one.")
def serve(host, port, no_docs, docs_dir):
    """Build what is stale, then serve the search UI and the docs on localhost."""
    import asyncio

    import uvicorn

    from .build import ensure_built

    try:
        db, report = ensure_built()
    except EntryError as exc:
        raise click.ClickException(str(exc)) from None
    if report is not None:
        err.print(f"built {db}: {report.entries} entries, {report.observations} observations")
    if not (no_docs or docs_dir):
        _build_docs()
    from .ui.app import make_datasette

    ds = make_datasette(db, docs=docs_dir)
    asyncio.run(ds.invoke_startup())
    url = f"http://{host}:{port}/"
    out.print(f"exportkb is serving on [bold]{url}[/]  (docs: {url}docs/en/index.html; Ctrl-C to stop)")
    uvicorn.run(ds.app(), host=host, port=port, log_level="warning", lifespan="on")


def _build_docs() -> None:
    """Rebuild the Sphinx site when its sources changed; serving goes on without it if it cannot."""
    try:
        from .site.builder import build_site
    except ImportError as exc:
        err.print(f"[yellow]docs not built ({exc}); the search UI still works[/]")
        return
    try:
        build_site(incremental=True)
    except Exception as exc:  # a docs failure must not keep the search UI down
        err.print(f"[red]docs build failed:[/] {escape(str(exc))}; serving the search UI without fresh docs")


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
