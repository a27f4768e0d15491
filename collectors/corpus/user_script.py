"""A user's own model for `exportkb diagnose`: a Python file shaped like an entry's script.

The file defines `model` and `example_args` at module level, and may define
`example_kwargs` and `dynamic_shapes`. It is imported only inside the diagnose worker,
never in the command's own process: a file that hangs, crashes or allocates without end
while it is imported costs that worker, not the command.

A file that cannot be used (it does not import, lacks `model`, or its model already fails
in eager mode) raises UnusableScript, whose `details` is the user's own traceback with
exportkb's frames left out: that is the text the user needs to fix their file.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path

from .base import Case, ModelSpec
from .inputs import describe, describe_dynamic, run_eager

SOURCE = "user"
_MODULE_NAME = "exportkb_user_model"


class UnusableScript(ValueError):
    """The user's file cannot give a model to export; `details` is what to show them."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


def users_traceback(exc: BaseException, path: Path) -> str:
    """The exception as Python would print it for `python PATH`: from the user's first frame on.

    The frames before it are exportkb's and importlib's, which only hide where the
    user's own code went wrong."""
    frames = traceback.extract_tb(exc.__traceback__)
    first = next((i for i, f in enumerate(frames) if Path(f.filename).resolve() == path.resolve()), None)
    if first is None:  # the user's code is not on the stack (a torch module called directly)
        ours = Path(__file__).resolve().parents[1]
        first = next((i for i, f in enumerate(frames) if not Path(f.filename).resolve().is_relative_to(ours)), 0)
    lines = ["Traceback (most recent call last):\n"]
    lines += traceback.format_list(frames[first:])
    lines += traceback.format_exception_only(exc)
    return "".join(lines)


def list_models() -> list[ModelSpec]:
    return []  # a user's file is named on the command line, never listed


def spec_for(path: Path) -> ModelSpec:
    return ModelSpec(SOURCE, str(Path(path).resolve()), "user")


def build(model_id: str) -> Case:
    path = Path(model_id)
    code = path.read_bytes()
    spec = importlib.util.spec_from_file_location(_MODULE_NAME, path)
    if spec is None or spec.loader is None:
        raise UnusableScript(f"{path} is not a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[_MODULE_NAME] = module  # dataclasses and pickling look the module up
    sys.path.insert(0, str(path.parent))  # as `python PATH` would: its neighbours import
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt in a user file too
        raise UnusableScript(f"importing {path.name} raised {type(exc).__name__}", users_traceback(exc, path)) from None
    missing = [name for name in ("model", "example_args") if not hasattr(module, name)]
    if missing:
        raise UnusableScript(
            f"{path.name} does not define {' and '.join(f'`{m}`' for m in missing)} at module level",
            "diagnose imports the file and exports `model` called with `example_args` (a tuple), and\n"
            "`example_kwargs` (a dict) and `dynamic_shapes` if the file defines them. Put the export\n"
            "call itself, if the file has one, under `if __name__ == \"__main__\":`.")
    model = module.model
    if hasattr(model, "eval"):
        model.eval()
    try:
        args = tuple(module.example_args)
        kwargs = dict(getattr(module, "example_kwargs", None) or {})
    except TypeError as exc:
        raise UnusableScript(f"{path.name}: `example_args` must be a tuple and `example_kwargs` a dict ({exc})") from None
    try:
        run_eager(model, args, kwargs)
    except Exception as exc:
        # Every exporter would fail on a model that does not run at all; say so once.
        raise UnusableScript(f"the model in {path.name} fails in eager mode on example_args: "
                             f"{type(exc).__name__}", users_traceback(exc, path)) from None
    alt_args = getattr(module, "alt_args", None)
    alt_kwargs = getattr(module, "alt_kwargs", None)
    if alt_args is not None:
        alt_args, alt_kwargs = tuple(alt_args), dict(alt_kwargs or kwargs)
    dynamic = getattr(module, "dynamic_shapes", None)
    return Case(model=model, args=args, kwargs=kwargs, dynamic_shapes=dynamic, alt_args=alt_args,
                alt_kwargs=alt_kwargs,
                definition={"source": SOURCE, "file": path.name,
                            "code_sha256": hashlib.sha256(code).hexdigest()[:16], "inputs": describe(args),
                            "kwargs": describe(kwargs), "dynamic_shapes": describe_dynamic(dynamic)})
