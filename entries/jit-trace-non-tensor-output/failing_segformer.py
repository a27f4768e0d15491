"""A transformers output class that TorchScript compiles as a class of its own is refused too.

SegFormer's classifier returns `SegFormerImageClassifierOutput`, a subclass of
`ImageClassifierOutput` that adds no methods. When the tracer types the output,
TorchScript compiles such a method-less class as a TorchScript class, so the output is an
object instead of a dict of tensors, and `strict=False` does not help. Other
transformers outputs trace as dicts.
"""
import torch
from transformers import SegformerConfig, SegformerForImageClassification

config = SegformerConfig(
    num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[8, 16], patch_sizes=[7, 3],
    strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2], num_labels=3,
)
model = SegformerForImageClassification(config).eval()
example_args = (torch.randn(2, 3, 32, 32),)


def main():
    torch.jit.trace(model, example_args, strict=False)


if __name__ == "__main__":
    main()
