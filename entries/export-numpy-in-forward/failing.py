"""A model that hands its tensor to NumPy inside forward cannot be exported (non-strict).

The classifier calibrates its probabilities with a piecewise-linear table, using
`np.interp` on `probs.detach().numpy()`. Non-strict export runs forward on fake
tensors, which have a shape and dtype but no data, so `.numpy()` has nothing to
hand over and raises.
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
    # fails: the traced tensor is a fake tensor subclass with no data behind it
    torch.export.export(model, example_args, strict=False)


if __name__ == "__main__":
    main()
