"""torch.jit.script cannot compile a transformers 5 model: its config class has no source.

transformers models declare `config: <ModelConfig>` as a class annotation. TorchScript
reads class annotations to type the module's attributes and tries to compile the config
class as a TorchScript class. transformers 5 configs are dataclasses whose `__init__` is
generated at import time, so `inspect` finds no source for it.
"""
import torch
from transformers import BertConfig, BertModel

config = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=32, max_position_embeddings=32)
model = BertModel(config).eval()
example_args = (torch.randint(0, 64, (2, 8)),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
