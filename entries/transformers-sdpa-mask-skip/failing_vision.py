"""An exported vision tower attends in both directions; the eager model is causal.

The mirror image of failing.py. Phi-4-multimodal's SigLIP-style vision encoder builds a
bidirectional mask from its patch mask, but its attention layers are flagged
`is_causal = True`. Eagerly, with sdpa and a patch mask of all ones, transformers drops
the mask and sdpa applies `is_causal`, so each patch only sees the patches before it.
torch.export keeps the mask, so the program sees every patch. Nothing warns; the
script compares the two and raises.
"""
import torch
from transformers import Phi4MultimodalVisionConfig, Phi4MultimodalVisionModel

config = Phi4MultimodalVisionConfig(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    image_size=56,
    patch_size=14,
    crop_size=56,
)
torch.manual_seed(0)
model = Phi4MultimodalVisionModel(config).eval()  # sdpa is the default attention backend
example_args = (torch.randn(2, 3, 56, 56),)


def main():
    exported = torch.export.export(model, example_args)
    with torch.no_grad():
        eager = model(*example_args).last_hidden_state
        traced = exported.module()(*example_args).last_hidden_state
    diff = (eager - traced).abs().max().item()
    if diff > 1e-4:
        raise AssertionError(
            f"exported program disagrees with eager ({model.config._attn_implementation} attention): "
            f"largest difference {diff:.3f}. Eager skipped the all-ones patch mask and attended "
            "causally; the traced program kept the bidirectional mask."
        )
    print("the exported program agrees with eager")


if __name__ == "__main__":
    main()
