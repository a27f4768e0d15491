"""torch.jit.trace records a tensor turned into Python numbers as constants.

The connector below projects the features of every image in a batch at once, then
splits them back per sample with sizes read out of a tensor via `.tolist()`. Tracing
with a batch of 2 freezes the split sizes at [4, 4]; called with a batch of 3, the
traced program still splits 12 rows into [4, 4] and fails.
"""
import torch
from torch import nn


class ImageConnector(nn.Module):
    """Projects each image's patch features and returns one pooled vector per sample."""

    def __init__(self, dim: int = 16, out: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, out)

    def forward(self, patches):  # patches: (batch, num_patches, dim)
        flat = self.proj(patches.flatten(0, 1))  # (batch * num_patches, out)
        counts = torch.full((patches.shape[0],), patches.shape[1])  # patches per sample
        per_sample = flat.split(counts.tolist())  # Python ints: the trace keeps them
        return torch.stack([f.mean(dim=0) for f in per_sample])


model = ImageConnector().eval()
example_args = (torch.randn(2, 4, 16),)
alt_args = (torch.randn(3, 4, 16),)  # another batch size, for the corpus harness


def main():
    traced = torch.jit.trace(model, example_args)
    traced(torch.randn(3, 4, 16))  # a batch of 3: the baked split sizes no longer fit


if __name__ == "__main__":
    main()
