"""The ExecuTorch runtime on a .pte file cut short: its header promises more bytes.

A .pte program starts with a header that records how long the whole file is. The
runtime compares that with the size it can read and refuses the program; the reason is
logged by the runtime (`File size is too small`), and the Python error only carries
the status code.
"""
import tempfile
from pathlib import Path

import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from failing import SpeakerEmbedder

model = SpeakerEmbedder().eval()
example_args = (torch.randn(2, 40, 120),)


def main():
    program = to_edge_transform_and_lower(torch.export.export(model, example_args)).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        served = Path(tmp) / "embedder.pte"
        served.write_bytes(program.buffer[: len(program.buffer) * 3 // 4])  # the last quarter never arrived
        Runtime.get().load_program(str(served)).load_method("forward")


if __name__ == "__main__":
    main()
