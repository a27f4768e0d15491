"""Run the scripted function with TorchScript's other GPU fuser, NNC, instead of nvFuser.

`torch.jit.fuser("fuser1")` selects NNC for the calls inside the block (on 1.12 to 2.0,
`torch._C._jit_set_nvfuser_enabled(False)` turns nvFuser off for the whole process). The
scripted function then matches eager. On torch 2.1 and later NNC is already the default.
This script needs a CUDA device, so it was not run here.
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
    with torch.jit.fuser("fuser1"):
        for _ in range(3):
            out = masked_softmax(scores, mask, 0.125)
    eager_scores = torch.where(mask, scores.float() * 0.125, torch.full_like(scores.float(), -10000.0))
    torch.testing.assert_close(out, torch.softmax(eager_scores, dim=-1).half())
    print("ok: with NNC instead of nvFuser the scripted function runs and matches eager")


if __name__ == "__main__":
    main()
