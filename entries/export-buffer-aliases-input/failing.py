"""Export fails when a buffer the model mutates shares memory with the example input.

A streaming layer keeps the last frame of each chunk in a buffer, stored as a slice of
the chunk. Run once in eager on the example chunk (a warm-up, or a sanity check), the
buffer becomes a view of that very tensor. Exporting with the same tensor then hands
export two inputs, the buffer and the chunk, that share memory, one of which the graph
mutates. Capture succeeds; lowering with `run_decompositions()` fails with
`AssertionError: expected compiled_fn to be GraphModule, got <class 'function'>`.
"""
import torch
from torch import nn


class StreamingSmoother(nn.Module):
    """Averages each frame with the one before it, carrying the last frame across chunks."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("last_frame", torch.zeros(1, dim))

    def forward(self, chunk):  # (time, dim)
        smoothed = torch.cat([self.last_frame, chunk])[:-1] * 0.5 + chunk * 0.5
        self.last_frame = chunk[-1:].detach()  # a view of the caller's tensor
        return self.proj(smoothed)


model = StreamingSmoother().eval()
example_args = (torch.randn(5, 8),)


def main():
    with torch.no_grad():
        model(*example_args)  # warm-up: last_frame is now a view of example_args[0]
    program = torch.export.export(model, example_args)
    program.run_decompositions()


if __name__ == "__main__":
    main()
