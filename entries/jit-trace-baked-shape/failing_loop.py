"""Iterating over a tensor's first dimension unrolls the loop in the trace.

A length regulator in the style of FastSpeech 2 repeats each phoneme's encoding by its
duration, one sample at a time. `zip(encodings, durations)` iterates over the batch;
the trace records exactly as many iterations as the example batch had, and a traced
call with another batch size fails when it unpacks the batch into that many parts.
"""
import torch
from torch import nn


class LengthRegulator(nn.Module):
    def __init__(self, dim: int = 8, max_frames: int = 32):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.max_frames = max_frames

    def forward(self, encodings, durations):  # (batch, phonemes, dim), (batch, phonemes)
        encodings = self.proj(encodings)
        frames = []
        for enc, dur in zip(encodings, durations):  # one iteration per sample
            rep = torch.repeat_interleave(enc, dur, dim=0)
            frames.append(nn.functional.pad(rep, (0, 0, 0, self.max_frames - rep.shape[0])))
        return torch.stack(frames)


model = LengthRegulator().eval()
example_args = (torch.randn(2, 5, 8), torch.randint(1, 4, (2, 5)))
alt_args = (torch.randn(3, 5, 8), torch.randint(1, 4, (3, 5)))  # another batch size, for the corpus harness


def main():
    traced = torch.jit.trace(model, example_args)
    traced(torch.randn(3, 5, 8), torch.randint(1, 4, (3, 5)))


if __name__ == "__main__":
    main()
