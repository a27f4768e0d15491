"""A tensor created in forward with a hard-coded device="cuda" meets CPU inputs.

The text encoder adds learned position embeddings, and builds the position ids with
`torch.arange(seq_len, device="cuda")`. Export traces with fake tensors, so it does not
need a GPU to create that tensor, but the embedding lookup then mixes the CUDA position
ids with the CPU weights and inputs, and tracing stops with a device mismatch.
"""
import torch
from torch import nn


class TextEncoder(nn.Module):
    def __init__(self, vocab: int = 100, max_len: int = 32, dim: int = 16):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(max_len, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        position_ids = torch.arange(ids.shape[1], device="cuda")  # the model's author had a GPU
        return self.proj(self.tokens(ids) + self.positions(position_ids))


model = TextEncoder().eval()
example_args = (torch.randint(0, 100, (2, 8)),)


def main():
    torch.export.export(model, example_args)  # fails: cuda:0 position ids, cpu weights


if __name__ == "__main__":
    main()
