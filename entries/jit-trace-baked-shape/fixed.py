"""Keep sizes in tensor operations so the trace follows the input's shape.

The per-sample split becomes a reshape to (batch, num_patches, out). The tracer records
`view` with sizes taken from the input at run time, so the traced program pools
correctly for any batch size.
"""
import torch
from torch import nn


class ImageConnector(nn.Module):
    def __init__(self, dim: int = 16, out: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, out)

    def forward(self, patches):  # patches: (batch, num_patches, dim)
        flat = self.proj(patches.flatten(0, 1))
        per_sample = flat.view(patches.shape[0], patches.shape[1], -1)  # sizes stay symbolic
        return per_sample.mean(dim=1)


model = ImageConnector().eval()
example_args = (torch.randn(2, 4, 16),)
alt_args = (torch.randn(3, 4, 16),)  # another batch size, for the corpus harness


def main():
    traced = torch.jit.trace(model, example_args)
    for batch in (1, 3, 5):
        x = torch.randn(batch, 4, 16)
        torch.testing.assert_close(traced(x), model(x))
    print("ok: the traced connector matches eager for batches of 1, 3 and 5")


if __name__ == "__main__":
    main()
