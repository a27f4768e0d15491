"""Fold the extra axis into the head axis, so attention sees 4-D inputs.

Attention treats every leading axis as a batch of independent problems, so merging
(heads, blocks) into one axis changes nothing: `flatten(1, 2)` before the call and
`unflatten` after give the same result as the 5-D call, and the ONNX translation gets
the four dimensions it handles. onnxruntime then matches eager, here and on another
batch size.
"""
import onnxruntime
import torch
import torch.nn.functional as F
from torch import nn


class BlockAttention(nn.Module):
    """Self-attention inside each block of tokens, as in NesT and Hiera."""

    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):  # (batch, blocks, tokens, dim)
        batch, blocks, tokens, dim = x.shape
        qkv = self.qkv(x).reshape(batch, blocks, tokens, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(3, 0, 4, 1, 2, 5).flatten(2, 3).unbind(0)  # each (batch, heads * blocks, tokens, head_dim)
        x = F.scaled_dot_product_attention(q, k, v).unflatten(1, (self.heads, blocks))
        return self.proj(x.permute(0, 2, 3, 1, 4).reshape(batch, blocks, tokens, dim))


model = BlockAttention().eval()
example_args = (torch.randn(2, 4, 9, 32),)


def main():
    program = torch.onnx.export(model, example_args, dynamo=True,
                                dynamic_shapes=({0: torch.export.Dim("batch")},))
    session = onnxruntime.InferenceSession(program.model_proto.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    for x in (example_args[0], torch.randn(3, 4, 9, 32)):
        (got,) = session.run(None, {name: x.numpy()})
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-5)
    print("ok: with the block axis folded into the heads, the ONNX model matches eager")


if __name__ == "__main__":
    main()
