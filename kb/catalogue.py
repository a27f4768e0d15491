"""Load and validate the entry catalogue: one folder per entry under `entries/`.

Each folder holds `entry.toml` (metadata and English prose), `failing.py` (plus optional
`failing_<variant>.py`) and `fixed.py`. Loading reads only text: no entry code runs
here, so the catalogue is available without torch.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import re2

from .patternset import RE2_OPTIONS  # validate patterns with the options the matcher compiles them with
from .observations import ENTRY_LIBS
from .script_imports import imported_modules, imports_package

# Stable exporter ids (see DESIGN.md). An entry names the ones its failure concerns.
EXPORTERS = (
    "export", "export-strict", "export-dynamic", "jit-script", "jit-trace",
    "onnx", "onnx-legacy", "aoti", "executorch",
)
# Where in an export attempt a failure happens, in pipeline order.
STAGES = ("capture", "lower", "save-load", "run", "numeric")
# After the export: the step with the artifact at which the failure shows, and the side
# whose release, runtime or environment the fix belongs to. Every save-load entry says both.
ARTIFACT_STEPS = ("save", "load", "run")
ARTIFACT_SIDES = ("exporting", "loading")
REQUIRED = ("id", "title", "rule", "exporters", "stage", "tags", "reproduces", "patterns", "cause", "fix")
REF_KINDS = ("exportdb", "graph_breaks", "issues", "docs")
# Corpus sources an entry's `silent_models` may name (collectors/corpus). kb/ keeps its
# own list because it never imports collectors.
CORPUS_SOURCES = ("transformers", "torchvision", "timm", "exportdb", "entry", "custom-ops", "quantized")
_ISSUE_REF = re.compile(r"[\w.-]+/[\w.-]+#\d+")
ID_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# Tags become page labels and facet values, which compare case-insensitively in places:
# "ModelOutput" beside "modeloutput" would be two tags with one label.
TAG_RE = re.compile(r"[a-z0-9][a-z0-9.+_-]*")


def tag_label(tag: str) -> str:
    """The name a tag's page label and anchor get: letters and digits, every other run one '-'.
    Two spellings with one label ("dynamic_axes", "dynamic-axes") would be one page with
    two names, so load_catalogue refuses them."""
    return re.sub(r"[^a-z0-9]+", "-", tag.lower()).strip("-") or "x"

AUTO_FIX_KEYS = ("id", "summary", "exporters", "transform", "retry_as")
QUOTE_KEYS = ("source", "torch", "text")
_URL = re.compile(r"https?://\S+")


class EntryError(ValueError):
    """A broken entry; the message names the entry folder and exactly what is wrong."""


@dataclass(frozen=True)
class AutoFix:
    """An entry's fix generic enough for the collectors to apply by themselves ([auto_fix] in entry.toml).

    `exportkb collect --apply-fixes` retries every corpus failure the entry explains on
    `exporters` with it: either `transform`, a change to the built case that
    collectors/fixes.py implements under that name, or `retry_as`, another exporter to
    run instead. One fix id may serve several entries, on disjoint exporters."""
    id: str
    summary: str  # what the fix does, in the words the entry page uses
    exporters: tuple[str, ...]
    transform: str | None = None
    retry_as: str | None = None


@dataclass(frozen=True)
class Quote:
    """An error as a report posted it, for an entry whose scripts this machine cannot run
    (`verified = false`): the text verbatim, the thread it comes from, the torch it names."""
    source: str
    text: str
    torch: str = ""


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    rule: str
    exporters: tuple[str, ...]
    stage: str
    tags: tuple[str, ...]
    reproduces: bool
    patterns: tuple[str, ...]
    cause: str
    fix: str
    notes: str
    refs: dict[str, tuple[str, ...]]
    folder: Path
    failing_cases: tuple[str, ...]  # file names, "failing.py" first
    fixed_case: str
    case_exporters: dict[str, str] = field(default_factory=dict)
    # Corpus models ("source/model") whose numeric mismatches this entry explains. A
    # silent wrong result carries no error text for the patterns to match, so a
    # numeric-stage entry names the models it was diagnosed on instead.
    silent_models: tuple[str, ...] = ()
    auto_fix: AutoFix | None = None
    artifact_step: str = ""  # ARTIFACT_STEPS, or "" for a failure before there is an artifact
    artifact_side: str = ""  # ARTIFACT_SIDES, or ""
    # False: the cause needs what this machine lacks (a GPU, a release that no longer
    # installs), so the scripts were never run here and `quotes` hold the observed error.
    verified: bool = True
    quotes: tuple[Quote, ...] = ()
    # pattern -> what the whole text must also show for that pattern to count ([pattern_context])
    pattern_context: dict[str, str] = field(default_factory=dict)
    # script -> exact pins ("name==version") of tools its failure or fix depends on and that
    # the project does not install, such as a delegate's vendor compiler ([companions]).
    # They are installed apart and put first on that script's import path (collectors/companions.py).
    companions: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def explains_silently(self, source: str, model: str, exporter: str, stage: str) -> bool:
        return stage == "numeric" and exporter in self.exporters and f"{source}/{model}" in self.silent_models

    def compiled_patterns(self) -> list:
        return [re2.compile(p, RE2_OPTIONS) for p in self.patterns]

    def exporter_for(self, case: str) -> str:
        """Exporter a case exercises: declared in [cases], else the entry's first."""
        return self.case_exporters.get(case, self.exporters[0])

    def code(self, case: str) -> str:
        return (self.folder / case).read_text(encoding="utf-8")

    @cached_property
    def libraries(self) -> tuple[str, ...]:
        """The ENTRY_LIBS its scripts import: a sweep installs them, and its runs record their versions."""
        named: set[str] = set()
        for case in (*self.failing_cases, self.fixed_case):
            named |= imported_modules(self.code(case)) or set()
        return tuple(lib for lib in ENTRY_LIBS if imports_package(named, lib))


