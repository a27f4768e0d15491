"""Run the program through .module(); store it with torch.export.save and load the file.

`exported.module()` builds an `nn.Module` whose forward runs the captured graph;
`torch.export.save` writes the program as a `.pt2` archive (graph, signature, weights),
and `torch.export.load` reads that path back into an `ExportedProgram`.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return torch.relu(x * self.weight)


model = Scale().eval()
example_args = (torch.randn(2, 4),)


def main():
    exported = torch.export.export(model, example_args)
    x = torch.randn(2, 4)
    with torch.no_grad():
        expected = model(x)
        torch.testing.assert_close(exported.module()(x), expected)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scale.pt2"
            torch.export.save(exported, path)
            loaded = torch.export.load(path)
            torch.testing.assert_close(loaded.module()(x), expected)
    print("ok: called through .module(), saved with torch.export.save, loaded from the path; both match eager")


if __name__ == "__main__":
    main()
