"""expected: jit-optional-unannotated
torch.jit.script of a layer whose `temperature=None` argument is unannotated, so TorchScript types it Tensor and rejects the float passed at call time.
"""
import torch
from torch import nn


class ScaledSoftmax(nn.Module):
    def forward(self, logits, temperature=None):
        if temperature is not None:
            logits = logits / temperature
        return logits.softmax(dim=-1)


scripted = torch.jit.script(ScaledSoftmax())
scripted(torch.randn(2, 5), 0.7)
