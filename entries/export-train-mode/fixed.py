"""Call .eval() before exporting: BatchNorm uses its running statistics and dropout is the identity.

The ExecuTorch program lowered from the eval-mode export runs and matches eager; in
training mode the same lowering stopped on BatchNorm's training operator.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class TinyCNN(nn.Module):
    """Conv, BatchNorm, ReLU, global pooling, dropout and a linear head."""

    def __init__(self, classes: int = 4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.dropout = nn.Dropout(0.2)
        self.head = nn.Linear(8, classes)

    def forward(self, image):
        pooled = self.features(image).mean(dim=(2, 3))
        return self.head(self.dropout(pooled))


torch.manual_seed(0)
model = TinyCNN().eval()
example_args = (torch.randn(2, 3, 16, 16),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    image = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        expected = model(image)
    first, second = exported.module()(image), exported.module()(image)
    torch.testing.assert_close(first, expected)
    torch.testing.assert_close(second, expected)

    with torch.no_grad():
        program = to_edge_transform_and_lower(torch.export.export(model, example_args)).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        (logits,) = method.execute([image])
    torch.testing.assert_close(logits, expected)
    print("ok: exported in eval mode, the program and its ExecuTorch lowering match eager on every call")


if __name__ == "__main__":
    main()
