"""With the eager attention backend, the exported program masks exactly like eager.

`attn_implementation="eager"` makes transformers build the attention mask on every
call, traced or not, so there is no mask-free shortcut for eager to take and the flag
`is_causal` is never consulted. The same two models as the failing scripts then agree
with their exported programs: AIMv2's text tower is causal on both sides, the Phi-4
vision tower bidirectional on both sides, which is what their masks ask for.
"""
import torch
from transformers import (
    Aimv2TextConfig,
    Aimv2TextModel,
    Phi4MultimodalVisionConfig,
    Phi4MultimodalVisionModel,
)

text_config = Aimv2TextConfig(
    vocab_size=128,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=1,
    num_attention_heads=4,
    max_position_embeddings=16,
    eos_token_id=127,
)
vision_config = Phi4MultimodalVisionConfig(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    image_size=56,
    patch_size=14,
    crop_size=56,
)
torch.manual_seed(0)
# The fix: ask for the eager attention backend when building (or loading) the model.
model = Aimv2TextModel._from_config(text_config, attn_implementation="eager").eval()
vision = Phi4MultimodalVisionModel._from_config(vision_config, attn_implementation="eager").eval()
example_args = ()
example_kwargs = {
    "input_ids": torch.randint(3, 120, (2, 8)),
    "attention_mask": torch.ones(2, 8, dtype=torch.long),
}
pixel_values = torch.randn(2, 3, 56, 56)


def main():
    text_program = torch.export.export(model, example_args, example_kwargs).module()
    vision_program = torch.export.export(vision, (pixel_values,)).module()
    with torch.no_grad():
        torch.testing.assert_close(text_program(**example_kwargs).last_hidden_state,
                                   model(**example_kwargs).last_hidden_state)
        torch.testing.assert_close(vision_program(pixel_values).last_hidden_state,
                                   vision(pixel_values).last_hidden_state)
        # A padded batch: the mask matters for padding too, and both sides agree on it.
        padded = {**example_kwargs, "attention_mask": torch.tensor([[1] * 8, [1] * 5 + [0] * 3])}
        torch.testing.assert_close(text_program(**padded).last_hidden_state, model(**padded).last_hidden_state)
    print("ok: both exported programs agree with eager, with and without padding")


if __name__ == "__main__":
    main()
