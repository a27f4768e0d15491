"""A corpus source whose models misbehave on purpose, to test the collector's isolation.

Its models hang, segfault, allocate past the memory limit or cannot be built, the way
real models sometimes do. Loaded by the collector as `module:hostile_corpus`.
"""
import ctypes
import time

from collectors.corpus.base import Case, ModelSpec

BEHAVIOURS = ("fine", "hang", "segfault", "hog", "unbuildable")


def list_models():
    return [ModelSpec("hostile", name) for name in BEHAVIOURS]


def build(model_id):
    import torch

    if model_id == "unbuildable":
        raise RuntimeError("this model cannot be built: its config lacks 'hidden_size'")

    class Misbehaving(torch.nn.Module):
        def forward(self, x):
            if model_id == "hang":
                time.sleep(3600)
            elif model_id == "segfault":
                ctypes.string_at(0)  # reads address 0: SIGSEGV
            elif model_id == "hog":
                size = 6 << 30
                hog = ctypes.create_string_buffer(size)
                ctypes.memset(hog, 1, size)  # 6 GB, written so that it is really resident
            return x * 2

    return Case(Misbehaving().eval(), (torch.randn(2, 3),), definition={"behaviour": model_id})
