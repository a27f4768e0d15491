"""ExecuTorch refuses complex tensors: rotary embedding written with view_as_complex.

LLaMA-style code rotates query features by multiplying them, viewed as complex numbers,
with a table of unit complex numbers (`freqs_cis`). torch.export captures this as
`view_as_complex`, a complex64 `mul` and `view_as_real`. ExecuTorch's Edge dialect
verifier only admits the dtypes its kernels are declared for, which exclude complex
ones, so lowering stops with a SpecViolationError about the complex `mul`.
"""
import torch
from torch import nn


class RotaryQuery(nn.Module):
    """Query projection with LLaMA-style rotary embedding computed in complex numbers."""

    def __init__(self, dim: int = 8, max_len: int = 32):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        angles = torch.outer(torch.arange(max_len).float(), inv_freq)
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles))  # complex64
        self.q = nn.Linear(dim, dim)

    def forward(self, x):  # (batch, tokens, dim)
        q = self.q(x)
        q_complex = torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
        rotated = q_complex * self.freqs_cis[: x.shape[1]]
        return torch.view_as_real(rotated).flatten(-2).type_as(x)


model = RotaryQuery().eval()
example_args = (torch.randn(2, 6, 8),)


def main():
    from executorch.exir import to_edge_transform_and_lower

    with torch.no_grad():
        exported = torch.export.export(model, example_args)
        # fails: SpecViolationError: These operators are taking Tensor inputs with mismatched dtypes
        to_edge_transform_and_lower(exported)


if __name__ == "__main__":
    main()
