"""A scripted function on a CUDA device, fused by TorchScript's nvFuser (torch 1.12 to 2.0).

From torch 1.12 TorchScript handed the pointwise and reduction ops of scripted code run on
a CUDA device to nvFuser: the first calls are profiled, and from the second or third call
on the function runs as one generated CUDA kernel. Half-precision attention code like this
masked softmax (the shape of transformers' GPT-BigCode helper) is the kind of code the
reports ran when nvFuser's code generator or scheduler stopped with an INTERNAL ASSERT.
Whether a given input trips one of its bugs depends on the release, the GPU and the shapes.
This script needs a CUDA device and a torch from 1.12 to 2.0, so it was not run here.
"""
import torch


@torch.jit.script
def masked_softmax(scores: torch.Tensor, mask: torch.Tensor, scale: float) -> torch.Tensor:
    scores = scores.float() * scale
    scores = torch.where(mask, scores, torch.full_like(scores, -10000.0))
    return torch.softmax(scores, dim=-1).half()


def main():
    scores = torch.randn(2, 4, 16, 16, device="cuda", dtype=torch.half)
    mask = torch.rand(2, 1, 16, 16, device="cuda") > 0.1
    for _ in range(3):  # profiling runs first; the fused kernel is compiled after them
        out = masked_softmax(scores, mask, 0.125)
    print(tuple(out.shape))


if __name__ == "__main__":
    main()
