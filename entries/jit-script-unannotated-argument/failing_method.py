"""Scripting a method of a plain Python object: `self` is one more unannotated argument.

The predictor is an ordinary class that holds a network, not an nn.Module. Handing its
bound method to torch.jit.script compiles the function with `self` as a parameter of
unknown type, which TorchScript takes to be a Tensor, so `self.image_size` is looked up
on a Tensor.
"""
import torch
from torch import nn


class TinyMaskDecoder(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.point_embed = nn.Linear(2, dim)
        self.to_scores = nn.Linear(dim, 3)

    def forward(self, point_coords):
        return self.to_scores(self.point_embed(point_coords).mean(dim=1))


class TinyImagePredictor:
    def __init__(self, image_size: int = 64):
        self.model = TinyMaskDecoder().eval()
        self.image_size = image_size

    def predict(self, point_coords):
        return self.model(point_coords / self.image_size)


predictor = TinyImagePredictor()
model = predictor.predict
example_args = (torch.tensor([[[10.0, 20.0], [30.0, 40.0]]]),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
