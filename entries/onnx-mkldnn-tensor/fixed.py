"""Export the dense model; keep the MKL-DNN layout for eager CPU inference only.

The layout conversions are an optimisation of eager PyTorch on CPU, not part of what the
model computes, and an ONNX runtime picks its own CPU kernels. So the export takes the
model without them: the same weights, with the conversion turned off. onnxruntime then
gives what the MKL-DNN model gives in eager.
"""
import tempfile
from pathlib import Path

import onnxruntime
import torch
from torch import nn


class MkldnnConvNet(nn.Module):
    def __init__(self, use_mkldnn: bool = True):
        super().__init__()
        self.use_mkldnn = use_mkldnn
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3))

    def forward(self, x):
        if self.use_mkldnn:
            return self.body(x.to_mkldnn()).to_dense()
        return self.body(x)


model = MkldnnConvNet().eval()
example_args = (torch.randn(1, 3, 16, 16),)


def main():
    model.use_mkldnn = False  # the dense path for the export
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "convnet.onnx")
        torch.onnx.export(model, example_args, dynamo=True).save(path)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        model.use_mkldnn = True  # what eager inference keeps using
        x = torch.randn(1, 3, 16, 16)
        (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-5)
    print(f"ok: the dense path exported on torch {torch.__version__}; onnxruntime matched the MKL-DNN model in eager")


if __name__ == "__main__":
    main()
