import shutil

import pytest

from kb.catalogue import EXPORTERS, EntryError, load_catalogue, load_entry
from conftest import REPO


def _edit(folder, old, new):
    path = folder / "entry.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_every_committed_entry_loads():
    entries = load_catalogue(REPO / "entries")
    assert len(entries) >= 16
    assert len({e.id for e in entries}) == len(entries)
    for e in entries:
        assert set(e.exporters) <= set(EXPORTERS)
        assert e.failing_cases[0] == "failing.py"


def test_example_entry_fields(kb_root):
    e = load_entry(kb_root / "entries" / "static-batch-size")
    assert e.id == "static-batch-size" and e.stage == "run" and e.reproduces
    assert e.exporters[0] == "export"
    assert len(e.compiled_patterns()) == len(e.patterns)


@pytest.mark.parametrize("field", ["id", "title", "rule", "exporters", "stage", "tags", "reproduces", "patterns", "cause", "fix"])
def test_missing_required_field_is_named(kb_root, field):
    folder = kb_root / "entries" / "static-batch-size"
    lines = (folder / "entry.toml").read_text().splitlines()
    out, skipping = [], False
    for line in lines:
        if line.startswith(f"{field} ="):
            skipping = line.rstrip().endswith(("[", '"""')) and not line.rstrip().endswith('"""",')
            continue
        if skipping:
            if line.startswith(("]", '"""')):
                skipping = False
            continue
        out.append(line)
    (folder / "entry.toml").write_text("\n".join(out) + "\n")
    with pytest.raises(EntryError, match=rf"missing required field\(s\): {field}"):
        load_entry(folder)


def test_duplicate_id_is_reported(kb_root):
    copy = kb_root / "entries" / "static-batch-size-copy"
    shutil.copytree(kb_root / "entries" / "static-batch-size", copy)
    with pytest.raises(EntryError, match="id 'static-batch-size' is a duplicate"):
        load_catalogue(kb_root / "entries")


