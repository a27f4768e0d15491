"""Import torchvision on CPU-only torch: the one place that works around its broken wheel.

Why: the only torchvision wheels for this torch are CUDA builds. Their native library
(`torchvision._C`) fails to register its operators (`torchvision::nms`, `roi_align`, ...)
against the CPU torch, and `torchvision/__init__.py` then imports
`torchvision/_meta_registrations.py`, which registers meta kernels for exactly those
operators and raises `RuntimeError: operator torchvision::nms does not exist`. That
failure breaks `import torchvision`, and with it `timm` and every transformers model
whose module imports torchvision.

The workaround registers an empty module under `torchvision._meta_registrations` in
`sys.modules` before the first import, so torchvision skips the meta registrations. The
pure-Python models (every classification, segmentation, video and optical-flow network)
work; the native ops (`nms`, `roi_align`, deformable conv) stay unavailable, so
detection models fail where they call them. Everything in `collectors/` that imports
torchvision, timm or transformers image models must call `import_torchvision()` first.
"""
from __future__ import annotations

import sys
import sysconfig
import types
from pathlib import Path

_STUB = "torchvision._meta_registrations"


def install_stub() -> None:
    """Register the empty stand-in; cheap, imports nothing.

    The project's venv runs this at interpreter start-up (a .pth file written by
    `python -m collectors.corpus.torchvision_compat --install-pth`, which `make setup`
    runs), because transformers imports torchvision on its own whenever it is installed:
    without the stub, even an entry's standalone `python failing.py` that builds a
    Whisper model would fail on the broken torchvision wheel.
    """
    if _STUB not in sys.modules:
        stub = types.ModuleType(_STUB)
        stub.__doc__ = "Empty stand-in (collectors.corpus.torchvision_compat): the real module fails on CPU torch."
        sys.modules[_STUB] = stub


def install_pth() -> Path:
    """Write the .pth file that calls install_stub() in every interpreter of this venv."""
    site_packages = Path(sysconfig.get_paths()["purelib"])
    pth = site_packages / "exportkb-torchvision-cpu.pth"
    pth.write_text("import collectors.corpus.torchvision_compat as _tvc; _tvc.install_stub()\n")
    return pth


def import_torchvision():
    """Import and return torchvision, applying the CPU-torch workaround once."""
    if "torchvision" in sys.modules and sys.modules["torchvision"] is not None:
        return sys.modules["torchvision"]
    install_stub()
    import torchvision

    return torchvision


def native_ops_available() -> bool:
    """Whether torchvision's compiled operators (nms, roi_align) are registered."""
    import torch

    import_torchvision()
    return hasattr(torch.ops.torchvision, "nms") and _has_op("nms")


def _has_op(name: str) -> bool:
    import torch

    try:
        getattr(torch.ops.torchvision, name).default
        return True
    except (AttributeError, RuntimeError):
        return False


if __name__ == "__main__":
    if "--install-pth" in sys.argv:
        print(f"wrote {install_pth()}")
