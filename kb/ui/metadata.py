"""Datasette metadata: titles, table and column descriptions, facets, stored queries.

Arbitrary SQL is off (`allow_sql: false`): the UI is for searching errors and browsing,
and the stored queries below cover the questions users ask. They still run under the
`sql_time_limit_ms` setting that app.py passes to Datasette.
"""
from __future__ import annotations

from kb.catalogue import EXPORTERS, STAGES
from kb.observations import VERSIONED_LIBS

ENTRY_COLUMNS = {
    "id": "Stable entry id; also the folder name under entries/ and the docs page name.",
    "title": "What went wrong, in one line.",
    "rule": "The rule the failure teaches, in one sentence.",
    "exporters": f"Exporter ids the failure concerns (JSON list; one of {', '.join(EXPORTERS)}).",
    "stage": f"Where in an export attempt it fails: {', '.join(STAGES)}.",
    "artifact_step": "After the export: save, load or run, the step with the exported artifact where it fails (empty before there is one).",
    "artifact_side": "After the export: exporting or loading, the side whose release, runtime or environment the fix belongs to.",
    "tags": "Topic tags (JSON list).",
    "reproduces_on_pinned": "1 if failing.py still fails on the pinned torch; 0 if the failure no longer reproduces there.",
    "verified": "1 if the entry's scripts were run here; 0 if the cause needs what this machine lacks (a GPU, a release "
                "that no longer installs): its observed error is quoted from reports (entry_quotes) and its fix was not run.",
    "patterns": "RE2 expressions for the error texts this entry explains, in any torch release's wording (JSON list).",
    "pattern_context": "For a pattern whose message other causes raise too: an RE2 expression the whole pasted text (frames included) must also match before that pattern names this entry (JSON list of [pattern, expression]).",
    "cause": "Why the failure happens.",
    "fix": "How to fix it.",
    "notes": "Version remarks and caveats.",
    "refs": "Upstream references: ExportDB cases, graph-break codes, issues, docs (JSON object).",
    "failing_code": "failing.py, verbatim: the minimal script that reproduces the failure.",
    "fixed_code": "fixed.py, verbatim: the same model with the fix, checked against eager.",
    "url": "The entry's page on the documentation site (English).",
    "reproduces_on": "torch releases on which a failing script fails with an error the patterns name (JSON list).",
    "fixed_in": "First release after the last reproducing one, if it and every later run release no longer reproduce.",
    "retired": "1 if the failing scripts reproduce on none of the releases they ran on.",
    "version_summary": "The release facts in one line, as the search results show them.",
    "error_text": "The entry's primary error: the first text its failing scripts raised that its patterns name.",
}

OBSERVATION_COLUMNS = {
    "key": "Identity of the attempt: hash of source, model, exporter, case content and library versions.",
    "run": "Which command recorded it: 'collect' (the corpus run, which pass rates and unexplained signatures "
           "count), 'check' (an entry's scripts proved on the pinned torch) or 'sweep' (another torch release).",
    "source": "Where the case comes from: 'entry' for an entry's own scripts, else a corpus source.",
    "model": "The model or case that was exported (entry/script for entries' cases).",
    "case": "For entries' cases: the script that ran.",
    "entry": "For entries' cases: the entry the script belongs to (ground truth).",
    "exporter": "Exporter id of the attempt.",
    "stage": "Stage of the attempt the outcome refers to.",
    "outcome": "ok, fail, timeout, crash, oom, or build (the model could not even be built).",
    "exc_type": "Exception type of the failure.",
    "message": "Exception message of the failure.",
    "traceback": "Trimmed traceback with machine paths made portable (<site-packages>, <repo>).",
    "signature": "Normalised first line of the failure's primary exception: what varies between runs is masked.",
    "error_text": "The failure's primary exception: the one its entry's patterns name (an entry's own script: that "
                  "entry; otherwise matched_entry), else the last one. Decided at build time (kb.classify).",
    "reproduces": "For entries' failing scripts: 1 if one of the entry's own patterns names the error, 0 if it failed "
                  "with another one; empty for other observations.",
    "matched_entry": "The entry the matcher assigns to this failure at build time (empty: unexplained).",
    "match_score": "The matcher's score for matched_entry (0.5 and above is a confident match).",
    "duration_s": "Wall time of the attempt, seconds.",
    "peak_rss_mb": "Peak resident memory of the attempt's process, MB.",
    "returncode": "Exit code of the attempt's process.",
    "signal": "Signal that killed the process, if any.",
    "python": "Python version.",
    "platform": "Operating system and machine.",
    "case_hash": "Hash of the case's code, so a changed script is a new observation.",
    **{lib: f"{lib} version used (empty: not installed)." for lib in VERSIONED_LIBS},
}

