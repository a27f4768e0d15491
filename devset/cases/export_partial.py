"""expected: export-non-module
torch.export.export called on functools.partial binding a keyword of a functional op.
"""
import functools

import torch
import torch.nn.functional as F

layer_norm = functools.partial(F.layer_norm, normalized_shape=(8,))
torch.export.export(layer_norm, (torch.randn(3, 8),))
