"""A model prepared for quantization still holds observers, which export cannot trace.

`prepare_fx` (like eager `prepare`) inserts observer modules, `activation_post_process_N`,
that record value ranges during calibration. Strict export refuses to trace them
(Dynamo skips `torch/ao`); older releases traced into the observer's forward and
failed on its Python `if` about the observed minimum, a data-dependent guard, and so
does non-strict export on 2.13. Observers are for calibration only; they do not belong
in an exported program.
"""
import torch
from torch import nn
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import prepare_fx


class TinyClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
example_args = (torch.randn(4, 16),)
model = prepare_fx(TinyClassifier().eval(), get_default_qconfig_mapping("x86"), example_args)
model(*example_args)  # calibration: the observers record ranges


def main():
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
