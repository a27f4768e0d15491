"""A module with no weights, exported to a portable .pte by executorch 0.3.0, on the 1.5.1 runtime.

No delegate is needed to hit the old layout: a program without a single constant tensor
got only the placeholder entry in the inline `constant_buffer` table from executorch 0.3
and earlier. `gate-executorch-0.3.0.pte`, next to this script, is this module exported
with `to_edge(...).to_executorch()` by a real executorch 0.3.0; the 1.5.1 runtime refuses it.
"""
from pathlib import Path

import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, x):
        return torch.relu(x) * torch.sigmoid(x)


model = Gate().eval()
example_args = (torch.randn(2, 8),)
WRITTEN_BY_0_3_0 = Path(__file__).with_name("gate-executorch-0.3.0.pte")


def main():
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(str(WRITTEN_BY_0_3_0))  # fails here
    (got,) = program.load_method("forward").execute([example_args[0]])
    torch.testing.assert_close(got, model(*example_args))


if __name__ == "__main__":
    main()
