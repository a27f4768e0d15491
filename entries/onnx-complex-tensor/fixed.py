"""Rotate with real tensors: (a + ib)(cos t + i sin t) written out with cos and sin.

For a feature pair (a, b) at positions (2k, 2k+1) and angle t, the complex product is
(a cos t - b sin t, a sin t + b cos t). Computing cos and sin of the angles, applying
that formula to the even and odd features and interleaving the results again is the
same computation as the complex version, with float32 tensors only. Both ONNX
exporters translate it; onnxruntime's results match the complex model in eager.
"""
import io

import onnxruntime as ort
import torch
from torch import nn


class RotaryQuery(nn.Module):
    """Query projection with rotary embedding computed in complex numbers (failing.py's model)."""

    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.q = nn.Linear(dim, dim)

    def forward(self, x, position_ids):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        freqs = position_ids[..., None].float() * self.inv_freq
        freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
        q_complex = torch.view_as_complex(q.float().reshape(b, self.heads, s, -1, 2))
        rotated = q_complex * freqs_cis.unsqueeze(1)
        return torch.view_as_real(rotated).flatten(3).type_as(x)


class RealRotaryQuery(RotaryQuery):
    """The same rotation with cos/sin and the even/odd features: no complex tensor anywhere."""

    def forward(self, x, position_ids):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2).float()
        freqs = position_ids[..., None].float() * self.inv_freq  # (b, s, head_dim / 2)
        cos, sin = freqs.cos().unsqueeze(1), freqs.sin().unsqueeze(1)  # broadcast over the heads
        a, bb = q[..., 0::2], q[..., 1::2]  # real and imaginary parts of each pair
        rotated = torch.stack([a * cos - bb * sin, a * sin + bb * cos], dim=-1)
        return rotated.flatten(3).type_as(x)  # interleave back: (a', b') at (2k, 2k+1)


original = RotaryQuery().eval()  # the complex version, for the comparison
model = RealRotaryQuery().eval()
model.load_state_dict(original.state_dict())
example_args = (torch.randn(2, 6, 16), torch.arange(6).expand(2, 6))


def run_onnx(data: bytes, args):
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["x", "position_ids"]
    feeds = {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}
    return torch.from_numpy(session.run(None, feeds)[0])


def main():
    program = torch.onnx.export(model, example_args, dynamo=True)  # the default exporter
    legacy = io.BytesIO()
    torch.onnx.export(model, example_args, legacy, dynamo=False, input_names=["x", "position_ids"])

    # New inputs: another batch and positions that do not start at 0 (as with a KV cache).
    args = (torch.randn(2, 6, 16), torch.arange(10, 16).expand(2, 6))
    with torch.no_grad():
        expected = original(*args)
        torch.testing.assert_close(model(*args), expected)
    torch.testing.assert_close(run_onnx(program.model_proto.SerializeToString(), args), expected)
    torch.testing.assert_close(run_onnx(legacy.getvalue(), args), expected)
    print("ok: the real-arithmetic rotary exports with dynamo=True and dynamo=False, "
          "and onnxruntime matches the complex eager model")


if __name__ == "__main__":
    main()
