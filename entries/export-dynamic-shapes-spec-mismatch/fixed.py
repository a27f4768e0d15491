"""A spec that fits the inputs: forward's argument names, one Dim per independent length, None for the float."""
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
example_args = (src, tgt, 0.5)
dynamic_shapes = {
    "src": {1: Dim("src_len", max=64)},
    "tgt": {1: Dim("tgt_len", max=64)},  # its own Dim: the lengths are independent
    "scale": None,  # not a tensor
}


def main():
    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    other = (torch.randint(0, 20, (2, 5)), torch.randint(0, 20, (2, 30)), 0.5)
    for args in (example_args, other):
        with torch.no_grad():
            torch.testing.assert_close(exported.module()(*args), model(*args))
    print("ok: exported with independent src and tgt lengths; matches eager at 7/12 and 5/30 tokens")


if __name__ == "__main__":
    main()
