"""A plain tensor attribute reassigned in forward is frozen into the exported program.

The model counts processed chunks in `self.steps`, a tensor stored as an ordinary
attribute rather than a registered buffer, and reassigns it on every call. Export
treats that tensor as a constant: torch only warns, and the exported program
keeps the value from export time, so calling it twice no longer matches calling
the eager model twice. The script shows the divergence and raises.
"""
import copy
import warnings

import torch
from torch import nn


class StreamingDecay(nn.Module):
    """Scales each incoming chunk by decay ** (number of chunks seen so far)."""

    def __init__(self, dim: int = 4, decay: float = 0.5):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.decay = decay
        self.steps = torch.zeros(1)  # plain attribute: not a parameter, not a buffer

    def forward(self, chunk):
        self.steps = self.steps + 1  # state update by reassignment
        return self.proj(chunk) * self.decay ** self.steps


model = StreamingDecay().eval()
example_args = (torch.randn(2, 4),)


def main():
    eager = copy.deepcopy(model)  # untouched copy for the eager reference
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exported = torch.export.export(model, example_args)
    for w in caught:  # let torch's own warnings reach stderr as usual
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    torch_warning = next(
        (str(w.message) for w in caught if "was assigned during export" in str(w.message)), None
    )

    program = exported.module()
    chunk = torch.randn(2, 4)
    exported_outputs = [program(chunk), program(chunk)]
    eager_outputs = [eager(chunk), eager(chunk)]
    torch.testing.assert_close(exported_outputs[0], eager_outputs[0])  # first call agrees
    if not torch.allclose(exported_outputs[1], eager_outputs[1]):
        raise AssertionError(
            "exported program diverged from eager on the second call: eager advanced "
            f"self.steps to {eager.steps.item():g}, the exported program still used the "
            f"value frozen at export. torch warned during export: {torch_warning}"
        )
    print("second call matched eager: the state update was kept")


if __name__ == "__main__":
    main()