def runnable_here(entries: list[Entry]) -> list[Entry]:
    """The entries whose scripts check, sweep and compat run: all but the `verified = false`
    ones, whose scripts need what this machine lacks."""
    return [e for e in entries if e.verified]


def first_paragraph(text: str) -> str:
    """The first paragraph of an entry's prose (Markdown kept): what a search result shows."""
    return (text or "").strip().split("\n\n", 1)[0].strip()


def first_sentence(text: str) -> str:
    """The first sentence of an entry's prose, on one line: a result's one-line cause."""
    flat = " ".join(text.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def _str(data: dict, key: str, where: str) -> str:
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise EntryError(f"{where}: field '{key}' must be a non-empty string")
    return value.strip()


def _str_list(data: dict, key: str, where: str, allow_empty: bool = False) -> tuple[str, ...]:
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise EntryError(f"{where}: field '{key}' must be a list of non-empty strings")
    if not value and not allow_empty:
        raise EntryError(f"{where}: field '{key}' must not be empty")
    return tuple(v.strip() for v in value)


def load_entry(folder: Path) -> Entry:
    folder = Path(folder)
    where = f"entries/{folder.name}"
    meta = folder / "entry.toml"
    if not meta.is_file():
        raise EntryError(f"{where}: missing entry.toml")
    try:
        data = tomllib.loads(meta.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise EntryError(f"{where}/entry.toml is not valid TOML: {exc}") from None
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise EntryError(f"{where}/entry.toml: missing required field(s): {', '.join(missing)}")
    entry_id = _str(data, "id", where)
    if not ID_RE.fullmatch(entry_id):
        raise EntryError(f"{where}: id '{entry_id}' must be lowercase words joined by '-'")
    if entry_id != folder.name:
        if (folder.parent / entry_id).is_dir():
            raise EntryError(
                f"{where}: id '{entry_id}' is a duplicate: entries/{entry_id} already has it "
                f"(rename the id to '{folder.name}', the folder's name)"
            )
        raise EntryError(f"{where}: id '{entry_id}' must equal the folder name '{folder.name}'")
    exporters = _str_list(data, "exporters", where)
    unknown = [e for e in exporters if e not in EXPORTERS]
    if unknown:
        raise EntryError(f"{where}: unknown exporter(s) {unknown}; known: {', '.join(EXPORTERS)}")
    stage = _str(data, "stage", where)
    if stage not in STAGES:
        raise EntryError(f"{where}: stage '{stage}' is not one of {', '.join(STAGES)}")
    bad_tags = [t for t in _str_list(data, "tags", where, allow_empty=True) if not TAG_RE.fullmatch(t)]
    if bad_tags:
        raise EntryError(f"{where}: tag(s) {bad_tags} must be lower case: letters, digits, '.', '+', '_' or '-'")
    if not isinstance(data["reproduces"], bool):
        raise EntryError(f"{where}: field 'reproduces' must be true or false")
    patterns = _str_list(data, "patterns", where)
    for p in patterns:
        try:
            re2.compile(p, RE2_OPTIONS)
        except re2.error as exc:
            detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
            raise EntryError(
                f"{where}: pattern {p!r} is not valid RE2 syntax ({detail}); "
                "lookarounds and backreferences are not supported"
            ) from None
    contexts = _pattern_context(data, patterns, where)
    refs_raw = data.get("refs", {})
    if not isinstance(refs_raw, dict):
        raise EntryError(f"{where}: [refs] must be a table")
    extra = set(refs_raw) - set(REF_KINDS)
    if extra:
        raise EntryError(f"{where}: unknown [refs] key(s) {sorted(extra)}; known: {', '.join(REF_KINDS)}")
    refs = {k: _str_list(refs_raw, k, where, allow_empty=True) if k in refs_raw else () for k in REF_KINDS}
    for issue in refs["issues"]:
        if not _ISSUE_REF.fullmatch(issue):
            raise EntryError(f"{where}: [refs] issues entry {issue!r} must look like 'owner/repo#123'")
    cases_raw = data.get("cases", {})
    if not isinstance(cases_raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in cases_raw.items()
    ):
        raise EntryError(f"{where}: [cases] must map script names to exporter ids")
    for case, exporter in cases_raw.items():
        if exporter not in EXPORTERS:
            raise EntryError(f"{where}: [cases] {case} names unknown exporter '{exporter}'")
    failing = sorted(p.name for p in folder.glob("failing*.py"))
    if "failing.py" not in failing:
        raise EntryError(f"{where}: missing failing.py")
    failing.remove("failing.py")
    failing.insert(0, "failing.py")
    if not (folder / "fixed.py").is_file():
        raise EntryError(f"{where}: missing fixed.py")
    for case in cases_raw:
        if case not in failing and case != "fixed.py":
            raise EntryError(f"{where}: [cases] names '{case}', which is not a script in the folder")
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        raise EntryError(f"{where}: field 'notes' must be a string")
    silent = _silent_models(data, stage, where)
    artifact_step, artifact_side = _artifact(data, stage, where)
    auto_fix = _auto_fix(data, where)
    verified, quotes = _verification(data, where)
    companions = _companions(data, (*failing, "fixed.py"), where)
    return Entry(
        id=entry_id,
        title=_str(data, "title", where),
        rule=_str(data, "rule", where),
        exporters=exporters,
        stage=stage,
        tags=_str_list(data, "tags", where, allow_empty=True),
        reproduces=data["reproduces"],
        patterns=patterns,
        pattern_context=contexts,
        cause=_str(data, "cause", where),
        fix=_str(data, "fix", where),
        notes=notes.strip(),
        refs=refs,
        folder=folder,
        failing_cases=tuple(failing),
        fixed_case="fixed.py",
        case_exporters=dict(cases_raw),
        silent_models=silent,
        auto_fix=auto_fix,
        artifact_step=artifact_step,
        artifact_side=artifact_side,
        verified=verified,
        quotes=quotes,
        companions=companions,
    )


# An exact pin: what a script ran with must be what its record says it ran with.
_PIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9][A-Za-z0-9._+!-]*")


def _companions(data: dict, scripts: tuple[str, ...], where: str) -> dict[str, tuple[str, ...]]:
    """[companions]: script name -> the exact pins installed for that script alone."""
    raw = data.get("companions", {})
    if not isinstance(raw, dict):
        raise EntryError(f"{where}: [companions] must map script names to lists of pins")
    out: dict[str, tuple[str, ...]] = {}
    for script, pins in raw.items():
        if script not in scripts:
            raise EntryError(f"{where}: [companions] names '{script}', which is not a script in the folder")
        if not isinstance(pins, list) or not pins or not all(isinstance(p, str) for p in pins):
            raise EntryError(f"{where}: [companions] {script} must be a non-empty list of pins")
        loose = [p for p in pins if not _PIN.fullmatch(p)]
        if loose:
            raise EntryError(f"{where}: [companions] {script}: {loose} must be exact pins such as 'name==1.2.3'")
        names = [p.split("==")[0].lower().replace("_", "-") for p in pins]
        if len(set(names)) != len(names):
            raise EntryError(f"{where}: [companions] {script} pins one package twice")
        out[script] = tuple(pins)
    return out


def _pattern_context(data: dict, patterns: tuple[str, ...], where: str) -> dict[str, str]:
    """[pattern_context]: for a pattern whose message other causes raise too, an RE2
    expression that the whole text (its traceback's frames included) must also match
    before that pattern names this entry."""
    raw = data.get("pattern_context", {})
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                            for k, v in raw.items()):
        raise EntryError(f"{where}: [pattern_context] must map patterns to non-empty RE2 expressions")
    for pattern, context in raw.items():
        if pattern not in patterns:
            raise EntryError(f"{where}: [pattern_context] names {pattern!r}, which is not one of the entry's patterns")
        try:
            re2.compile(context, RE2_OPTIONS)
        except re2.error:
            raise EntryError(f"{where}: [pattern_context] expression {context!r} is not valid RE2 syntax") from None
    return dict(raw)


