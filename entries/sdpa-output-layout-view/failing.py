"""The ONNX exporter fails after attention whose mask is computed from trainable parameters.

The block is the attention of BEiT and Swin: a learned table of relative position biases
is gathered into a (heads, tokens, tokens) tensor and passed to
`F.scaled_dot_product_attention` as `attn_mask`. Exported the usual way, with gradients
enabled and parameters that require grad, `torch.onnx.export(..., dynamo=True)` stops in
its decomposition step with `Cannot view a tensor with shape ... and strides ...`.
"""
import torch
import torch.nn.functional as F
from torch import nn


class RelPosAttention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4, side: int = 3):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        tokens = side * side
        # One learned bias per head and relative offset, as in BEiT / Swin.
        self.bias_table = nn.Parameter(0.02 * torch.randn((2 * side - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (side - 1)
        self.register_buffer("rel_index", (rel[..., 0] * (2 * side - 1) + rel[..., 1]).reshape(tokens * tokens))
        self.tokens = tokens

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        bias = self.bias_table[self.rel_index].reshape(N, N, self.heads).permute(2, 0, 1).unsqueeze(0)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        return self.proj(out.transpose(1, 2).reshape(B, N, C))


model = RelPosAttention().eval()
example_args = (torch.randn(2, 9, 32),)


def main():
    torch.onnx.export(model, example_args, dynamo=True)  # fails in step 2/3


if __name__ == "__main__":
    main()
