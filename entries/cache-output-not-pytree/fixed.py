"""With `use_cache=False` Whisper returns only tensors, so the export succeeds."""
import torch
from transformers import WhisperConfig, WhisperForConditionalGeneration

config = WhisperConfig(
    vocab_size=64,
    d_model=32,
    encoder_layers=1,
    decoder_layers=1,
    encoder_attention_heads=2,
    decoder_attention_heads=2,
    encoder_ffn_dim=64,
    decoder_ffn_dim=64,
    num_mel_bins=8,
    max_source_positions=20,
    max_target_positions=16,
    pad_token_id=0,
    bos_token_id=1,
    eos_token_id=2,
    decoder_start_token_id=1,
)
torch.manual_seed(0)
model = WhisperForConditionalGeneration(config).eval()
example_args = ()
example_kwargs = {
    "input_features": torch.randn(1, 8, 40),
    "decoder_input_ids": torch.tensor([[1, 5, 6, 7]]),
    "use_cache": False,
}


def main():
    exported = torch.export.export(model, example_args, example_kwargs)
    kwargs = {
        "input_features": torch.randn(1, 8, 40),
        "decoder_input_ids": torch.tensor([[1, 9, 3, 4]]),
        "use_cache": False,
    }
    got = exported.module()(**kwargs)
    with torch.no_grad():
        expected = model(**kwargs)
    torch.testing.assert_close(got.logits, expected.logits)
    print("ok: Whisper exported with use_cache=False; logits match eager")


if __name__ == "__main__":
    main()
