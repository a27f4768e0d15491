"""A corpus source whose model's worker dies between two attempts, after building fine.

A real worker can end there too: killed at its time or memory budget after a slow or
leaky attempt, or an error while forking the next one. The collector must then record
the attempt that ran, no record at all for the ones that never ran, and say so in its
summary. Loaded by the collector as `module:fragile_worker_corpus`.
"""
import os

from collectors.corpus.base import Case, ModelSpec

MODELS = ("steady", "dies-after-one-attempt")


def list_models():
    return [ModelSpec("fragile", name) for name in MODELS]


def build(model_id):
    import torch

    if model_id == "dies-after-one-attempt":
        forks = []

        def before_fork():
            # Runs in the model's worker before it forks an attempt: the first goes
            # ahead, the second finds its worker gone.
            forks.append(1)
            if len(forks) == 2:
                os._exit(3)

        os.register_at_fork(before=before_fork)

    class Doubler(torch.nn.Module):
        def forward(self, x):
            return x * 2

    return Case(Doubler().eval(), (torch.randn(2, 3),), definition={"model": model_id})
