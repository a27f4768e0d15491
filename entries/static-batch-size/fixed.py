"""Declaring the batch dimension dynamic lets the exported program take any batch in range."""
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
example_args = (torch.randn(2, 3, 4, 16, 16),)
batch = torch.export.Dim("batch", min=2, max=16)
dynamic_shapes = {"x": {0: batch}}


def main():
    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    bigger_batch = torch.randn(4, 3, 4, 16, 16)
    torch.testing.assert_close(exported.module()(bigger_batch), model(bigger_batch))
    print("ok: exported program matches eager on batch 4")


if __name__ == "__main__":
    main()
