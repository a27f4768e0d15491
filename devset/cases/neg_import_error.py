"""expected: none
Importing a name that torch.export does not define: an ImportError before any export happens.
"""
import torch
from torch.export import export_to_onnx  # no such function

export_to_onnx(torch.nn.Linear(2, 2), (torch.randn(1, 2),))
