"""ExecuTorch's Python sources without its compiled runtime: the export works, loading does not.

`executorch.exir` (export, lowering, writing the `.pte`) is pure Python, but everything
that loads or runs a program goes through compiled extension modules
(`executorch.extension.pybindings._C` on executorch 1.5.1, `portable_lib` before it).
A source checkout that was never built, an install from source without the
pybindings, or a package built for another Python has the first half and not the second.

This script runs in such an environment: it puts a copy of the installed executorch,
minus every compiled module, where Python finds it first, and hides the installed one.
The `.pte` is written as usual; `Runtime.get()` then stops with
`ModuleNotFoundError: The prebuilt extension module executorch.extension.pybindings._C
is not found`.
"""
import atexit
import importlib.util
import shutil
import site
import sys
import tempfile
from pathlib import Path


def unbuilt_environment(root: Path) -> None:
    """Point this interpreter at executorch's sources without their compiled modules, and at
    every other installed package as it is: what a checkout that was never built looks like."""
    spec = importlib.util.find_spec("executorch")
    if spec is None:  # nothing to copy from: this is a plain missing install, not the case shown here
        raise ModuleNotFoundError("No module named 'executorch': install it first; this script copies it")
    installed = Path(next(iter(spec.submodule_search_locations)))
    site_packages = installed.parent
    sources = root / "sources"
    for path in installed.rglob("*"):
        compiled = path.suffix == ".so" or ".so." in path.name or "__pycache__" in path.parts
        if path.is_file() and not compiled:
            copy = sources / "executorch" / path.relative_to(installed)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
    others = root / "site-packages"
    others.mkdir()
    for path in site_packages.iterdir():
        if not path.name.startswith("executorch"):
            (others / path.name).symlink_to(path)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != site_packages.resolve()]
    site.addsitedir(str(others))
    sys.path.insert(0, str(sources))


def main():
    root = Path(tempfile.mkdtemp(prefix="unbuilt-executorch-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    unbuilt_environment(root)

    import torch
    from torch import nn
    from executorch.exir import to_edge_transform_and_lower

    model = nn.Sequential(nn.Linear(8, 4), nn.ReLU()).eval()
    example_args = (torch.randn(2, 8),)
    program = to_edge_transform_and_lower(torch.export.export(model, example_args)).to_executorch()
    pte = root / "model.pte"
    pte.write_bytes(program.buffer)
    print(f"wrote {pte.name} ({len(program.buffer)} bytes) with executorch's Python sources alone")

    from executorch.runtime import Runtime  # fails: the compiled runtime is not there

    method = Runtime.get().load_program(str(pte)).load_method("forward")
    print(method.execute(list(example_args)))


if __name__ == "__main__":
    main()
