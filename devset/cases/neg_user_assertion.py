"""expected: none
A user-written assert in a data loader fails on an input of the wrong length before the model is exported.
"""
import torch
from torch import nn


def load_batch(token_ids, max_len=8):
    assert len(token_ids) <= max_len, f"sequence too long: {len(token_ids)} > {max_len}"
    return torch.tensor([token_ids])


model = nn.Embedding(100, 16).eval()
batch = load_batch(list(range(12)))
torch.export.export(model, (batch,))
