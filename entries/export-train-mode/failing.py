"""A model exported in training mode: the program runs dropout and batch statistics.

`nn.Module` starts in training mode and stays there until `.eval()` is called, and
torch.export records the mode it finds. The export succeeds and nothing warns, but the
program zeroes random features (dropout) and normalises each batch with its own
statistics (BatchNorm), so it disagrees with the model in eval mode and with itself
from one call to the next. The script compares them and raises.
"""
import torch
from torch import nn


class TinyCNN(nn.Module):
    """Conv, BatchNorm, ReLU, global pooling, dropout and a linear head."""

    def __init__(self, classes: int = 4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.dropout = nn.Dropout(0.2)
        self.head = nn.Linear(8, classes)

    def forward(self, image):
        pooled = self.features(image).mean(dim=(2, 3))
        return self.head(self.dropout(pooled))


torch.manual_seed(0)
model = TinyCNN()  # .eval() forgotten: the module is in training mode
example_args = (torch.randn(2, 3, 16, 16),)


def main():
    exported = torch.export.export(model, example_args)
    image = torch.randn(2, 3, 16, 16)
    first, second = exported.module()(image), exported.module()(image)
    with torch.no_grad():
        expected = model.eval()(image)  # what the model computes at inference time
    if not torch.equal(first, second) or not torch.allclose(first, expected):
        raise AssertionError(
            "Exported program disagrees with the model in eval mode and changes between calls on "
            f"the same input (max diff vs eval {(first - expected).abs().max():.3g}, between calls "
            f"{(first - second).abs().max():.3g}): it was exported in training mode"
        )


if __name__ == "__main__":
    main()
