"""The ONNX exporters cannot translate every operator on complex tensors.

Rotary position embedding written with complex numbers (as in LLaMA-derived code and
transformers' DeepSeek-V2 and Llama 4) builds a table of unit complex numbers with
`torch.polar`, broadcasts it over the heads with `unsqueeze` and multiplies it with the
query viewed as complex (`view_as_complex`). ONNX has no complex arithmetic, so the
dynamo-based exporter (`torch.onnx.export(..., dynamo=True)`, the default) stores each
complex tensor as a real one with a trailing dimension of 2 and needs a complex-aware
translation for every operator that touches one. It has them for `mul`, `view_as_real`
and a few shape ops, but not for `unsqueeze`, so step 3/3 stops with
"No decompositions registered for the complex-valued input".
"""
import io

import torch
from torch import nn


class RotaryQuery(nn.Module):
    """Query projection with rotary embedding computed in complex numbers."""

    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.q = nn.Linear(dim, dim)

    def forward(self, x, position_ids):  # x: (batch, tokens, dim), position_ids: (batch, tokens)
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)  # (b, heads, s, head_dim)
        freqs = position_ids[..., None].float() * self.inv_freq  # (b, s, head_dim / 2)
        freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
        q_complex = torch.view_as_complex(q.float().reshape(b, self.heads, s, -1, 2))
        rotated = q_complex * freqs_cis.unsqueeze(1)  # broadcast over the heads
        return torch.view_as_real(rotated).flatten(3).type_as(x)


model = RotaryQuery().eval()
example_args = (torch.randn(2, 6, 16), torch.arange(6).expand(2, 6))


def main():
    # fails: DispatchError: No ONNX function found for <OpOverload(op='aten.unsqueeze', ...)>
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=True)


if __name__ == "__main__":
    main()
