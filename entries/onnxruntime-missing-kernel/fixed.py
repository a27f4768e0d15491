"""Export the model in float32 for onnxruntime's CPU provider.

The weights are cast to float32 and the inputs too, so every node of the graph has a
CPU kernel. The session runs and matches the bfloat16 model within bfloat16's precision.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class GatedMLP(nn.Module):
    def __init__(self, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(nn.functional.silu(self.gate(x)) * self.up(x))


torch.manual_seed(0)
trained = GatedMLP().to(torch.bfloat16).eval()  # the model as it was loaded
model = GatedMLP().eval()
model.load_state_dict({k: v.float() for k, v in trained.state_dict().items()})  # float32 for the CPU runtime
example_args = (torch.randn(2, 5, 16),)


def main():
    path = Path(tempfile.mkdtemp()) / "mlp.onnx"
    torch.onnx.export(model, example_args, dynamo=True).save(str(path))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = torch.randn(2, 5, 16)  # fresh values, the shape it was exported with
    (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    with torch.no_grad():
        want = trained(x.to(torch.bfloat16)).float()
    torch.testing.assert_close(torch.from_numpy(got), want, rtol=2e-2, atol=2e-2)  # bfloat16 keeps 8 bits
    print("ok: the float32 graph runs in onnxruntime and matches the bfloat16 model")


if __name__ == "__main__":
    main()