def _verification(data: dict, where: str) -> tuple[bool, tuple[Quote, ...]]:
    """`verified` (default true) and, for an unverified entry, its [[observed]] quotes."""
    verified = data.get("verified", True)
    if not isinstance(verified, bool):
        raise EntryError(f"{where}: field 'verified' must be true or false")
    raw = data.get("observed")
    if verified:
        if raw is not None:
            raise EntryError(f"{where}: [[observed]] is only for an entry with `verified = false`; a verified "
                             "entry's observed errors come from running its failing scripts")
        return True, ()
    if data["reproduces"]:
        raise EntryError(f"{where}: an entry with `verified = false` was not run here, so it cannot say "
                         "`reproduces = true`")
    if not isinstance(raw, list) or not raw or not all(isinstance(q, dict) for q in raw):
        raise EntryError(f"{where}: an entry with `verified = false` needs at least one [[observed]] table: "
                         "the error as a report posted it (text) and the thread (source)")
    quotes = []
    for i, q in enumerate(raw, 1):
        at = f"{where} [[observed]] #{i}"
        extra = sorted(set(q) - set(QUOTE_KEYS))
        if extra:
            raise EntryError(f"{at}: unknown key(s) {extra}; known: {', '.join(QUOTE_KEYS)}")
        if "source" not in q or "text" not in q:
            raise EntryError(f"{at}: needs 'source' (the thread's URL) and 'text' (the error, verbatim)")
        source = _str(q, "source", at)
        if not _URL.fullmatch(source):
            raise EntryError(f"{at}: source {source!r} must be the URL of the report")
        torch = q.get("torch", "")
        if not isinstance(torch, str):
            raise EntryError(f"{at}: 'torch' must be a string (the release the report names)")
        quotes.append(Quote(source, _str(q, "text", at), torch.strip()))
    return False, tuple(quotes)


