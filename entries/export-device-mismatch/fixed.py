"""Create tensors in forward on the device of the input, not on a hard-coded one.

`torch.arange(seq_len, device=ids.device)` puts the position ids wherever the model is
called: on the CPU here, on the GPU when the model and its inputs are moved there. The
export succeeds and the exported program matches eager.
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
        position_ids = torch.arange(ids.shape[1], device=ids.device)
        return self.proj(self.tokens(ids) + self.positions(position_ids))


model = TextEncoder().eval()
example_args = (torch.randint(0, 100, (2, 8)),)


def main():
    exported = torch.export.export(model, example_args)
    ids = torch.randint(0, 100, (2, 8))
    with torch.no_grad():
        torch.testing.assert_close(exported.module()(ids), model(ids))
    print("ok: with the position ids on the input's device, the exported program matches eager")


if __name__ == "__main__":
    main()
