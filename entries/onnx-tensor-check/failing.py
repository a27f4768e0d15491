"""The ONNX exporter cannot translate a runtime check on a tensor's values.

The model pools a padded batch of sequences by their lengths, and first checks that
every length is in range with `torch._check_tensor_all`, the check transformers runs
through `torch_compilable_check` while a model is being exported. torch.export records
the check as `aten._is_all_true` followed by an assertion. The exporter drops the
assertion but has no ONNX function for `aten._is_all_true`, so translation fails.
"""
import torch
from torch import nn


class MaskedMeanPool(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        torch._check_tensor_all((lengths > 0) & (lengths <= x.shape[1]))
        positions = torch.arange(x.shape[1], device=x.device)
        mask = (positions[None, :] < lengths[:, None]).to(x.dtype)
        summed = (self.proj(x) * mask[..., None]).sum(dim=1)
        return summed / lengths[:, None].to(x.dtype)


model = MaskedMeanPool().eval()
example_args = (torch.randn(3, 10, 16), torch.tensor([10, 4, 7]))


def main():
    torch.onnx.export(model, example_args, dynamo=True)  # fails in step 3/3


if __name__ == "__main__":
    main()
