"""The ONNX exporter has no translation for the `map` control-flow operator.

The model scores each of a variable number of candidate boxes against a query with
`map` from `functorch.experimental.control_flow`, which torch.export keeps as one
`higher_order.map_impl` node with the body as a subgraph (ExportDB's
`dynamic_shape_map` shows the same). The dynamo-based ONNX exporter finds no ONNX
function for that node.
"""
import torch
from functorch.experimental.control_flow import map
from torch import nn


class CandidateScorer(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, candidates, query):
        def score(candidate, query):
            return (torch.tanh(self.proj(candidate)) * query).sum(-1)

        return map(score, candidates, query)  # one score per candidate


model = CandidateScorer().eval()
example_args = (torch.randn(5, 8), torch.randn(8))


def main():
    torch.onnx.export(model, example_args, dynamo=True)  # fails in step 3/3


if __name__ == "__main__":
    main()