QUERIES = {
    "models_for_entry": {
        "title": "Which corpus models hit this entry",
        "description": "Every observed failure the matcher explains with the given entry, newest torch first.",
        "sql": (
            "select model, source, exporter, stage, torch, transformers, signature, match_score\n"
            "from observations where matched_entry = :entry\n"
            "order by source = 'entry', torch desc, model, exporter"
        ),
    },
    "pass_rate_per_exporter": {
        "title": "Pass rate per exporter",
        "description": "Share of the corpus run's attempts that succeeded, per exporter and torch version. "
                       "Build failures, entries' checks and sweeps are left out.",
        "sql": (
            "select exporter, torch, count(*) as attempts,\n"
            "  sum(outcome = 'ok') as ok,\n"
            "  round(100.0 * sum(outcome = 'ok') / count(*), 1) as pass_rate_percent\n"
            "from observations where run = 'collect' and outcome != 'build'\n"
            "group by exporter, torch order by exporter, torch"
        ),
    },
    "corpus_per_source": {
        "title": "Corpus run per source",
        "description": "For each corpus source and torch version: models tried, models built, models that "
                       "could not be built, attempts (one per model and exporter), their outcomes, and how "
                       "many failures an entry explains. The corpus run only: entries' checks and sweeps "
                       "are left out.",
        "sql": (
            "select source, torch,\n"
            "  count(distinct model) as models,\n"
            "  count(distinct case when outcome != 'build' then model end) as built,\n"
            "  count(distinct case when outcome = 'build' then model end) as build_failures,\n"
            "  sum(outcome != 'build') as attempts,\n"
            "  sum(outcome = 'ok') as ok, sum(outcome = 'fail') as fail, sum(outcome = 'skip') as skip,\n"
            "  sum(outcome = 'timeout') as timeout, sum(outcome = 'oom') as oom,\n"
            "  sum(outcome = 'crash') as crash,\n"
            "  sum(outcome = 'fail' and matched_entry is not null) as explained_failures,\n"
            "  round(100.0 * sum(outcome = 'fail' and matched_entry is not null)\n"
            "        / max(sum(outcome = 'fail'), 1), 1) as explained_percent,\n"
            "  round(sum(duration_s) / 3600.0, 2) as attempt_hours\n"
            "from observations where run = 'collect'\n"
            "group by source, torch order by source, torch"
        ),
    },
    "failures_on_model": {
        "title": "Failures on model X",
        "description": "All failed attempts on models whose name contains the given text.",
        "sql": (
            "select model, exporter, stage, outcome, exc_type, signature, matched_entry, torch\n"
            "from observations where outcome != 'ok' and model like '%' || :model || '%'\n"
            "order by model, exporter"
        ),
    },
    "unexplained_signatures": {
        "title": "Failure signatures no entry explains",
        "description": "The most frequent failure signatures without a matching entry: candidates for new entries.",
        "sql": (
            "select signature, count(*) as failures, group_concat(distinct exporter) as exporters,\n"
            "  min(model) as example_model\n"
            "from observations where run = 'collect' and outcome = 'fail' and matched_entry is null\n"
            "group by signature order by failures desc limit 100"
        ),
    },
}


