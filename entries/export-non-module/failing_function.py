"""torch.export only accepts an nn.Module, not a plain Python function.

A post-processing function (upsampling low-resolution mask logits and
thresholding them) is passed to torch.export directly and rejected.
"""
import torch
import torch.nn.functional as F


def postprocess_masks(low_res_masks, threshold: float = 0.0):
    masks = F.interpolate(low_res_masks, scale_factor=4, mode="bilinear", align_corners=False)
    return masks > threshold


model = postprocess_masks  # a function, not an nn.Module
example_args = (torch.randn(1, 3, 8, 8),)


def main():
    # fails: torch.export requires an nn.Module
    torch.export.export(model, example_args)


if __name__ == "__main__":
    main()
