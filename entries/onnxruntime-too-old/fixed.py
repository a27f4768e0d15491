"""Export with versions the target onnxruntime reads, then load, run and compare with eager.

The target here is an onnxruntime that reads at most IR 9 and ai.onnx opset 15, the
limits printed in the train reports. On torch 2.13 the legacy exporter with
`opset_version=15` writes IR 8 and opset 15; the script checks both stamps against those
limits, then runs the file in onnxruntime and compares it with eager.
"""
import tempfile
from pathlib import Path

import onnx
import onnxruntime
import torch
from torch import nn

TARGET_MAX_IR, TARGET_MAX_OPSET = 9, 15  # what the old runtime reads


class TinyClassifier(nn.Module):
    def __init__(self, in_dim: int = 16, hidden: int = 32, classes: int = 4):
        super().__init__()
        self.hidden = nn.Linear(in_dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


torch.manual_seed(0)
model = TinyClassifier().eval()
example_args = (torch.randn(4, 16),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False, opset_version=TARGET_MAX_OPSET,
                          input_names=["x"], dynamic_axes={"x": {0: "batch"}})
        proto = onnx.load(path)
        opset = next(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx"))
        assert proto.ir_version <= TARGET_MAX_IR, f"IR version {proto.ir_version} > {TARGET_MAX_IR}"
        assert opset <= TARGET_MAX_OPSET, f"opset {opset} > {TARGET_MAX_OPSET}"
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        x = torch.randn(7, 16)
        (got,) = session.run(None, {"x": x.numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-5, atol=1e-5)
    print(f"ok: exported as IR {proto.ir_version}, opset {opset}; onnxruntime matches eager on a batch of 7")


if __name__ == "__main__":
    main()