def _artifact(data: dict, stage: str, where: str) -> tuple[str, str]:
    """The [artifact] table: step (save, load, run) and side (exporting, loading)."""
    table = data.get("artifact")
    if table is None:
        if stage == "save-load":
            raise EntryError(f"{where}: a save-load entry needs an [artifact] table with step "
                             f"({', '.join(ARTIFACT_STEPS)}) and side ({', '.join(ARTIFACT_SIDES)})")
        return "", ""
    if not isinstance(table, dict) or set(table) != {"step", "side"}:
        raise EntryError(f"{where}: [artifact] must hold exactly 'step' and 'side'")
    if table["step"] not in ARTIFACT_STEPS:
        raise EntryError(f"{where}: [artifact] step '{table['step']}' is not one of {', '.join(ARTIFACT_STEPS)}")
    if table["side"] not in ARTIFACT_SIDES:
        raise EntryError(f"{where}: [artifact] side '{table['side']}' is not one of {', '.join(ARTIFACT_SIDES)}")
    return table["step"], table["side"]


def _silent_models(data: dict, stage: str, where: str) -> tuple[str, ...]:
    if "silent_models" not in data:
        return ()
    models = _str_list(data, "silent_models", where)
    if stage != "numeric":
        raise EntryError(f"{where}: 'silent_models' is only for stage 'numeric' entries (this one is '{stage}'): "
                         "a failure at another stage has error text for the patterns")
    for m in models:
        source, _, model = m.partition("/")
        if source not in CORPUS_SOURCES or not model:
            raise EntryError(f"{where}: silent_models entry {m!r} must be 'source/model' with a source "
                             f"among {', '.join(CORPUS_SOURCES)}")
    return models


