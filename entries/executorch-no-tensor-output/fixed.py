"""Return the number as a 0-d tensor.

`torch.full((), x.shape[1] + 1)` is computed by an operator in the program, so the
output is a tensor that memory planning allocates. With the width declared dynamic the
program computes the value on each call.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class ScalarOutput(nn.Module):
    def forward(self, x):
        return torch.full((), x.shape[1] + 1)


model = ScalarOutput().eval()
example_args = (torch.randn(3, 2),)
dynamic_shapes = {"x": {1: torch.export.Dim("width", min=2, max=16)}}


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        for width in (2, 5, 16):
            x = torch.randn(3, width)
            (result,) = method.execute([x])
            torch.testing.assert_close(result, model(x))
            assert int(result) == width + 1
    print("ok: the ExecuTorch program returns width + 1 as a tensor for widths 2, 5 and 16, like eager")


if __name__ == "__main__":
    main()
