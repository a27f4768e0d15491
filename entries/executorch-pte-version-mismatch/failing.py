"""A .pte program written by an older executorch, loaded by the runtime of executorch 1.5.1.

A .pte is loaded by whatever ExecuTorch runtime the app was built with, which need not
be the release of the Python package that exported it. `model-executorch-0.3.0-xnnpack.pte`,
next to this script, is this module lowered to XNNPACK by a real executorch 0.3.0
(torch 2.4.0). Releases up to 0.3 stored the program's constants in the flatbuffer's
inline `constant_buffer` table whenever no constant was left outside the delegates. The
1.5.1 runtime is built without that deprecated layout and refuses the whole program.
"""
from pathlib import Path

import torch
from torch import nn


class TinyHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.proj(x))


torch.manual_seed(0)
model = TinyHead().eval()
example_args = (torch.randn(2, 8),)
WRITTEN_BY_0_3_0 = Path(__file__).with_name("model-executorch-0.3.0-xnnpack.pte")


def main():
    from executorch.runtime import Runtime

    # fails here: the 1.5.1 runtime cannot read the program layout executorch 0.3.0 wrote
    program = Runtime.get().load_program(str(WRITTEN_BY_0_3_0))
    (got,) = program.load_method("forward").execute([example_args[0]])
    with torch.no_grad():
        torch.testing.assert_close(got, model(*example_args))


if __name__ == "__main__":
    main()
