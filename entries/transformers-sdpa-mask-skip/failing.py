"""An exported transformers text encoder attends causally; the eager model does not.

AIMv2's text tower asks transformers for a causal attention mask, but its attention
layers are not flagged `is_causal`. Eagerly, with the sdpa attention backend and an
attention_mask of all ones, transformers skips building the mask and lets sdpa apply
`is_causal` instead, which is False here: every token sees every other token. While
torch.export traces, transformers never skips the mask, so the program is causal.
Nothing warns; the script compares the two and raises.
"""
import torch
from transformers import Aimv2TextConfig, Aimv2TextModel

config = Aimv2TextConfig(
    vocab_size=128,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=1,  # one layer: the last token then sees the same keys either way
    num_attention_heads=4,
    max_position_embeddings=16,
    eos_token_id=127,
)
torch.manual_seed(0)
model = Aimv2TextModel(config).eval()  # sdpa is the default attention backend
example_args = ()
example_kwargs = {
    "input_ids": torch.randint(3, 120, (2, 8)),
    "attention_mask": torch.ones(2, 8, dtype=torch.long),  # no padding
}


def main():
    exported = torch.export.export(model, example_args, example_kwargs)
    with torch.no_grad():
        eager = model(**example_kwargs).last_hidden_state
        traced = exported.module()(**example_kwargs).last_hidden_state
    # The last token sees the whole sequence under either mask, so it agrees; every
    # earlier token shows that the two sides masked differently.
    last = (eager[:, -1] - traced[:, -1]).abs().max().item()
    earlier = (eager[:, :-1] - traced[:, :-1]).abs().max().item()
    if earlier > 1e-4:
        raise AssertionError(
            f"exported program disagrees with eager ({model.config._attn_implementation} attention): "
            f"largest difference {earlier:.3f} before the last token, {last:.1e} on it. Eager skipped "
            "the all-ones attention mask and attended both ways; the traced program kept the causal mask."
        )
    print("the exported program agrees with eager")


if __name__ == "__main__":
    main()
