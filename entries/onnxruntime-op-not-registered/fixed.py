"""Write the op with ONNX's own operators, which every onnxruntime implements.

symbolic() describes what FusedSiLU computes, `Mul(x, Sigmoid(x))`, instead of naming
the kernel. The file loads in any onnxruntime and matches eager on another batch and
image size. (Keeping the custom op is the other way: register its kernel library with
`SessionOptions.register_custom_ops_library` in every process that loads the file.)
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch

import failing
from failing import Stem


def standard_symbolic(g, x):
    return g.op("Mul", x, g.op("Sigmoid", x))


failing.FusedSiLU.symbolic = staticmethod(standard_symbolic)
model = Stem().eval()
example_args = (torch.randn(1, 3, 64, 64),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stem.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False, input_names=["images"],
                          dynamic_axes={"images": {0: "batch", 2: "height", 3: "width"}})
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        images = torch.randn(2, 3, 96, 80)
        (got,) = session.run(None, {"images": images.numpy()})
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(images), rtol=1e-4, atol=1e-5)
    print("ok: the file loads in onnxruntime and matches eager on 2 x 3 x 96 x 80")


if __name__ == "__main__":
    main()
