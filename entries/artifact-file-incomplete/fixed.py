"""Check the copy against the digest written beside the archive, then load it.

The exporting side writes the archive's SHA-256 next to it. The loading side compares
the file it received with that digest before torch.jit.load sees it: an incomplete
copy or a Git LFS pointer is then reported as what it is, and a complete copy loads
and matches eager on inputs it was not traced with.
"""
import hashlib
import shutil
import tempfile
from pathlib import Path

import torch

from failing import SpeakerEmbedder

model = SpeakerEmbedder().eval()
example_args = (torch.randn(2, 40, 120),)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_with_digest(module: torch.jit.ScriptModule, path: Path) -> None:
    torch.jit.save(module, str(path))
    path.with_suffix(".sha256").write_text(sha256(path) + "\n")


def load_verified(path: Path) -> torch.jit.ScriptModule:
    want = path.with_suffix(".sha256").read_text().strip()
    if sha256(path) != want:
        raise ValueError(f"{path} ({path.stat().st_size} bytes) is not the archive that was saved: "
                         "copy it again, or run `git lfs pull` if it is a pointer")
    return torch.jit.load(str(path))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        built, served = Path(tmp) / "embedder.pt", Path(tmp) / "served" / "embedder.pt"
        served.parent.mkdir()
        save_with_digest(torch.jit.trace(model, example_args), built)
        shutil.copyfile(built, served)  # a complete copy, digest alongside
        shutil.copyfile(built.with_suffix(".sha256"), served.with_suffix(".sha256"))
        loaded = load_verified(served)
        features = torch.randn(3, 40, 200)  # another batch and length
        with torch.no_grad():
            torch.testing.assert_close(loaded(features), model(features))
        served.write_bytes(built.read_bytes()[:1000])  # now cut short: refused before torch.jit.load
        try:
            load_verified(served)
        except ValueError as exc:
            print(f"refused as expected: {exc}")
        else:
            raise AssertionError("an incomplete copy passed the digest check")
    print("ok: the verified archive loads and matches eager on 3 x 200 frames")


if __name__ == "__main__":
    main()
