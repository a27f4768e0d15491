"""expected: jit-optional-unannotated
torch.jit.script on a free function (not a module) whose `mask=None` argument is unannotated; calling it without a mask fails.
"""
import torch


@torch.jit.script
def masked_mean(x, mask=None):
    if mask is not None:
        x = x * mask
    return x.mean(dim=-1)


print(masked_mean(torch.randn(3, 4)))
