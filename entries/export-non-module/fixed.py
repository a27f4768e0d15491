"""Wrapping the method in an nn.Module whose forward calls it makes it exportable."""
import torch
from torch import nn


class TinyMaskDecoder(nn.Module):
    def __init__(self, dim: int = 16, num_masks: int = 3, mask_size: int = 8):
        super().__init__()
        self.num_masks = num_masks
        self.mask_size = mask_size
        self.point_embed = nn.Linear(2, dim)
        self.label_embed = nn.Embedding(2, dim)
        self.to_masks = nn.Linear(dim, num_masks * mask_size * mask_size)
        self.to_scores = nn.Linear(dim, num_masks)

    def forward(self, point_coords, point_labels):
        tokens = self.point_embed(point_coords) + self.label_embed(point_labels)
        pooled = tokens.mean(dim=1)
        masks = self.to_masks(pooled).view(-1, self.num_masks, self.mask_size, self.mask_size)
        return masks, self.to_scores(pooled)


class TinyImagePredictor:
    """Not an nn.Module: holds the network and prompt-handling logic, like SAM2ImagePredictor."""

    def __init__(self, image_size: int = 64):
        self.model = TinyMaskDecoder().eval()
        self.image_size = image_size

    def _predict(self, point_coords, point_labels, multimask_output: bool = True):
        coords = point_coords / self.image_size  # normalize pixel coordinates to [0, 1]
        masks, scores = self.model(coords, point_labels)
        if not multimask_output:
            best = scores.argmax(dim=1)
            masks = masks[torch.arange(masks.shape[0]), best].unsqueeze(1)
            scores = scores.max(dim=1, keepdim=True).values
        return masks, scores


class PredictModule(nn.Module):
    """nn.Module front for TinyImagePredictor._predict."""

    def __init__(self, predictor: TinyImagePredictor):
        super().__init__()
        self.net = predictor.model  # registered submodule: its weights become parameters
        self._predictor = [predictor]  # kept out of the module tree; only its method is used

    def forward(self, point_coords, point_labels, multimask_output: bool = True):
        return self._predictor[0]._predict(point_coords, point_labels, multimask_output)


predictor = TinyImagePredictor()
model = PredictModule(predictor).eval()
example_args = (torch.tensor([[[10.0, 20.0], [30.0, 40.0]]]), torch.tensor([[1, 0]]))
example_kwargs = {"multimask_output": True}


def main():
    exported = torch.export.export(model, example_args, example_kwargs)
    coords = torch.tensor([[[5.0, 60.0], [33.0, 12.0]]])
    labels = torch.tensor([[0, 1]])
    got = exported.module()(coords, labels, multimask_output=True)
    expected = predictor._predict(coords, labels, multimask_output=True)
    torch.testing.assert_close(got, expected)
    print("ok: the wrapped _predict exports and matches the predictor's eager output")


if __name__ == "__main__":
    main()
