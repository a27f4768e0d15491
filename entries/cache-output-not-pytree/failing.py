"""A model that returns a transformers cache object cannot be exported (non-strict).

WhisperForConditionalGeneration defaults to `use_cache=True` and returns its
key/value cache as an `EncoderDecoderCache`. torch.export must flatten every output
into tensors, and that class is not registered as a pytree node. The model is the
real transformers class built from a tiny config; no weights are downloaded.
"""
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
# 8 mel bins x 40 frames (the conv stem halves 40 frames to max_source_positions=20)
example_args = ()
example_kwargs = {
    "input_features": torch.randn(1, 8, 40),
    "decoder_input_ids": torch.tensor([[1, 5, 6, 7]]),
}


def main():
    # fails: the output holds an EncoderDecoderCache, which is not a pytree node
    torch.export.export(model, example_args, example_kwargs)


if __name__ == "__main__":
    main()
