"""`.to(x.device)` in a traced forward moves to the trace-time device, not the caller's.

The normaliser keeps its mean and standard deviation as plain tensor attributes and
moves them to the input's device in forward, which works on any device in eager mode.
The tracer records the `.to` call with the device it saw (`torch.device("cpu")`), so the
traced program moves the statistics to the CPU whatever the input's device. Called with
inputs on `meta` (standing in for a GPU, which this machine lacks), it mixes devices.
"""
import torch
from torch import nn


class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

    def forward(self, images):  # (batch, 3, height, width)
        mean, std = self.mean.to(images.device), self.std.to(images.device)
        return (images - mean) / std


model = Normalize().eval()
example_args = (torch.rand(2, 3, 8, 8),)


def main():
    traced = torch.jit.trace(model, example_args)  # traced on the CPU
    traced(torch.rand(2, 3, 8, 8, device="meta"))  # fails: mean and std are moved to the CPU


if __name__ == "__main__":
    main()
