"""Exporting with an example batch of at least 2 keeps the batch dimension dynamic."""
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
# Two images, so the batch dim is traced symbolically rather than as the constant 1.
example_args = (torch.randn(2, 3, 32, 32),)
batch = torch.export.Dim("batch", min=2, max=16)
dynamic_shapes = {"x": {0: batch}}


def main():
    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    for size in (2, 5, 16):
        images = torch.randn(size, 3, 32, 32)
        torch.testing.assert_close(exported.module()(images), model(images))
    print("ok: exported program matches eager on batches 2, 5 and 16")


if __name__ == "__main__":
    main()
