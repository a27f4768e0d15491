"""ExecuTorch's portable convolution kernel handles 1-D and 2-D convolutions only.

A `nn.Conv3d` lowers without complaint (`aten.convolution` is Core ATen, and the XNNPACK
partitioner leaves it to the portable kernels as well), but the portable kernel checks
that its input has 3 or 4 dimensions and the call fails at run time.

ExecuTorch says why only in its native log on stderr; the Python exception carries an
error code. `execute()` below attaches the log lines to the error, as the corpus
harness does, so that the message names the cause.
"""
import os
import tempfile
from pathlib import Path

import torch
from torch import nn


class TinyVideoClassifier(nn.Module):
    """Embeds non-overlapping space-time patches with a Conv3d, as video transformers do."""

    def __init__(self, num_classes: int = 5):
        super().__init__()
        self.patch_embed = nn.Conv3d(3, 16, kernel_size=(2, 4, 4), stride=(2, 4, 4))
        self.head = nn.Linear(16, num_classes)

    def forward(self, video):
        tokens = self.patch_embed(video).flatten(2).transpose(1, 2)
        return self.head(tokens.mean(dim=1))


model = TinyVideoClassifier().eval()
example_args = (torch.randn(2, 3, 4, 16, 16),)


def execute(method, inputs):
    """method.execute(inputs), with ExecuTorch's own log lines added to its error."""
    with tempfile.TemporaryFile() as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            return method.execute(inputs)
        except RuntimeError as exc:
            os.dup2(saved, 2)
            log.seek(0)
            lines = [ln for ln in log.read().decode(errors="replace").splitlines() if "failed" in ln]
            raise RuntimeError("\n".join([str(exc), *lines])) from exc
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        execute(method, list(example_args))


if __name__ == "__main__":
    main()