def _auto_fix(data: dict, where: str) -> AutoFix | None:
    if "auto_fix" not in data:
        return None
    raw = data["auto_fix"]
    if not isinstance(raw, dict):
        raise EntryError(f"{where}: [auto_fix] must be one table")
    extra = sorted(set(raw) - set(AUTO_FIX_KEYS))
    if extra:
        raise EntryError(f"{where}: unknown [auto_fix] key(s) {extra}; known: {', '.join(AUTO_FIX_KEYS)}")
    missing = [k for k in ("id", "summary", "exporters") if k not in raw]
    if missing:
        raise EntryError(f"{where}: [auto_fix] misses {', '.join(missing)}")
    fix_id = _str(raw, "id", f"{where} [auto_fix]")
    if not ID_RE.fullmatch(fix_id):
        raise EntryError(f"{where}: [auto_fix] id '{fix_id}' must be lowercase words joined by '-'")
    # Any exporter whose failures the entry explains, which may be more than it names.
    on = _str_list(raw, "exporters", f"{where} [auto_fix]")
    unknown = [x for x in on if x not in EXPORTERS]
    if unknown:
        raise EntryError(f"{where}: [auto_fix] names unknown exporter(s) {unknown}")
    how = [k for k in ("transform", "retry_as") if k in raw]
    if len(how) != 1:
        raise EntryError(f"{where}: [auto_fix] needs exactly one of 'transform' (a transform that "
                         "collectors/fixes.py implements) and 'retry_as' (an exporter id)")
    value = _str(raw, how[0], f"{where} [auto_fix]")
    if how[0] == "retry_as" and value not in EXPORTERS:
        raise EntryError(f"{where}: [auto_fix] retry_as '{value}' is not an exporter id")
    return AutoFix(fix_id, _str(raw, "summary", f"{where} [auto_fix]"), on, **{how[0]: value})


def load_catalogue(entries_dir: Path) -> list[Entry]:
    """All entries, sorted by id. Raises EntryError listing every broken entry."""
    entries_dir = Path(entries_dir)
    if not entries_dir.is_dir():
        raise EntryError(f"no entries folder at {entries_dir}")
    entries, errors = [], []
    for folder in sorted(p for p in entries_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        try:
            entries.append(load_entry(folder))
        except EntryError as exc:
            errors.append(str(exc))
    spellings: dict[str, set[str]] = {}
    for entry in entries:
        for tag in entry.tags:
            spellings.setdefault(tag_label(tag), set()).add(tag)
    for label, tags in sorted(spellings.items()):
        if len(tags) > 1:
            users = sorted(e.id for e in entries if set(e.tags) & tags)
            errors.append(f"tags {', '.join(sorted(tags))} are spelt differently but get one label "
                          f"('{label}'); pick one spelling (entries: {', '.join(users)})")
    if errors:
        raise EntryError("broken entries:\n  " + "\n  ".join(errors))
    return entries
