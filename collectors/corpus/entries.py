"""The knowledge base's own cases: every entry's `failing*.py` and `fixed.py`.

Each script defines `model`, `example_args` and optionally `example_kwargs` and
`dynamic_shapes` at module level, with the export itself under `main()`, so importing
the script builds the case without running it. Running the corpus over these scripts
checks, with every exporter, the cases each entry explains.
"""
from __future__ import annotations

import hashlib
import importlib.util
import re
import sys

from .base import Case, ModelSpec
from .inputs import BuildError, check_eager, describe, describe_dynamic

SOURCE = "entry"


def _catalogue():
    from kb.catalogue import load_catalogue
    from kb.paths import entries_dir

    return load_catalogue(entries_dir())


def list_models() -> list[ModelSpec]:
    return [
        ModelSpec(SOURCE, f"{entry.id}/{script}", entry.id)
        for entry in _catalogue()
        for script in (*entry.failing_cases, entry.fixed_case)
    ]


def _load_script(path, module_name: str):
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look the module up
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise BuildError(f"importing {path.name} fails: {type(exc).__name__}: {exc}") from exc
    return module


def build(model_id: str) -> Case:
    entry_id, _, script = model_id.partition("/")
    entries = {e.id: e for e in _catalogue()}
    entry = entries.get(entry_id)
    if entry is None or script not in (*entry.failing_cases, entry.fixed_case):
        raise BuildError(f"no entry case '{model_id}' (expected '<entry-id>/<failing*.py|fixed.py>')")
    path = entry.folder / script
    code = path.read_text(encoding="utf-8")
    module = _load_script(path, "exportkb_entry_" + re.sub(r"\W", "_", model_id))
    missing = [name for name in ("model", "example_args") if not hasattr(module, name)]
    if missing:
        raise BuildError(f"{model_id} does not define {', '.join(missing)} at module level")
    model = module.model
    if hasattr(model, "eval"):
        model.eval()
    args = tuple(module.example_args)
    kwargs = dict(getattr(module, "example_kwargs", None) or {})
    check_eager(model, args, kwargs)
    # A script may name other inputs its export must accept; none do this yet.
    alt_args = getattr(module, "alt_args", None)
    alt_kwargs = getattr(module, "alt_kwargs", None)
    if alt_args is not None:
        alt_args, alt_kwargs = tuple(alt_args), dict(alt_kwargs or kwargs)
    return Case(
        model=model, args=args, kwargs=kwargs, dynamic_shapes=getattr(module, "dynamic_shapes", None),
        alt_args=alt_args, alt_kwargs=alt_kwargs,
        definition={
            "source": SOURCE, "entry": entry_id, "script": script,
            "exporter": entry.exporter_for(script), "code_sha256": hashlib.sha256(code.encode()).hexdigest()[:16],
            "inputs": describe(args), "kwargs": describe(kwargs),
            "dynamic_shapes": describe_dynamic(getattr(module, "dynamic_shapes", None)),
        },
    )
