"""A corpus source of quick, well-behaved models for the kill-and-resume test."""
import time

from collectors.corpus.base import Case, ModelSpec

COUNT = 12


def list_models():
    return [ModelSpec("quick", f"m{i:02d}") for i in range(COUNT)]


def build(model_id):
    import torch

    time.sleep(0.3)  # long enough that a kill lands in the middle of the run
    layer = torch.nn.Linear(3, 3)
    return Case(layer.eval(), (torch.randn(2, 3),), definition={"id": model_id})
