"""A batch dimension declared dynamic cannot be traced from an example of size 1.

torch.export gives sizes 0 and 1 their own static specialization, so a dim whose
example size is 0 or 1 is traced as a constant and the dynamic declaration
conflicts with it. Here a small image classifier is exported with a single image
and `Dim("batch", max=16)`.
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
# One image: (batch=1, channels, height, width)
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch", max=16)}}


def main():
    # fails: the example batch of 1 is specialized, contradicting the dynamic Dim
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
