"""kb/ serves search, build, UI and site without torch: importing it must not pull torch in."""
import pkgutil
import subprocess
import sys

import kb
from conftest import REPO


def test_no_kb_module_imports_torch_or_collectors():
    modules = [m.name for m in pkgutil.walk_packages(kb.__path__, "kb.")]
    assert "kb.ui.plugin" in modules and "kb.matcher" in modules
    # Only what importing kb adds counts: the venv's start-up hook (the torchvision stub,
    # a .pth file) has already imported a tiny collectors module before any of this.
    code = (
        "import importlib, sys\n"
        "before = set(sys.modules)\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in set(sys.modules) - before\n"
        "             if m.split('.')[0] in ('torch', 'collectors', 'transformers', 'onnx'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_search_runs_in_a_process_without_torch():
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # any import of torch now raises ImportError\n"
        "from kb.build import ensure_built, load_matcher\n"
        "db, _ = ensure_built()\n"
        "print(load_matcher(db).search('AssertionError: Guard failed: x.size()[0] == 2').best.id)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "static-batch-size"
