"""Library versions for observations, read from package metadata (no imports of torch)."""
from __future__ import annotations

import platform
import sys
from importlib import metadata

from kb.observations import VERSIONED_LIBS


def _installed(libs) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for lib in libs:
        try:
            found[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            found[lib] = None
    return found


def library_versions(extra: tuple[str, ...] = ()) -> dict[str, str | None]:
    """VERSIONED_LIBS, plus `extra` (an entry's ENTRY_LIBS, kb.catalogue.Entry.libraries)."""
    return _installed((*VERSIONED_LIBS, *extra))


def environment() -> dict[str, str]:
    return {"python": platform.python_version(), "platform": f"{sys.platform}-{platform.machine()}"}


# Libraries the corpus's sources build models with, and onnx-ir (collectors.sweep.ONNX_IR). Not part of an observation's key
# (adding them would re-key every recorded attempt), but recorded beside it on runs of
# other releases, where they differ from the project's pins.
MODEL_LIBS = ("torchvision", "timm", "numpy", "onnx-ir")


def model_lib_versions() -> dict[str, str | None]:
    return _installed(MODEL_LIBS)
