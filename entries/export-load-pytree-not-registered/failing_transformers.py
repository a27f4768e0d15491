"""A transformers classifier's saved program fails to load in a process that has not imported its output class.

`BertForSequenceClassification` returns `SequenceClassifierOutput`, a `ModelOutput`
that transformers registers as a pytree node, named
`transformers.modeling_outputs.SequenceClassifierOutput`, when the module defining it is
imported. The exporting process builds a tiny BERT from a config (no weights), exports
and saves it. The serving process imports only torch, so the name in the file refers to
no registered type and `torch.export.load` refuses the file. `import transformers` alone
would not help on transformers 5.23: it imports its submodules lazily and registers no
output class until `transformers.modeling_outputs` (or the model's module) is imported.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import torch


def build_model():
    """The exporting process's model; it imports transformers, which this process must not do."""
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=64, num_labels=3)
    torch.manual_seed(0)
    return BertForSequenceClassification(config).eval()


example_args = (torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(0)),)


def export_and_save(path: str) -> None:
    """The exporting process: transformers is imported, so its output classes are registered."""
    torch.export.save(torch.export.export(build_model(), example_args), path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "bert_classifier.pt2")
        subprocess.run([sys.executable, __file__, "--save", path], check=True)
        # This process, like a serving process, imported torch and nothing of transformers.
        program = torch.export.load(path)  # fails: SequenceClassifierOutput is not registered here
        program.module()(*example_args)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--save"]:
        export_and_save(sys.argv[2])
    else:
        main()
