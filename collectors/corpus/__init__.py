"""Corpus sources: real models built without downloaded weights."""
from __future__ import annotations

import importlib

SOURCE_MODULES = {
    "transformers": "collectors.corpus.transformers_models",
    "torchvision": "collectors.corpus.torchvision_models",
    "timm": "collectors.corpus.timm_models",
    "exportdb": "collectors.corpus.exportdb",
    "entry": "collectors.corpus.entries",
    "custom-ops": "collectors.corpus.custom_ops",
    "quantized": "collectors.corpus.quantized",
}


def source(name: str):
    """The module for a source name (imported lazily: each pulls in heavy libraries)."""
    try:
        return importlib.import_module(SOURCE_MODULES[name])
    except KeyError:
        raise ValueError(f"unknown corpus source '{name}'; known: {', '.join(SOURCE_MODULES)}") from None
