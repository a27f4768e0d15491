"""torch.jit.load of a Git LFS pointer: the repository was cloned without `git lfs pull`.

Model repositories keep large files in Git LFS. A clone made without the LFS client, or
with GIT_LFS_SKIP_SMUDGE=1 as CI jobs often set, checks out a three-line text file in
place of each model: the pointer. It has the model's name, so the loader opens it and
finds no zip archive in it at all.
"""
import tempfile
from pathlib import Path

import torch

# The exact shape of a pointer file as `git lfs` writes it (version, oid, size).
POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
    "size 1486336\n"
)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        checkout = Path(tmp) / "models" / "embedder.pt"
        checkout.parent.mkdir()
        checkout.write_text(POINTER)  # what the clone left where the archive should be
        torch.jit.load(str(checkout))


if __name__ == "__main__":
    main()
