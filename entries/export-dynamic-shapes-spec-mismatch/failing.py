"""dynamic_shapes keyed by names that are not forward's argument names.

The spec was copied from a text model whose forward takes `input_ids`; this model's
arguments are `src` and `tgt`. When dynamic_shapes is a dict, torch.export matches its
keys to the argument names and refuses a spec whose keys differ.
"""
import torch
from torch import nn
from torch.export import Dim


class TinySeq2Seq(nn.Module):
    """Embeds source and target tokens; the target attends to the mean of the source."""

    def __init__(self, vocab: int = 20, dim: int = 8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, vocab)

    def forward(self, src, tgt, scale: float = 1.0):  # src (batch, src_len), tgt (batch, tgt_len)
        memory = self.embed(src).mean(dim=1, keepdim=True)
        return self.proj(self.embed(tgt) + memory) * scale


model = TinySeq2Seq().eval()
src = torch.randint(0, 20, (2, 7))
tgt = torch.randint(0, 20, (2, 12))
example_args = (src, tgt)
seq = Dim("seq", max=64)
dynamic_shapes = {"input_ids": {1: seq}, "tgt": {1: Dim("tgt_len", max=64)}}


def main():
    # fails: UserError: When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg names
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
