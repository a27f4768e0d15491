"""One Dim object used for two dimensions whose example sizes differ.

Using the same `Dim` for `src` and `tgt` declares their lengths equal. The example
source has 7 tokens and the target 12, so export rejects the spec.
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
dynamic_shapes = {"src": {1: seq}, "tgt": {1: seq}}


def main():
    # fails: UserError: L['tgt'].size()[1] = 12 is not equal to L['src'].size()[1] = 7
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