def test_unknown_exporter_and_stage(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    _edit(folder, 'exporters = ["export", "export-strict"]', 'exporters = ["export", "tflite"]')
    with pytest.raises(EntryError, match=r"unknown exporter\(s\) \['tflite'\]"):
        load_entry(folder)


def test_bad_stage(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    _edit(folder, 'stage = "run"', 'stage = "running"')
    with pytest.raises(EntryError, match="stage 'running' is not one of"):
        load_entry(folder)


def test_a_save_load_entry_says_its_step_and_side(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    entry = load_entry(folder)
    assert (entry.artifact_step, entry.artifact_side) == ("run", "exporting")
    _edit(folder, 'side = "exporting"', 'side = "runtime"')
    with pytest.raises(EntryError, match="side 'runtime' is not one of exporting, loading"):
        load_entry(folder)
    # Without the table a run entry is fine; a save-load entry is not.
    _edit(folder, '[artifact]\nstep = "run"\nside = "runtime"\n', '')
    assert load_entry(folder).artifact_step == ""
    _edit(folder, 'stage = "run"', 'stage = "save-load"')
    with pytest.raises(EntryError, match=r"a save-load entry needs an \[artifact\] table"):
        load_entry(folder)


def test_tags_are_lower_case(kb_root):
    # Two entries tagged "ModelOutput" and "modeloutput" once gave the site one label for two tags.
    folder = kb_root / "entries" / "static-batch-size"
    _edit(folder, 'tags = ["dynamic-shapes", "guards", "batch"]', 'tags = ["dynamic-shapes", "Guards", "batch"]')
    with pytest.raises(EntryError, match=r"tag\(s\) \['Guards'\] must be lower case"):
        load_entry(folder)


def test_two_spellings_of_one_tag_label_are_refused(kb_root):
    # "dynamic_axes" beside another entry's "dynamic-axes" once left a page linking to a
    # label that the tag index defined under the other spelling.
    folder = kb_root / "entries" / "static-batch-size"
    shutil.copytree(REPO / "entries" / "data-dependent-guard", kb_root / "entries" / "data-dependent-guard")
    assert "guards" in load_entry(kb_root / "entries" / "data-dependent-guard").tags
    _edit(folder, 'tags = ["dynamic-shapes", "guards", "batch"]', 'tags = ["dynamic-shapes", "guards.", "batch"]')
    assert load_entry(folder).tags[1] == "guards."  # a valid tag on its own
    with pytest.raises(EntryError, match=r"tags guards, guards\. are spelt differently but get one label \('guards'\)"):
        load_catalogue(kb_root / "entries")


def test_issue_reference_must_name_repo_and_number(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    toml = (folder / "entry.toml").read_text()
    start = toml.index("issues = [")
    end = toml.index("]", start) + 1
    (folder / "entry.toml").write_text(toml[:start] + 'issues = ["https://github.com/pytorch/pytorch/issues/1"]' + toml[end:])
    with pytest.raises(EntryError, match="must look like 'owner/repo#123'"):
        load_entry(folder)


def test_pattern_with_lookahead_is_rejected_with_reason(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    _edit(folder, "patterns = [", "patterns = [\n    'Guard (?=failed)',")
    with pytest.raises(EntryError, match="not valid RE2 syntax"):
        load_entry(folder)


def test_missing_scripts(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    (folder / "fixed.py").unlink()
    with pytest.raises(EntryError, match="missing fixed.py"):
        load_entry(folder)
    (folder / "failing.py").unlink()
    with pytest.raises(EntryError, match="missing failing.py"):
        load_entry(folder)


def test_invalid_toml_is_reported_with_the_file(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    (folder / "entry.toml").write_text("id = \n")
    with pytest.raises(EntryError, match=r"entries/static-batch-size/entry.toml is not valid TOML"):
        load_entry(folder)


def test_every_broken_entry_is_listed_at_once(kb_root):
    for name in ("broken-one", "broken-two"):
        (kb_root / "entries" / name).mkdir()
    with pytest.raises(EntryError) as info:
        load_catalogue(kb_root / "entries")
    assert "broken-one: missing entry.toml" in str(info.value)
    assert "broken-two: missing entry.toml" in str(info.value)


def test_silent_models_are_for_numeric_entries_and_name_a_source(kb_root):
    folder = kb_root / "entries" / "transformers-sdpa-mask-skip"
    shutil.copytree(REPO / "entries" / folder.name, folder)
    e = load_entry(folder)
    assert e.explains_silently("transformers", "aimv2", "export", "numeric")
    assert not e.explains_silently("transformers", "aimv2", "export", "capture")  # has text: patterns decide
    assert not e.explains_silently("transformers", "aimv2", "jit-script", "numeric")  # not one of its exporters
    assert not e.explains_silently("transformers", "bert", "export", "numeric")
    _edit(folder, '"transformers/aimv2",', '"aimv2",')
    with pytest.raises(EntryError, match="silent_models entry 'aimv2' must be 'source/model'"):
        load_entry(folder)
    other = kb_root / "entries" / "static-batch-size"
    _edit(other, "patterns = [", 'silent_models = ["timm/resnet18"]\npatterns = [')
    with pytest.raises(EntryError, match="only for stage 'numeric' entries"):
        load_entry(other)


def test_silent_models_know_the_collectors_sources():
    # kb/ keeps its own copy of the source names because it never imports collectors.
    from collectors.corpus import SOURCE_MODULES
    from kb.catalogue import CORPUS_SOURCES

    assert set(CORPUS_SOURCES) == set(SOURCE_MODULES)


def _with_auto_fix(kb_root, table: str):
    folder = kb_root / "entries" / "static-batch-size"
    (folder / "entry.toml").write_text((folder / "entry.toml").read_text() + "\n[auto_fix]\n" + table)
    return folder


def test_an_automatic_fix_is_declared_in_the_entry(kb_root):
    folder = _with_auto_fix(kb_root, 'id = "dim-auto"\nsummary = "declare the dims Dim.AUTO"\n'
                                     'exporters = ["export-dynamic"]\ntransform = "auto-dims"\n')
    fix = load_entry(folder).auto_fix
    assert (fix.id, fix.exporters, fix.transform, fix.retry_as) == ("dim-auto", ("export-dynamic",), "auto-dims", None)
    assert load_entry(REPO / "entries" / "strict-untraceable-call").auto_fix.retry_as == "export"


@pytest.mark.parametrize("table, message", [
    ('id = "x"\nsummary = "s"\nexporters = ["export"]\n', "exactly one of 'transform'"),
    ('id = "x"\nsummary = "s"\nexporters = ["export"]\ntransform = "t"\nretry_as = "export"\n', "exactly one of"),
    ('id = "x"\nsummary = "s"\nexporters = ["exprot"]\ntransform = "t"\n', "unknown exporter(s) ['exprot']"),
    ('id = "x"\nsummary = "s"\nexporters = ["export"]\nretry_as = "strict"\n', "retry_as 'strict' is not an exporter"),
    ('id = "x"\nexporters = ["export"]\ntransform = "t"\n', "[auto_fix] misses summary"),
    ('id = "x"\nsummary = "s"\nexporters = ["export"]\ntransform = "t"\nentry = "other"\n', "unknown [auto_fix] key(s)"),
])
def test_a_broken_automatic_fix_is_reported(kb_root, table, message):
    folder = _with_auto_fix(kb_root, table)
    with pytest.raises(EntryError) as exc:
        load_entry(folder)
    assert message in str(exc.value) and "entries/static-batch-size" in str(exc.value)


_QUOTE = ('\n[[observed]]\nsource = "https://github.com/example/repo/issues/1"\ntorch = "1.12.1"\n'
          "text = '''\nRuntimeError: shape mismatch in the fused kernel\n'''\n")


def _unverified(kb_root, extra: str = _QUOTE):
    folder = kb_root / "entries" / "static-batch-size"
    _edit(folder, "reproduces = true", "reproduces = false\nverified = false")
    (folder / "entry.toml").write_text((folder / "entry.toml").read_text() + extra)
    return folder


def test_an_unverified_entry_carries_the_errors_it_quotes(kb_root):
    entry = load_entry(_unverified(kb_root))
    assert not entry.verified
    assert [(q.source, q.torch, q.text) for q in entry.quotes] == [
        ("https://github.com/example/repo/issues/1", "1.12.1", "RuntimeError: shape mismatch in the fused kernel")]
    # Every other entry is verified and quotes nothing: its errors come from its runs.
    plain = load_entry(REPO / "entries" / "static-batch-size")
    assert plain.verified and plain.quotes == ()


def test_only_unverified_entries_run_nowhere(kb_root):
    from kb.catalogue import runnable_here

    unverified = load_entry(_unverified(kb_root))
    verified = load_entry(REPO / "entries" / "static-batch-size")
    assert runnable_here([unverified, verified]) == [verified]


@pytest.mark.parametrize("extra, message", [
    ("", "needs at least one [[observed]] table"),
    ('\n[[observed]]\ntext = "RuntimeError: x"\n', "needs 'source'"),
    ('\n[[observed]]\nsource = "issue 1"\ntext = "RuntimeError: x"\n', "must be the URL of the report"),
    ('\n[[observed]]\nsource = "https://x.org/1"\ntext = "  "\n', "'text' must be a non-empty string"),
    ('\n[[observed]]\nsource = "https://x.org/1"\ntext = "E: x"\nurl = "https://x.org/1"\n', "unknown key(s) ['url']"),
    ('\n[[observed]]\nsource = "https://x.org/1"\ntext = "E: x"\ntorch = 1.12\n', "'torch' must be a string"),
])
def test_a_broken_quote_is_reported(kb_root, extra, message):
    with pytest.raises(EntryError) as exc:
        load_entry(_unverified(kb_root, extra))
    assert message in str(exc.value) and "entries/static-batch-size" in str(exc.value)


def test_quotes_are_only_for_unverified_entries_and_claim_no_reproduction(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    (folder / "entry.toml").write_text((folder / "entry.toml").read_text() + _QUOTE)
    with pytest.raises(EntryError, match=r"\[\[observed\]\] is only for an entry with `verified = false`"):
        load_entry(folder)
    _edit(folder, "reproduces = true", "reproduces = true\nverified = false")
    with pytest.raises(EntryError, match="cannot say `reproduces = true`"):
        load_entry(folder)
    _edit(folder, "verified = false", 'verified = "no"')
    with pytest.raises(EntryError, match="field 'verified' must be true or false"):
        load_entry(folder)


def test_a_pattern_context_must_name_one_of_the_entry_s_patterns_and_be_re2(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    text = (folder / "entry.toml").read_text()
    first = load_entry(folder).patterns[0]

    def context(key: str, value: str) -> None:
        table = f"[pattern_context]\n{key} = '{value}'\n\n[refs]"
        (folder / "entry.toml").write_text(text.replace("[refs]", table, 1))

    context(f"'{first}'", r"\bexported\b")
    assert load_entry(folder).pattern_context == {first: r"\bexported\b"}
    context("'no such pattern'", r"\bexported\b")
    with pytest.raises(EntryError, match="not one of the entry's patterns"):
        load_entry(folder)
    context(f"'{first}'", r"(?=exported)")
    with pytest.raises(EntryError, match=r"\[pattern_context\] expression .* is not valid RE2"):
        load_entry(folder)


def test_companions_are_exact_pins_for_scripts_of_the_entry(kb_root):
    folder = kb_root / "entries" / "static-batch-size"
    text = (folder / "entry.toml").read_text()

    def companions(body: str) -> None:
        (folder / "entry.toml").write_text(text.replace("[refs]", f"[companions]\n{body}\n\n[refs]", 1))

    companions('"failing.py" = ["ethos-u-vela==4.3.0", "lxml==6.1.3"]')
    assert load_entry(folder).companions == {"failing.py": ("ethos-u-vela==4.3.0", "lxml==6.1.3")}
    refused = {
        '"other.py" = ["lxml==6.1.3"]': "names 'other.py', which is not a script",
        '"fixed.py" = ["ethos-u-vela>=4.4"]': "must be exact pins",
        '"fixed.py" = ["ethos_u_vela==4.4.0", "ethos-u-vela==5.1.0"]': "pins one package twice",
        '"fixed.py" = []': "non-empty list of pins",
    }
    for body, message in refused.items():
        companions(body)
        with pytest.raises(EntryError, match=message):
            load_entry(folder)
