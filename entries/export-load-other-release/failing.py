"""A .pt2 file written by torch.export.save on torch 2.4.1, loaded by a later torch.

torch.export.save writes the program in a versioned schema, and torch.export.load reads
only the schema of its own release. `model-torch-2.4.1.pt2`, next to this script, is
this module saved by a real torch 2.4.1 (schema 5.3): torch 2.13 (schema 8.20) refuses
it before reading a single node.
"""
from pathlib import Path

import torch
from torch import nn


class SmallClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, 4)

    def forward(self, images):
        features = torch.relu(self.conv(images)).mean(dim=(2, 3))
        return self.head(features)


torch.manual_seed(0)
model = SmallClassifier().eval()
example_args = (torch.randn(2, 3, 16, 16),)
SAVED_BY_2_4_1 = Path(__file__).with_name("model-torch-2.4.1.pt2")


def main():
    program = torch.export.load(SAVED_BY_2_4_1)  # fails here on any release with another schema
    torch.testing.assert_close(program.module()(*example_args), model(*example_args))


if __name__ == "__main__":
    main()
