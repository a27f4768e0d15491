"""Give the exporter a translation for aten._is_all_true.

`custom_translation_table` maps the operator to a small ONNX function ("the minimum of
the booleans, as integers, is 1"). The model code is left as it is. The check itself
does not survive in the ONNX model: the exporter drops the assertion that used it, and
the unused result is then removed.
"""
import tempfile
from pathlib import Path

import onnx
import onnxruntime as ort
import torch
from onnxscript import opset18 as op
from torch import nn


class MaskedMeanPool(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        torch._check_tensor_all((lengths > 0) & (lengths <= x.shape[1]))
        positions = torch.arange(x.shape[1], device=x.device)
        mask = (positions[None, :] < lengths[:, None]).to(x.dtype)
        summed = (self.proj(x) * mask[..., None]).sum(dim=1)
        return summed / lengths[:, None].to(x.dtype)


model = MaskedMeanPool().eval()
example_args = (torch.randn(3, 10, 16), torch.tensor([10, 4, 7]))


def is_all_true(cond):
    as_int = op.Cast(cond, to=onnx.TensorProto.INT64)
    return op.Cast(op.ReduceMin(as_int, keepdims=0), to=onnx.TensorProto.BOOL)


def main():
    program = torch.onnx.export(model, example_args, dynamo=True,
                                custom_translation_table={torch.ops.aten._is_all_true.default: is_all_true})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        x, lengths = torch.randn(3, 10, 16), torch.tensor([2, 9, 5])
        names = [i.name for i in session.get_inputs()]
        (got,) = session.run(None, dict(zip(names, (x.numpy(), lengths.numpy()))))
    with torch.no_grad():
        expected = model(x, lengths)
    torch.testing.assert_close(torch.from_numpy(got), expected, rtol=1e-4, atol=1e-4)
    print("ok: with a translation for aten._is_all_true the model exports and matches eager in onnxruntime")


if __name__ == "__main__":
    main()
