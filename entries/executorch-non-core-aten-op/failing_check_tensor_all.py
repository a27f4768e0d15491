"""A tensor-valued check in forward leaves aten._is_all_true in the graph.

`torch._check_tensor_all(cond)`, which transformers calls through
`torch_compilable_check` while exporting, is exported as `aten._is_all_true` followed by
a runtime assertion. `_is_all_true` is not a Core ATen operator, so ExecuTorch's Edge
verifier rejects the program.
"""
import torch
from torch import nn


class BoundedFlow(nn.Module):
    """A flow step that, like VITS's spline, asserts its inputs lie inside the tail bound."""

    def __init__(self, dim: int = 8, bound: float = 5.0):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.bound = bound

    def forward(self, x):
        torch._check_tensor_all((x >= -self.bound) & (x <= self.bound))
        return x + torch.tanh(self.proj(x))


model = BoundedFlow().eval()
example_args = (torch.randn(2, 8).clamp(-4, 4),)


def main():
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(model, example_args)
    to_edge_transform_and_lower(exported).to_executorch()


if __name__ == "__main__":
    main()
