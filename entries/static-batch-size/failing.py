"""A program exported with batch size 2 rejects a batch of 4.

The model is a small video classifier shaped like MViT: a 3-D patch embedding
over (channels, frames, height, width) and a linear head over pooled tokens.
"""
import torch
from torch import nn


class TinyVideoClassifier(nn.Module):
    def __init__(self, num_classes: int = 5):
        super().__init__()
        self.patch_embed = nn.Conv3d(3, 16, kernel_size=(2, 4, 4), stride=(2, 4, 4))
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        tokens = self.patch_embed(x).flatten(2).transpose(1, 2)
        return self.head(tokens.mean(dim=1))


model = TinyVideoClassifier().eval()
# (batch, channels, frames, height, width)
example_args = (torch.randn(2, 3, 4, 16, 16),)
dynamic_shapes = None


def main():
    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    bigger_batch = torch.randn(4, 3, 4, 16, 16)
    exported.module()(bigger_batch)  # fails: the batch dim was exported as the constant 2


if __name__ == "__main__":
    main()
