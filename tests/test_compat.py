"""`exportkb compat`: artifacts written and loaded by the real exporters, recorded once.

These run on the pinned release (the project's own interpreter, no venv to install):
the diagonal of the matrix. The cross-release cells come from the same code with a sweep
venv per release; their observations are committed under observations/compat/.
"""
import json
import os
import shutil
import subprocess
import sys

from conftest import EXAMPLE, PINNED_TORCH, REPO

RELEASE = PINNED_TORCH.split("+")[0]


def cli(root, *args, timeout=900):
    return subprocess.run([sys.executable, "-m", "kb.cli", *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "EXPORTKB_ROOT": str(root), "COLUMNS": "200"}, timeout=timeout)


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_write_load_resume_and_a_damaged_artifact(kb_root):
    r = cli(kb_root, "compat", "--torch", RELEASE, "--exporters", "export,jit-trace,onnx-legacy", EXAMPLE.name)
    assert r.returncode == 0, r.stdout + r.stderr
    written = _lines(kb_root / "observations" / "compat" / f"written-on-{RELEASE}.jsonl")
    loaded = _lines(kb_root / "observations" / "compat" / f"loaded-on-{RELEASE}.jsonl")
    assert sorted(w["exporter"] for w in written) == ["export", "jit-trace", "onnx-legacy"]
    assert all(w["outcome"] == "ok" and w["versions"]["torch"].startswith(RELEASE) for w in written)
    # Each artifact loads in a fresh process and agrees with eager on the writing release.
    assert sorted((x["exporter"], x["outcome"]) for x in loaded) == [
        ("export", "ok"), ("jit-trace", "ok"), ("onnx-legacy", "ok")]
    assert all(x["written_on"] == x["loaded_on"] for x in loaded)

    # Run again: nothing is written or loaded twice.
    again = cli(kb_root, "compat", "--torch", RELEASE, "--exporters", "export,jit-trace,onnx-legacy", EXAMPLE.name)
    assert again.returncode == 0 and f"torch {RELEASE}: 0 written, 0 loaded" in again.stdout, again.stdout
    assert len(_lines(kb_root / "observations" / "compat" / f"loaded-on-{RELEASE}.jsonl")) == 3

    # A truncated TorchScript archive (a half-copied file) is a load failure with the
    # runtime's own words, recorded as data, and the matrix shows the cell as failing.
    artifact = kb_root / "build" / "compat" / RELEASE / f"{EXAMPLE.name}__fixed.py" / "jit-trace" / "model.pt"
    data = artifact.read_bytes()
    artifact.write_bytes(data[: len(data) // 2])
    sys.path.insert(0, str(REPO))
    from collectors.compat_worker import forked, load_one

    row = forked(lambda: load_one({"exporter": "jit-trace", "artifact": str(artifact.parent)}), 120)
    assert row["outcome"] == "fail" and row["stage"] == "load"
    assert "PytorchStreamReader failed" in row["message"] or "zip archive" in row["message"]

    shown = cli(kb_root, "compat", "--json")
    rows = json.loads(shown.stdout)
    assert {(x["exporter"], x["written_on"], x["loaded_on"], x["outcome"]) for x in rows} == {
        (e, RELEASE, RELEASE, "ok") for e in ("export", "jit-trace", "onnx-legacy")}
    assert set(rows[0]) == {"exporter", "written_on", "runtime", "loaded_on", "model", "outcome", "stage", "entry", "exc_type",
                            "message"}
    table = cli(kb_root, "compat")
    assert "jit-trace: written on (rows), loaded on (columns)" in table.stdout and "1/1" in table.stdout


def test_a_worker_that_hangs_or_crashes_is_a_recorded_outcome():
    sys.path.insert(0, str(REPO))
    from collectors.compat_worker import forked

    def hang():
        while True:
            pass

    def crash():
        import ctypes

        ctypes.string_at(0)

    assert forked(hang, 2)["outcome"] == "timeout"
    crashed = forked(crash, 30)
    assert crashed["outcome"] == "crash" and "SIGSEGV" in crashed["message"]
    assert forked(lambda: {"outcome": "ok"}, 30)["outcome"] == "ok"


def test_what_a_failing_load_printed_is_kept_before_its_traceback():
    """torch.export.load logs the real error as a warning and raises "check the warnings
    above": the record keeps what was printed, as the user's terminal shows it."""
    sys.path.insert(0, str(REPO))
    from collectors.compat import _printed
    from collectors.compat_worker import forked

    import logging

    # Like torch's own log handler: set up at import, on the process's stderr.
    log = logging.getLogger("exportkb-test.export")
    log.propagate = False
    log.addHandler(logging.StreamHandler(sys.__stderr__))

    def warn_then_fail():
        log.warning("SerializeError: We failed to resolve torch.ops.mylib.f")
        print("a library's own print")
        raise RuntimeError("Please check the warnings above for possible errors.")

    row = forked(warn_then_fail, 30)
    assert row["outcome"] == "fail" and "We failed to resolve torch.ops.mylib.f" in row["stderr"]
    assert "a library's own print" in row["stderr"]
    text = _printed(row)
    assert text.index("We failed to resolve") < text.index("RuntimeError: Please check the warnings above")
    assert "stderr" not in forked(lambda: print("fine") or {"outcome": "ok"}, 30)


def test_a_load_error_one_entrys_patterns_name_is_learned_for_that_entry_only():
    from kb.catalogue import load_catalogue
    from kb.classify import run_texts

    entries = load_catalogue(REPO / "entries")
    keyerror = ('Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
                'KeyError: "There is no item named \'version\' in the archive"\n')
    records = [{"outcome": "fail", "exporter": "export", "traceback": keyerror, "exc_type": "KeyError",
                "message": "There is no item named 'version' in the archive"},
               {"outcome": "fail", "exporter": "export", "traceback": "RuntimeError: nothing any entry names\n"},
               {"outcome": "ok", "exporter": "export", "traceback": None}]
    texts = run_texts(entries, records, {})
    assert list(texts) == ["export-load-other-release"]
    assert texts["export-load-other-release"] == ["KeyError: \"There is no item named 'version' in the archive\""]
    assert run_texts(entries, records, texts) == texts  # learned once


def test_a_cell_recorded_twice_counts_once_by_the_run_with_most_companions(kb_root):
    """A venv made again (a companion installed this time) records every load anew; the
    matrix keeps one load per cell, and loads on another onnxruntime stay their own cells."""
    from kb.build import _compat_records

    def load(key, outcome, loader, writer_tf=None):
        return {"key": key, "model": "e/fixed.py", "exporter": "onnx", "written_on": "2.4.1", "loaded_on": "2.13.0",
                "outcome": outcome, "writer_versions": {"torch": "2.4.1", "transformers": writer_tf},
                "versions": {"torch": "2.13.0+cpu", "onnxruntime": loader}}

    folder = kb_root / "observations" / "compat"
    folder.mkdir()
    rows = [load("a", "ok", "1.31.1", writer_tf="4.44.2"), load("b", "fail", "1.31.1"),
            load("c", "fail", "1.19.2", writer_tf="4.44.2")]
    (folder / "loaded-on-2.13.0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    kept = _compat_records()
    assert [(r["key"], r["outcome"]) for r in kept] == [("a", "ok"), ("c", "fail")]
    # Between equals, the later run counts.
    rows.append(load("d", "fail", "1.31.1", writer_tf="4.44.2"))
    (folder / "loaded-on-2.13.0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [r["key"] for r in _compat_records()] == ["c", "d"]


def test_onnx_files_on_onnxruntime_releases_installed_on_their_own(kb_root):
    """A real old onnxruntime (1.16.3, with the numpy 1 it was built for) and the pinned one,
    each in a venv of its own without torch, run the ONNX files the pinned torch wrote."""
    r = cli(kb_root, "compat", "--torch", RELEASE, "--exporters", "onnx-legacy,onnx", "--onnxruntime", "1.16.3",
            "--onnxruntime", "1.31.1", EXAMPLE.name)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "onnxruntime 1.16.3: 0 written, 2 loaded" in r.stdout and "onnxruntime 1.31.1: 0 written, 2 loaded" in r.stdout
    old = _lines(kb_root / "observations" / "compat" / "onnxruntime-1.16.3.jsonl")
    new = _lines(kb_root / "observations" / "compat" / "onnxruntime-1.31.1.jsonl")
    assert {x["exporter"] for x in old} == {x["exporter"] for x in new} == {"onnx-legacy", "onnx"}
    assert all(x["runtime"] == "onnxruntime" and x["versions"]["numpy"].startswith("1.") for x in old)
    # onnxruntime 1.16 knows opsets up to 19 and IR versions up to 9, and says so.
    said = {x["exporter"]: x["message"] for x in old if x["outcome"] == "fail" and x["stage"] == "load"}
    assert "support for domain ai.onnx is till opset 19" in said["onnx-legacy"], old
    assert "Unsupported model IR version: 10, max supported IR version: 9" in said["onnx"], old
    assert all(x["outcome"] == "ok" for x in new), new
    assert not any(str(kb_root) in (x["message"] or "") for x in old)  # paths made portable
    assert not list((kb_root / "build" / "sweep").glob("onnxruntime-*/venv"))  # not kept

    again = cli(kb_root, "compat", "--exporters", "onnx-legacy,onnx", "--onnxruntime", "1.31.1", EXAMPLE.name)
    assert again.returncode == 0 and "onnxruntime 1.31.1: 0 written, 0 loaded" in again.stdout, again.stdout
    rows = [x for x in json.loads(cli(kb_root, "compat", "--json").stdout) if x["runtime"] == "onnxruntime"]
    assert sorted((x["loaded_on"], x["outcome"]) for x in rows) == [
        ("1.16.3", "fail"), ("1.16.3", "fail"), ("1.31.1", "ok"), ("1.31.1", "ok")]
    table = cli(kb_root, "compat").stdout
    assert "onnx-legacy: written on (rows), run on onnxruntime of its own (columns)" in table


def test_corpus_models_travel_like_entry_scripts(kb_root):
    """A corpus model (built from its config by the corpus's builder, imported by a generated
    case script) is written and loaded like an entry's script, and recorded as a corpus case."""
    sys.path.insert(0, str(REPO))
    from collectors.compat import corpus_cases, run_release

    cases = corpus_cases({"transformers": ("bert",), "exportdb": ("static_if",)})
    assert [(c.id, c.entry, c.source) for c in cases] == [("transformers:bert", None, "corpus"),
                                                          ("exportdb:static_if", None, "corpus")]
    assert len({c.case_hash for c in cases}) == 2
    report = run_release(cases, RELEASE, [RELEASE], exporters=["jit-trace", "onnx"])
    assert report.error is None and report.outcomes == {"write ok": 4, "load ok": 4}, report
    loaded = _lines(kb_root / "observations" / "compat" / f"loaded-on-{RELEASE}.jsonl")
    assert {(x["model"], x["source"], x["entry"]) for x in loaded} == {
        ("transformers:bert", "corpus", None), ("exportdb:static_if", "corpus", None)}
    rows = json.loads(cli(kb_root, "compat", "--json").stdout)
    assert {x["model"] for x in rows} == {"transformers:bert", "exportdb:static_if"}


def test_pte_files_run_on_the_executorch_runtime_of_the_loading_release(tmp_path, monkeypatch):
    """executorch writes a .pte like any other artifact; the loading release runs it on its
    own executorch runtime. Here the pinned release writes and loads (the diagonal)."""
    root = tmp_path / "kbroot"
    (root / "entries").mkdir(parents=True)
    shutil.copytree(REPO / "entries" / "export-non-module", root / "entries" / "export-non-module")
    r = cli(root, "compat", "--torch", RELEASE, "--exporters", "executorch")
    assert r.returncode == 0, r.stdout + r.stderr
    loaded = _lines(root / "observations" / "compat" / f"loaded-on-{RELEASE}.jsonl")
    assert [(x["exporter"], x["outcome"]) for x in loaded] == [("executorch", "ok")], loaded
    assert loaded[0]["versions"]["executorch"] and loaded[0]["writer_versions"]["executorch"]
    assert (root / "build" / "compat" / RELEASE / "export-non-module__fixed.py" / "executorch" / "model.pte").stat().st_size


def test_writing_another_exporter_later_keeps_the_case_s_inputs_and_outputs(kb_root):
    """A later run that writes one more exporter rewrites inputs.pt and expected.pt; the
    artifacts written before it must still agree with them (each build starts from one seed)."""
    import torch

    first = cli(kb_root, "compat", "--torch", RELEASE, "--exporters", "onnx-legacy", EXAMPLE.name)
    assert first.returncode == 0, first.stdout + first.stderr
    case_dir = kb_root / "build" / "compat" / RELEASE / f"{EXAMPLE.name}__fixed.py"
    before = torch.load(case_dir / "expected.pt"), torch.load(case_dir / "inputs.pt")
    later = cli(kb_root, "compat", "--torch", RELEASE, "--exporters", "onnx-legacy,jit-trace", EXAMPLE.name)
    assert later.returncode == 0, later.stdout + later.stderr
    after = torch.load(case_dir / "expected.pt"), torch.load(case_dir / "inputs.pt")
    torch.testing.assert_close(after, before, rtol=0, atol=0)
    loaded = _lines(kb_root / "observations" / "compat" / f"loaded-on-{RELEASE}.jsonl")
    assert sorted((x["exporter"], x["outcome"]) for x in loaded) == [("jit-trace", "ok"), ("onnx-legacy", "ok")]


def test_a_release_venv_gets_the_onnx_libraries_of_its_time_and_records_them(kb_root, monkeypatch):
    """An older release's venv takes onnx-ir and protobuf at the versions of its own time
    (sweep.CORPUS_LIBS), not today's, and its records say so: a write made without them
    is another run, not the same key."""
    sys.path.insert(0, str(REPO))
    from collectors import compat, sweep

    installed = []
    monkeypatch.setattr(sweep, "sweep_dir", lambda: kb_root / "build" / "sweep")
    monkeypatch.setattr(sweep, "create_venv", lambda version, folder: folder / "venv" / "bin" / "python")
    monkeypatch.setattr(sweep, "run_pip", lambda python, args, log: installed.append(args))
    monkeypatch.setattr(sweep, "probe_versions", lambda python: {"versions": {"torch": "2.9.1", "onnxscript": "0.5.4"}})
    monkeypatch.setattr(compat, "_run_worker", lambda python, command, spec, extra, timeout: [
        {"exporter": "onnx", "outcome": "ok"}] if command == "write" else [])
    case = compat.Case("demo/fixed.py", "demo", kb_root / "fixed.py", "0" * 16)
    report = compat.run_release([case], "2.9.1", ["2.9.1"], exporters=["onnx"])
    assert report.error is None and report.written == 1
    assert installed == [["install", "--only-binary", ":all:", f"onnx-ir=={sweep.CORPUS_LIBS['2.9.1']['onnx-ir']}"]]
    written = _lines(kb_root / "observations" / "compat" / "written-on-2.9.1.jsonl")
    assert written[0]["versions"] == {"torch": "2.9.1", "onnxscript": "0.5.4", "onnx-ir": "0.1.12"}
    plain = compat._write_key(case, "onnx", {"torch": "2.9.1", "onnxscript": "0.5.4"})
    assert written[0]["key"] != plain


def test_a_wrong_result_with_no_error_names_the_entry_that_lists_the_model_as_silent(kb_db):
    """A scripted ExportDB `decorator` loads everywhere and returns wrong values: no error
    text for a pattern, but jit-script-drops-decorator names that model among its silent
    ones, so the matrix links those cells to it (and to nothing else)."""
    import sqlite3

    from kb.catalogue import load_catalogue
    from kb.classify import silent_match

    entries = load_catalogue(REPO / "entries")
    rec = {"source": "corpus", "model": "exportdb:decorator", "exporter": "jit-script", "stage": "numeric"}
    assert silent_match(rec, entries) == "jit-script-drops-decorator"
    assert silent_match({**rec, "exporter": "jit-trace"}, entries) is None
    assert silent_match({**rec, "stage": "load"}, entries) is None
    assert silent_match({"source": "exportdb", "model": "decorator", "exporter": "jit-script", "stage": "numeric"},
                        entries) == "jit-script-drops-decorator"
    conn = sqlite3.connect(kb_db)
    try:
        rows = conn.execute("select outcome, stage, matched_entry from compat "
                            "where model = 'exportdb:decorator' and exporter = 'jit-script'").fetchall()
    finally:
        conn.close()
    failed = [r for r in rows if r[0] == "fail"]
    assert failed and all(r == ("fail", "numeric", "jit-script-drops-decorator") for r in failed)


def test_legacy_onnx_keyword_inputs_are_fed_by_forward_s_order_not_the_dict_s(tmp_path):
    """The legacy exporter lays keyword inputs out in forward's signature order. A case whose
    dict lists them otherwise (LayoutLM: attention_mask before bbox) must still feed each
    graph input its own tensor; named in dict order, bbox went to attention_mask's input and
    onnxruntime refused it ("Invalid rank for input: input_2")."""
    import torch

    sys.path.insert(0, str(REPO))
    from collectors.compat_worker import _onnx_export, _ort_run, legacy_input_names, tensors_of

    class Layout(torch.nn.Module):
        def forward(self, input_ids, bbox=None, attention_mask=None):
            return input_ids.float() * attention_mask + bbox.float().sum(-1)

    model = Layout().eval()
    kwargs = {"input_ids": torch.arange(6).reshape(2, 3), "attention_mask": torch.tensor([[1.0, 1, 0], [1, 0, 0]]),
              "bbox": torch.arange(24).reshape(2, 3, 4)}
    assert legacy_input_names(model, (), kwargs) == ["input_0", "input_2", "input_1"]
    path = tmp_path / "model.onnx"
    _onnx_export(model, (), kwargs, path, dynamo=False)
    feeds = [t.numpy() for t in tensors_of(((), kwargs))]
    (got,) = _ort_run(path, feeds)
    torch.testing.assert_close(torch.from_numpy(got), model(**kwargs))
