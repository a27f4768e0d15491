"""Exporting the wrapped module (model.module) instead of the DataParallel wrapper."""
import io

import numpy as np
import onnxruntime as ort
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


model = nn.DataParallel(TinyCNN()).eval()
example_args = (torch.randn(2, 3, 32, 32),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model.module, example_args, buffer, dynamo=False,
                      input_names=["image"], output_names=["logits"])

    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    (logits,) = session.run(None, {"image": example_args[0].numpy()})
    with torch.no_grad():
        expected = model(*example_args).numpy()
    assert np.allclose(logits, expected, rtol=1e-4, atol=1e-5), np.abs(logits - expected).max()
    print("ok: onnxruntime output of model.module matches eager")


if __name__ == "__main__":
    main()
