"""The same model lowered outside torch.no_grad(): an autograd error on the complex view.

With parameters that require grad, the Edge conversion reruns `view_as_complex` as its
copy variant under autograd, and autograd has no formula for that copy's complex
output. This is the error seen first when a model is lowered as it comes, in eval mode
but without `no_grad`.
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

    exported = torch.export.export(model, example_args)
    # fails: RuntimeError: view_as_complex_copy does not support automatic differentiation
    # for outputs with complex dtype.
    to_edge_transform_and_lower(exported)


if __name__ == "__main__":
    main()
