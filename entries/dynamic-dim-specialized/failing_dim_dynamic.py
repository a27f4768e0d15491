"""Dim.DYNAMIC on a dimension whose example size is 1 is rejected at export.

Same rule as failing.py: sizes 0 and 1 are specialized during tracing, so the
batch dim of a single-image example becomes the constant 1. With `Dim.DYNAMIC`
(instead of a named Dim) torch reports the conflict in a different wording.
"""
import torch
from torch import nn


class TinyImageClassifier(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = TinyImageClassifier().eval()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {"x": {0: torch.export.Dim.DYNAMIC}}


def main():
    # fails: export 0/1-specializes the batch dim of the size-1 example
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
