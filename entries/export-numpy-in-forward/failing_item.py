"""NumPy math on a number read out of a tensor with .item() fails in non-strict export.

The classifier divides its logits by a learned temperature and converts the stored
log-temperature with `np.exp(self.log_temperature.item())`. While export traces,
`.item()` returns a symbolic float (SymFloat) standing for a value nobody knows yet,
and NumPy's ufuncs only compute on real numbers.
"""
import numpy as np
import torch
from torch import nn


class TemperatureScaledClassifier(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 3):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)
        self.log_temperature = nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        temperature = np.exp(self.log_temperature.item())  # Python/NumPy math on tensor data
        return torch.softmax(self.head(x) / temperature, dim=-1)


model = TemperatureScaledClassifier().eval()
example_args = (torch.randn(4, 16),)


def main():
    # fails: np.exp receives a SymFloat, not a number
    torch.export.export(model, example_args, strict=False)


if __name__ == "__main__":
    main()
