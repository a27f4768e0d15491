"""expected: constant-tensor-mutated
torch.onnx.export(dynamo=True) of a streaming normalizer that updates a running mean kept as a plain tensor attribute (not a buffer); decomposition for ONNX rejects it.
"""
import torch
from torch import nn


class StreamingNorm(nn.Module):
    def __init__(self, dim: int = 6):
        super().__init__()
        self.running_mean = torch.zeros(dim)  # plain attribute, not register_buffer

    def forward(self, x):
        self.running_mean.mul_(0.9).add_(0.1 * x.mean(dim=0))
        return x - self.running_mean


torch.onnx.export(StreamingNorm().eval(), (torch.randn(4, 6),), dynamo=True)
