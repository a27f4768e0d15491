"""The ONNX exporter cannot make a graph output out of a Python number.

The model frames an audio signal and returns the frames together with their count,
`x.shape[-1] // hop`, as a plain Python int (as ExportDB's `scalar_output` example
returns `x.shape[1] + 1`). With static shapes torch.export folds the count into the
constant 4, and the ONNX exporter fails while translating the graph's `return` node.
"""
import torch
from torch import nn


class Framer(nn.Module):
    def __init__(self, hop: int = 4):
        super().__init__()
        self.hop = hop

    def forward(self, x):
        frames = x.unfold(-1, self.hop, self.hop)  # (batch, n_frames, hop)
        return frames, x.shape[-1] // self.hop


model = Framer().eval()
example_args = (torch.randn(2, 16),)


def main():
    torch.onnx.export(model, example_args, dynamo=True)  # fails in step 3/3


if __name__ == "__main__":
    main()
