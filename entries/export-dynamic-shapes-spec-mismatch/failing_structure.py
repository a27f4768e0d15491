"""A dynamic_shapes tuple with fewer elements than the inputs.

Given as a tuple or list, dynamic_shapes must have one element per positional input,
with None for the inputs that stay static.
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
dynamic_shapes = ({1: Dim("src_len", max=64)},)


def main():
    # fails: UserError: Detected mismatch between the structure of `inputs` and `dynamic_shapes`
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
