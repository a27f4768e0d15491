"""Rotate with real arithmetic: (a + ib)(cos + i sin) written out with cos and sin tables.

For a feature pair (a, b) and angle t, the complex product gives
(a cos t - b sin t, a sin t + b cos t). Precomputing cos and sin as real buffers and
applying that formula on the even/odd features is the same computation with float32
tensors only, which every exporter handles. The ExecuTorch program matches eager and
the complex formulation.
"""
import tempfile
from pathlib import Path

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


class RealRotaryQuery(nn.Module):
    """The same rotation with cos/sin tables instead of complex numbers."""

    def __init__(self, dim: int = 8, max_len: int = 32):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        angles = torch.outer(torch.arange(max_len).float(), inv_freq)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())
        self.q = nn.Linear(dim, dim)

    def forward(self, x):  # (batch, tokens, dim)
        q = self.q(x).float()
        a, b = q[..., 0::2], q[..., 1::2]
        cos, sin = self.cos[: x.shape[1]], self.sin[: x.shape[1]]
        rotated = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1)
        return rotated.flatten(-2).type_as(x)


original = RotaryQuery().eval()  # the complex version, for the comparison
model = RealRotaryQuery().eval()
model.q.load_state_dict(original.q.state_dict())
example_args = (torch.randn(2, 6, 8),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        x = torch.randn(2, 6, 8)
        (out,) = method.execute([x])

    with torch.no_grad():
        torch.testing.assert_close(out, model(x))
        torch.testing.assert_close(out, original(x))
    print("ok: the real-arithmetic rotary runs in ExecuTorch and matches the complex eager model")


if __name__ == "__main__":
    main()
