"""Export the program with the executorch release whose runtime will load it.

A .pte is a build artifact tied to a runtime, like a compiled object file: keep the
model's code and weights (its state_dict), and lower them again with the executorch
version that matches the runtime linked into the app, here the installed 1.5.1. The
same XNNPACK lowering then loads, runs and matches eager.
"""
import io
import tempfile
from importlib import metadata
from pathlib import Path

import torch
from torch import nn


class TinyHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.proj(x))


torch.manual_seed(0)
model = TinyHead().eval()
example_args = (torch.randn(2, 8),)


def main():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    weights = io.BytesIO()
    torch.save(model.state_dict(), weights)  # what travels across releases
    weights.seek(0)
    rebuilt = TinyHead().eval()
    rebuilt.load_state_dict(torch.load(weights, weights_only=True))

    exported = torch.export.export(rebuilt, example_args)
    program = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        # Name the file after the release that wrote it: the .pte itself does not record it.
        path = Path(tmp) / f"model-executorch-{metadata.version('executorch')}-xnnpack.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        x = torch.randn(2, 8)
        (got,) = method.execute([x])
    with torch.no_grad():
        torch.testing.assert_close(got, model(x), rtol=1e-4, atol=1e-5)
    print(f"ok: lowered again with executorch {metadata.version('executorch')}, the runtime that loads it;"
          " the program loads, runs and matches eager")


if __name__ == "__main__":
    main()
