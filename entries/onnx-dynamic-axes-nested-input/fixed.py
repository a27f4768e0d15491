"""Give `dynamic_shapes` in the shape of the inputs: a list for the list, one `Dim` shared.

`dynamic_shapes` follows the arguments' own structure, so the list of feature maps gets a
list of two specs, and the same `Dim("batch")` on all three tensors says that their
batches are equal. The ONNX model then takes any batch, and onnxruntime matches eager
on a batch size that the export never saw.
"""
import tempfile
from pathlib import Path

import onnxruntime
import torch
from torch import nn
from torch.export import Dim


class MultiScaleHead(nn.Module):
    def __init__(self, channels: int = 8):
        super().__init__()
        self.score = nn.Linear(channels, 1)

    def forward(self, feats, sizes):
        pooled = sum(f.mean(dim=(2, 3)) for f in feats)
        return self.score(pooled) * sizes[:, :1]


model = MultiScaleHead().eval()
example_args = ([torch.randn(2, 8, 16, 16), torch.randn(2, 8, 8, 8)], torch.ones(2, 2))


def main():
    batch = Dim("batch")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "head.onnx")
        program = torch.onnx.export(model, example_args, dynamo=True,
                                    dynamic_shapes={"feats": [{0: batch}, {0: batch}], "sizes": {0: batch}})
        program.save(path)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        feats, sizes = [torch.randn(5, 8, 16, 16), torch.randn(5, 8, 8, 8)], torch.rand(5, 2)
        names = [i.name for i in session.get_inputs()]
        (got,) = session.run(None, dict(zip(names, [t.numpy() for t in (*feats, sizes)])))
        torch.testing.assert_close(torch.from_numpy(got), model(feats, sizes), rtol=1e-5, atol=1e-6)
    print(f"ok: exported with dynamic_shapes on torch {torch.__version__}; onnxruntime ran batch 5 "
          f"({', '.join(names)}) and matched eager")


if __name__ == "__main__":
    main()
