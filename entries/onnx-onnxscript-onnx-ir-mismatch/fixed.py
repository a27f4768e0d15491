"""Pin onnx-ir below 0.1.16 (or use onnxscript 0.6.1 or newer) and the same export works.

The fix is the environment, not the model, so this script applies it for real. When the
installed onnxscript is older than 0.6.1 and onnx-ir is 0.1.16 or newer (the pairing that
fails), it installs onnx-ir 0.1.15 into a temporary folder with
`pip install --no-deps --target`, which leaves this environment untouched, and re-runs
itself in a child process with that folder first on PYTHONPATH. That is what
`pip install "onnx-ir<0.1.16"` does to the environment, without changing it. When the
pairing is already a working one (torch 2.13 ships with onnxscript 0.7.2), it exports
directly. Either way the ONNX file is run in onnxruntime and compared with eager.
"""
import os
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import torch
from torch import nn

CHILD = "--export-with-pinned-onnx-ir"
PIN = "onnx-ir==0.1.15"


class TwoLayerMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


torch.manual_seed(0)
model = TwoLayerMLP().eval()
example_args = (torch.randn(3, 4),)


def _version(package: str) -> tuple[int, ...] | None:
    try:
        text = metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def export_and_compare(how: str) -> None:
    import onnx_ir

    program = torch.onnx.export(model, example_args, dynamo=True, verbose=False)
    with torch.no_grad():
        expected = model(*example_args)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        program.save(path)
        try:
            import onnxruntime as ort
        except ImportError:
            import onnx

            onnx.checker.check_model(path, full_check=True)
            print(f"ok: {how} (onnx-ir {onnx_ir.__version__}); onnxruntime is not installed, "
                  "so the file was only checked with onnx.checker")
            return
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})
    torch.testing.assert_close(torch.from_numpy(got), expected, rtol=1e-4, atol=1e-5)
    print(f"ok: {how} (onnx-ir {onnx_ir.__version__} imported); the dynamo export matches eager in onnxruntime",
          flush=True)


def main():
    if sys.argv[1:] == [CHILD]:
        import onnx_ir

        assert onnx_ir.__version__ == PIN.split("==")[1], f"the pinned onnx-ir was not imported: {onnx_ir.__version__}"
        export_and_compare(f"with {PIN} first on PYTHONPATH")
        return

    onnxscript_v, onnx_ir_v = _version("onnxscript"), _version("onnx-ir")
    if onnxscript_v is None or onnx_ir_v is None or onnxscript_v >= (0, 6, 1) or onnx_ir_v < (0, 1, 16):
        export_and_compare(f"onnxscript {metadata.version('onnxscript')} needs no onnx-ir pin")
        return

    with tempfile.TemporaryDirectory() as side:
        # The environment fix, applied beside the environment: pip install "onnx-ir<0.1.16".
        # --no-deps: its dependencies (numpy, onnx, ml_dtypes, typing_extensions) are installed already.
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--target", side, PIN], check=True)
        print(f"ok: installed {PIN} into a temporary folder (this environment has onnx-ir "
              f"{metadata.version('onnx-ir')} and onnxscript {metadata.version('onnxscript')})", flush=True)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (side, os.environ.get("PYTHONPATH")) if p))
        subprocess.run([sys.executable, os.path.abspath(__file__), CHILD], env=env, check=True)


if __name__ == "__main__":
    main()
