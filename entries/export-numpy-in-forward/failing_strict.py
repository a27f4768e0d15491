"""Strict export stops at a NumPy function that has no torch counterpart.

Same model as failing.py, exported with strict=True. TorchDynamo does not run NumPy:
it rewrites each NumPy call into the matching torch operation (torch._numpy), so
simple calls such as np.log1p or np.mean on `.numpy()` export. `np.interp` has no
counterpart there, and the export stops with a graph break.
"""
import numpy as np
import torch
from torch import nn

# Calibration table fitted offline (for example by isotonic regression).
KNOTS_X = np.array([0.0, 0.2, 0.5, 0.8, 1.0])
KNOTS_Y = np.array([0.0, 0.1, 0.45, 0.9, 1.0])


class CalibratedClassifier(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 3):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        probs = torch.sigmoid(self.head(x))
        calibrated = np.interp(probs.detach().numpy(), KNOTS_X, KNOTS_Y)  # leaves torch
        return torch.from_numpy(calibrated).to(probs.dtype)


model = CalibratedClassifier().eval()
example_args = (torch.randn(4, 16),)


def main():
    # fails: Dynamo finds no torch equivalent of np.interp to trace
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
