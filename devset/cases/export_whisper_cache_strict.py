"""expected: cache-output-not-pytree
torch.export.export(strict=True) of a tiny WhisperForConditionalGeneration from a config; the EncoderDecoderCache in the output cannot be flattened.
"""
import torch
from transformers import WhisperConfig, WhisperForConditionalGeneration

config = WhisperConfig(d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                       decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                       num_mel_bins=16, max_source_positions=8, max_target_positions=16, vocab_size=100,
                       pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
model = WhisperForConditionalGeneration(config).eval()
features = torch.randn(1, 16, 16)  # (batch, mel bins, frames = 2 * max_source_positions)
decoder_input_ids = torch.tensor([[1, 2, 3]])
torch.export.export(model, (), kwargs={"input_features": features, "decoder_input_ids": decoder_input_ids,
                                       "use_cache": True}, strict=True)
