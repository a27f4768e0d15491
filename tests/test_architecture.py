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


# The layers of the code, from the top down. A module may import from its own layer and
# the layers below it, never from one above; the longest matching prefix places a module.
# The CLI is the face: its collector commands load collectors/ inside the command.
LAYERS = (
    ("face", ("kb.cli", "kb.site.__main__")),
    ("collectors", ("collectors",)),
    ("readers of kb.db", ("kb.site", "kb.ui", "kb.tidy", "kb.evaluate", "kb.calibrate", "kb.unexplained",
                          "kb.compat_view")),
    ("build", ("kb.build",)),
    ("rules", ("kb.classify", "kb.version_status", "kb.releases", "kb.graph_breaks")),
    ("foundation", ("kb", "kb.paths", "kb.normalize", "kb.textin", "kb.extract", "kb.observations",
                    "kb.matcher", "kb.catalogue", "kb.site.languages", "kb.site.rst")),
)


def _modules(root) -> dict[str, "Path"]:
    found = {}
    for package in ("kb", "collectors"):
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def import_graph(root) -> dict[str, set[str]]:
    """module -> the project's modules it imports, anywhere in it (inside functions too)."""
    import ast

    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                wanted = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for w in wanted:
                parts = w.split(".")
                hit = next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in modules), None)
                if hit and hit != name:
                    targets.add(hit)
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layer_of(module: str) -> int:
    """0 is the top layer."""
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or module.startswith(p + "."):
                if best is None or len(p) > best[0]:
                    best = (len(p), rank)
    assert best is not None, f"{module} is in no layer: place it in LAYERS"
    return best[1]


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, targets in graph.items() for b in targets if layer_of(b) < layer_of(a))


def test_the_checks_see_a_circle_and_an_import_back_up():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert upward({"kb.matcher": {"kb.build"}, "kb.build": {"kb.matcher"}}) == [("kb.matcher", "kb.build")]


def test_the_import_graph_is_read_whole():
    graph = import_graph(REPO)
    # Relative, absolute and late (inside a function) imports are all seen.
    assert "kb.classify" in graph["kb.build"] and "kb.matcher" in graph["kb.classify"]
    assert "collectors.check" in graph["kb.cli"]  # imported inside the check command
    assert "kb.build" in graph["collectors.check"]


def test_no_import_circles():
    assert circles(import_graph(REPO)) == []


def test_no_import_from_a_lower_layer_back_up():
    assert upward(import_graph(REPO)) == []
