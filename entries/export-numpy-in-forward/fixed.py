"""The same calibration written with torch operations exports and matches the NumPy model.

`torch.searchsorted` finds each probability's segment of the table and a linear blend
between the segment's ends does what `np.interp` did. The table becomes a pair of
buffers, so it travels with the exported program. The program is exported
(non-strict), run on new inputs and compared with the original NumPy model in eager.
"""
import numpy as np
import torch
from torch import nn

KNOTS_X = np.array([0.0, 0.2, 0.5, 0.8, 1.0])
KNOTS_Y = np.array([0.0, 0.1, 0.45, 0.9, 1.0])


class CalibratedClassifier(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 3):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)
        self.register_buffer("knots_x", torch.tensor(KNOTS_X, dtype=torch.float32))
        self.register_buffer("knots_y", torch.tensor(KNOTS_Y, dtype=torch.float32))

    def forward(self, x):
        probs = torch.sigmoid(self.head(x))
        kx, ky = self.knots_x, self.knots_y
        p = probs.clamp(kx[0], kx[-1])  # np.interp holds the end values outside the table
        right = torch.searchsorted(kx, p.contiguous(), right=True).clamp(1, kx.numel() - 1)
        x0, x1, y0, y1 = kx[right - 1], kx[right], ky[right - 1], ky[right]
        return y0 + (p - x0) / (x1 - x0) * (y1 - y0)


class CalibratedClassifierNumpy(nn.Module):
    """The original NumPy formulation (failing.py), used as the eager reference."""

    def __init__(self, dim: int = 16, num_classes: int = 3):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        probs = torch.sigmoid(self.head(x))
        calibrated = np.interp(probs.detach().numpy(), KNOTS_X, KNOTS_Y)
        return torch.from_numpy(calibrated).to(probs.dtype)


model = CalibratedClassifier().eval()
example_args = (torch.randn(4, 16),)


def main():
    exported = torch.export.export(model, example_args, strict=False)
    reference = CalibratedClassifierNumpy().eval()
    reference.head.load_state_dict(model.head.state_dict())
    for _ in range(3):
        x = 3 * torch.randn(4, 16)  # wide enough to reach every segment of the table
        with torch.no_grad():
            torch.testing.assert_close(exported.module()(x), reference(x))
    print("ok: the torch-only calibration exports and matches the NumPy model in eager on new inputs")


if __name__ == "__main__":
    main()
