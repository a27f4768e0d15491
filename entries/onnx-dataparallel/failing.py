"""The TorchScript-based ONNX exporter refuses a model still wrapped in nn.DataParallel.

The model is a small image classifier that was wrapped in DataParallel for training and
is exported as it is, wrapper and all, with `dynamo=False`.
"""
import io

import torch
from torch import nn


class TinyCNN(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


model = nn.DataParallel(TinyCNN()).eval()  # wrapped for multi-GPU training
example_args = (torch.randn(2, 3, 32, 32),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails: DataParallel


if __name__ == "__main__":
    main()