def metadata() -> dict:
    return {
        "title": "exportkb: PyTorch export failures",
        "description": "Paste an export error to find its cause and a checked fix; browse entries and observed runs.",
        "license": "BSD-3-Clause",
        "allow_sql": False,
        "databases": {
            "kb": {
                "description": "The knowledge base: entries, their cases, and observed export attempts.",
                "tables": {
                    "entries": {
                        "description": "One row per catalogue entry: a known export failure, its cause and fix.",
                        "columns": ENTRY_COLUMNS,
                        "facets": ["stage", "artifact_step", "artifact_side", "reproduces_on_pinned", "verified", "retired", "fixed_in",
                                   {"array": "exporters"}, {"array": "tags"}],
                        "sortable_columns": ["id", "stage"],
                    },
                    "cases": {
                        "description": "The runnable scripts of each entry, verbatim.",
                        "columns": {
                            "entry": "Entry the script belongs to.",
                            "case": "Script file name (failing.py, failing_<variant>.py, fixed.py).",
                            "kind": "failing or fixed.",
                            "exporter": "Exporter the script exercises.",
                            "code": "The script's code, verbatim.",
                            "companions": "Exact pins of tools the script ran with, installed for it alone "
                                          "(JSON list; empty for most scripts).",
                        },
                        "facets": ["kind", "exporter"],
                    },
                    "observations": {
                        "description": "Every recorded export attempt, classified by the matcher at build time.",
                        "columns": OBSERVATION_COLUMNS,
                        "facets": ["run", "exporter", "stage", "outcome", "torch", "source", "matched_entry"],
                        "sortable_columns": ["model", "exporter", "outcome", "torch", "duration_s", "peak_rss_mb"],
                        "label_column": "model",
                    },
                    "entry_versions": {
                        "description": "Each entry on each torch release its scripts ran on (exportkb check and exportkb sweep).",
                        "columns": {
                            "entry": "Entry id.",
                            "torch": "torch release, without the local build tag.",
                            "release_order": "Position of the release, oldest first.",
                            "status": "reproduces, partly, differs (fails with another error), unavailable (a module or API the "
                                      "scripts use is missing on that release), no-repro, or error (timeout/crash).",
                            "fix": "works, fails or not-run: the fixed script on this release.",
                            "failing_run": "Failing scripts that ran.",
                            "failing_reproduced": "Failing scripts that failed with an error the entry's patterns name.",
                            "failing_failed": "Failing scripts that failed at all.",
                            "fixed_run": "Fixed-script runs.",
                            "fixed_ok": "Fixed-script runs that exited cleanly.",
                            "error_text": "The failing script's main error on this release.",
                        },
                        "facets": ["torch", "status", "fix"],
                    },
                    "fix_attempts": {
                        "description": "Automatic fixes retried on corpus failures an entry explains (exportkb collect --apply-fixes).",
                        "columns": {
                            "key": "Identity of the retry.",
                            "source": "Corpus source.",
                            "model": "Corpus model.",
                            "exporter": "The exporter that failed.",
                            "fix": "The automatic fix applied (collectors/fixes.py).",
                            "entry": "The entry whose failure the fix addresses.",
                            "ran_as": "The exporter the retry ran (the same one, or e.g. export for strict=False).",
                            "outcome": "Outcome of the retry: ok means every stage passed, numerics included.",
                            "result": "fixed, other (got past the entry's error, then failed on another) or same.",
                            "matched_entry": "The entry the retry's own failure matches, if any.",
                            "stage": "Stage the retry reached or failed in.",
                            "exc_type": "Exception type of the retry's failure.",
                            "message": "Exception message of the retry's failure.",
                            "torch": "torch version.",
                            "duration_s": "Wall time of the retry.",
                        },
                        "facets": ["fix", "exporter", "result", "matched_entry"],
                    },
                    "compat": {
                        "description": "Artifacts written on one torch release, loaded and run on another, or "
                                       "ONNX files run on an onnxruntime installed on its own (exportkb compat): "
                                       "one row per case, exporter, writing release and runtime release.",
                        "columns": {
                            "key": "Identity of the load.",
                            "exporter": "The exporter that wrote the artifact.",
                            "model": "The case: an entry's fixed script.",
                            "entry": "The entry whose fixed script it is.",
                            "written_on": "torch release that exported and saved the artifact.",
                            "runtime": "What loaded and ran it: torch, or onnxruntime installed on its own.",
                            "loaded_on": "The runtime's release that loaded and ran it, in a fresh process.",
                            "outcome": "ok (loaded, ran and agreed with eager on the writing release), fail, "
                                       "unavailable, timeout or crash.",
                            "stage": "load, run or numeric: where it failed.",
                            "exc_type": "Exception type of the failure.",
                            "message": "Exception message of the failure.",
                            "traceback": "The failure's traceback, portable paths.",
                            "matched_entry": "The entry that explains the failure, if any.",
                            "duration_s": "Wall time of the load, run and comparison.",
                            "written_onnxruntime": "onnxruntime next to the writing torch.",
                            "loaded_onnxruntime": "onnxruntime that ran an ONNX artifact.",
                        },
                        "facets": ["exporter", "runtime", "written_on", "loaded_on", "outcome", "matched_entry"],
                    },
                    "graph_breaks": {
                        "description": "Dynamo's graph-break registry (torch/_dynamo/graph_break_registry.json of "
                                       "each recorded release, observations/graph-breaks/): one row per id, "
                                       "described by the newest release, with the entry that answers it.",
                        "columns": {"id": "Registry id, as Dynamo's message links it (GB0007).",
                                    "gb_type": "The message's first line, newest wording.",
                                    "explanation": "Dynamo's explanation, with its fields unfilled.",
                                    "hints": "Dynamo's hints (a JSON list).",
                                    "context": "What Dynamo prints as developer debug context.",
                                    "releases": "The torch releases whose registry holds the id.",
                                    "url": "The id's page on the graph-break site.",
                                    "answer": "The entry search gives for it: its own, or export-strict-graph-break.",
                                    "own_entry": "1 when an entry was written for this graph break."},
                        "facets": ["own_entry", "answer", "releases"],
                    },
                    "graph_break_types": {
                        "description": "Every wording a graph-break id's first line has had, on every recorded "
                                       "release: what search reads on an `Unsupported:` line.",
                        "columns": {"gb_type": "A wording of the first line.", "id": "Its registry id."},
                    },
                    "entry_graph_breaks": {
                        "description": "Which entries explain which graph-break ids: an error the entry is known by "
                                       "(its runs, the corpus, its train reports) is that graph break.",
                        "columns": {"entry": "Entry id.", "id": "Graph-break registry id."},
                    },
                    "release_runs": {
                        "description": "The corpus sample (collectors/release_sample.txt) on several torch releases "
                                       "(exportkb collect --torch VERSION --ray), with the pinned release's corpus "
                                       "results for the same models: one row per attempt. /releases compares them.",
                        "columns": {
                            "key": "Identity of the attempt.",
                            "source": "Corpus source of the model.",
                            "model": "Model id within its source.",
                            "exporter": "Exporter attempted (or build, for a model that release could not build).",
                            "torch": "torch release the attempt ran on.",
                            "outcome": "ok, fail, timeout, crash, oom or build.",
                            "stage": "Stage reached or failed in.",
                            "exc_type": "Exception type of the failure.",
                            "message": "Exception message of the failure.",
                            "matched_entry": "The entry that explains the failure, if any.",
                        },
                        "facets": ["torch", "exporter", "outcome", "source", "matched_entry"],
                    },
                    "release_rates": {
                        "description": "Per exporter and torch release: of the models compared on every release, "
                                       "how many exported and agreed with eager.",
                        "columns": {"exporter": "Exporter.", "torch": "torch release.",
                                    "models": "Models compared (built and attempted, not skipped, on every release that ran this exporter).",
                                    "ok": "Of those, the ones whose export succeeded and agreed with eager.",
                                    "pass_rate": "ok / models, in percent."},
                    },
                    "release_changes": {
                        "description": "A model and exporter that started or stopped failing between two consecutive "
                                       "compared releases, with the entry that explains the failing side.",
                        "columns": {"source": "Corpus source.", "model": "Model id.", "exporter": "Exporter.",
                                    "before": "The older release.", "after": "The next compared release.",
                                    "direction": "broke (started failing) or fixed (stopped failing).",
                                    "before_outcome": "Outcome on the older release.",
                                    "after_outcome": "Outcome on the newer release.",
                                    "entry": "The entry that explains the failing side, if any.",
                                    "error": "The failing side's first line."},
                        "facets": ["before", "after", "direction", "exporter", "entry"],
                    },
                    "entry_fixes": {
                        "description": "Per entry, fix and exporter: on how many affected corpus models the automatic fix worked.",
                        "columns": {
                            "entry": "Entry id.",
                            "fix": "Automatic fix id.",
                            "exporter": "Exporter that had failed.",
                            "torch": "torch version.",
                            "models_tried": "Affected corpus models the fix was tried on.",
                            "models_fixed": "Models whose export then succeeded, numerics included.",
                            "models_past": "Models that got past this entry's error, then failed on another.",
                            "fixed_models": "The models fixed (JSON list).",
                            "other_failure_models": "The models that then failed on another error (JSON list).",
                            "still_failing": "The models still failing with this entry's error (JSON list).",
                        },
                    },
                    "entry_texts": {
                        "description": "Error texts observed when each entry's failing scripts ran; the matcher's similarity documents.",
                        "columns": {"entry": "Entry id.", "seq": "Order.", "text": "The exception text as observed."},
                    },
                    "entry_quotes": {
                        "description": "For entries with verified = 0: the errors as reports posted them, the stand-in "
                                       "for runs that this machine cannot make.",
                        "columns": {"entry": "Entry id.", "seq": "Order.", "source": "URL of the report.",
                                    "torch": "Torch version the report names, if any.",
                                    "text": "The error exactly as posted."},
                    },
                    "report_texts": {
                        "description": "The train split of the evidence base: real error reports from public threads "
                                       "that the matcher learns wordings from (devset/reports; test reports are never stored).",
                        "columns": {"seq": "Order.", "label": "Entry id, or none:<cause> when no entry explains it yet.",
                                    "entry": "The entry id, or null for a none: label.",
                                    "thread": "The thread's URL (the split is decided by it).",
                                    "exporter": "Exporter id the user ran.", "torch": "Torch version the thread states.",
                                    "stage": "export, save, load, run or env.",
                                    "text": "The error exactly as posted."},
                    },
                    "meta": {
                        "description": "Build facts: schema version and counts.",
                        "columns": {"key": "Name.", "value": "Value."},
                    },
                },
                "queries": QUERIES,
            }
        },
    }
