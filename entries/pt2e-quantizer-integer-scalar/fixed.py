"""Compute integer indices outside the quantized graph, then quantize and lower.

The positions are an input now: the caller makes them (`torch.arange(n) + 2` in eager
Python, where no quantizer rewrites it) and the graph only looks them up. With no
integer `add` or `mul` of a Python number left in the graph, prepare_pt2e has nothing
to retype; calibration, convert_pt2e, the XNNPACK lowering and the ExecuTorch runtime
all go through, and the program agrees with the quantized model.

In code you own, `torch.arange(2, n + 2)` does the same inside the graph: the offset is
an argument of `arange`, not of an `add`.
"""
import tempfile
from pathlib import Path

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e


class Tagger(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 32, positions: int = 64, tags: int = 5):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(positions, dim)
        self.head = nn.Linear(dim, tags)

    def forward(self, ids, where):
        return self.head(self.tokens(ids) + self.positions(where))


model = Tagger().eval()
ids = torch.randint(0, 100, (2, 12))
where = (torch.arange(ids.shape[1]) + 2).repeat(ids.shape[0], 1)  # made in eager Python
example_args = (ids, where)


def main():
    captured = torch.export.export(model, example_args).module()
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(captured, quantizer)
    prepared(*example_args)  # calibration
    quantized = convert_pt2e(prepared)
    program = to_edge_transform_and_lower(torch.export.export(quantized, example_args),
                                          partitioner=[XnnpackPartitioner()]).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tagger.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        out = method.execute(list(example_args))[0]
    expected = quantized(*example_args)
    step = expected.abs().max() / 127  # one int8 quantization step of the output
    torch.testing.assert_close(out, expected, rtol=0, atol=2 * float(step))
    print(f"ok: quantized, lowered to XNNPACK and run; output {tuple(out.shape)}")


if __name__ == "__main__":
    main()
