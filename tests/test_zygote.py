"""collectors.zygote: a script run from a fork of a torch-loaded interpreter behaves, and
reads, as `python script.py` run in its folder (collectors.isolate.run_script)."""
import re
import textwrap

import pytest

from collectors.isolate import run_script
from collectors import zygote as zygote_module
from collectors.zygote import PreloadFailed, Zygote, ZygotePool, needs_fresh_interpreter, preloads_for

pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def pool():
    with ZygotePool(1) as p:
        yield p


def script(tmp_path, body: str, name: str = "case.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


# torch's log lines start with the time and the process id, which no two runs share.
LOG_PREFIX = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ", re.M)


def same_as_python(pool, path, **limits):
    z, p = pool.run(path, **limits), run_script(path, **limits)
    assert (z.outcome, z.returncode, z.signal, z.stdout, LOG_PREFIX.sub("", z.stderr)) == (
        p.outcome, p.returncode, p.signal, p.stdout, LOG_PREFIX.sub("", p.stderr))
    return z


def test_a_torch_error_reads_exactly_as_python_prints_it(pool, tmp_path):
    path = script(tmp_path, """
        import torch

        class Branchy(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x + 1
                return x - 1

        def main():
            torch.export.export(Branchy(), (torch.ones(3),))

        if __name__ == "__main__":
            main()
    """)
    run = same_as_python(pool, path)
    assert run.outcome == "fail" and run.returncode == 1
    lines = run.stderr.splitlines()
    start = lines.index("Traceback (most recent call last):")
    # The first frame is the script's, as with `python case.py`: none of the zygote's.
    assert lines[start + 1] == f'  File "{path}", line 14, in <module>'
    assert "zygote" not in run.stderr
    assert "torch/export/" in run.stderr and "GuardOnDataDependentSymNode: Could not guard" in run.stderr


@pytest.mark.parametrize("body", [
    'import sys\nprint("partial")\nsys.exit(3)\n',
    'import sys\nsys.exit("refused: no model given")\n',
    'raise SystemExit\n',
    'def broken(:\n    pass\n',
    'import torch\nprint(torch.ones(2).sum().item())\n',
])
def test_exit_statuses_output_and_syntax_errors_match_python(pool, tmp_path, body):
    same_as_python(pool, script(tmp_path, body))


def test_the_script_is_main_in_its_own_folder(pool, tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    path = script(tmp_path, """
        import os, pickle, sys
        import helper  # a sibling module, found through sys.path[0]

        class Point:
            def __init__(self, x):
                self.x = x

        # Pickling a class defined in the script needs sys.modules["__main__"] to be the script.
        assert pickle.loads(pickle.dumps(Point(helper.VALUE + 1))).x == 42
        print(__name__, os.path.basename(__file__), sys.argv, os.getcwd() == os.path.dirname(__file__))
        print(sys.stdin.read() == "")
    """)
    run = same_as_python(pool, path)
    assert run.stdout == "__main__ case.py ['case.py'] True\nTrue\n"


def test_each_script_starts_from_a_clean_fork(pool, tmp_path):
    first = script(tmp_path, "import torch\ntorch.set_default_dtype(torch.float64)\nimport json\njson.FLAG = 1\n",
                   "first.py")
    second = script(tmp_path, "import json, torch\nprint(torch.get_default_dtype(), hasattr(json, 'FLAG'))\n",
                    "second.py")
    assert pool.run(first).outcome == "ok"
    assert pool.run(second).stdout == "torch.float32 False\n"


def test_a_torchscript_error_quotes_the_python_stack_down_to_the_script_only(pool, tmp_path):
    # TorchScript prints the Python stack the trace ran in; the zygote's frames under the
    # script are not part of what `python case.py` prints.
    path = script(tmp_path, """
        import torch

        class Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        class M(torch.nn.Module):
            def forward(self, x):
                return Double.apply(x)

        torch.jit.trace(M(), (torch.ones(2),)).save("m.pt")
    """)
    run = same_as_python(pool, path)
    assert "Could not export Python function call 'Double'" in run.stderr
    assert run.stderr.rstrip().splitlines()[-1] == f"{path}(13): <module>"


def test_timeout_kills_the_script_and_what_it_started(pool, tmp_path):
    marker = tmp_path / "grandchild-survived"
    path = script(tmp_path, f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(4); open({str(marker)!r}, 'w')"])
        time.sleep(60)
    """)
    run = pool.run(path, timeout_s=2)
    assert run.outcome == "timeout" and run.returncode is None
    import time
    time.sleep(5)
    assert not marker.exists()


def test_memory_limit_and_a_crash_are_outcomes(pool, tmp_path):
    hog = pool.run(script(tmp_path, "blocks = [bytearray(256 << 20) for _ in range(16)]\n", "hog.py"),
                   memory_mb=2000)
    assert hog.outcome == "oom" and "MemoryError" in hog.stderr
    crash = pool.run(script(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "crash.py"))
    assert crash.outcome == "crash" and crash.signal == "SIGSEGV"


def test_a_script_that_sets_the_environment_gets_a_fresh_interpreter(pool, tmp_path):
    path = script(tmp_path, """
        import os, sys
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = "/tmp/elsewhere"
        print("torch" in sys.modules)
    """)
    assert needs_fresh_interpreter(path)
    assert not needs_fresh_interpreter(script(tmp_path, "import torch\n", "plain.py"))
    before = pool.fresh_runs
    assert pool.run(path).stdout == "False\n"
    assert pool.fresh_runs == before + 1


def test_a_script_with_companions_imports_them_first_in_a_fresh_interpreter(pool, tmp_path):
    """An entry script's companions (collectors/companions.py) shadow the venv's copy of a
    package, and only for that script: a zygote set up without them cannot serve it."""
    companion = tmp_path / "companion"
    (companion / "numpy").mkdir(parents=True)
    (companion / "numpy" / "__init__.py").write_text("__version__ = 'the companion'\n")
    path = script(tmp_path, """
        import sys
        import numpy
        print(numpy.__version__, "torch" in sys.modules)
    """)
    before = pool.fresh_runs
    assert pool.run(path, import_first=(companion,)).stdout == "the companion False\n"
    assert pool.fresh_runs == before + 1
    assert pool.run(path).stdout.split()[0] != "the"


def test_a_dead_zygote_costs_one_fresh_run_and_is_replaced(tmp_path):
    # The script kills the interpreter it was forked from, then finishes: the pool must
    # notice, give the script's result from a fresh interpreter and start a new zygote.
    path = script(tmp_path, """
        import os, signal
        parent = open(f"/proc/{os.getppid()}/cmdline", "rb").read()
        if b"zygote_server.py" in parent:
            os.kill(os.getppid(), signal.SIGKILL)
        print("finished")
    """)
    with ZygotePool(1) as fresh_pool:
        run = fresh_pool.run(path)
        assert run.outcome == "ok" and run.stdout == "finished\n"
        assert fresh_pool.fresh_runs == 1
        ok = fresh_pool.run(script(tmp_path, "import sys\nprint('torch' in sys.modules)\n", "after.py"))
        assert ok.stdout == "True\n"  # forked from a new zygote, which has torch imported


def test_slow_imports_the_script_makes_are_done_before_the_fork_and_hidden_ones_are_not(tmp_path):
    # Each script first reports what was imported before its own imports ran; a sibling module
    # looks, since a script that reads sys.modules itself is one the zygote leaves alone.
    script(tmp_path, 'import sys\nprint(sorted(m for m in ("onnx", "torch._dynamo") if m in sys.modules))\n',
           "loaded_before.py")
    probe = "import loaded_before\n"
    uses = script(tmp_path, probe + "import onnx\ntorch_export = 'torch.export.export'\n", "uses.py")
    hides = script(tmp_path, probe + "sys.meta_path = list(sys.meta_path)\nimport onnx\n", "hides.py")
    inside = script(tmp_path, probe + "def main():\n    from onnx import helper\n", "inside.py")
    assert preloads_for(uses) == ("torch._dynamo", "onnx")  # Dynamo: the script names torch.export.export
    assert preloads_for(hides) == ()
    assert preloads_for(inside) == ("onnx",)
    assert preloads_for(script(tmp_path, "def broken(:\n", "broken.py")) == ()
    with ZygotePool(1) as pool:
        assert pool.run(uses).stdout == "['onnx', 'torch._dynamo']\n"
        assert pool.run(hides).stdout == "[]\n"  # the zygote of `uses` does not serve it
        assert pool.run(inside).stdout == "['onnx']\n"
        assert pool.started == [("torch._dynamo", "onnx"), (), ("onnx",)]
        assert pool.fresh_runs == 0


def test_a_preload_that_does_not_import_falls_back_to_torch_alone(tmp_path, monkeypatch):
    with pytest.raises(PreloadFailed, match="no_such_module_for_exportkb"):
        Zygote(preload=("no_such_module_for_exportkb",))
    monkeypatch.setattr(zygote_module, "preloads_for", lambda _script: ("no_such_module_for_exportkb",))
    path = script(tmp_path, "import sys\nprint('torch' in sys.modules)\n")
    with ZygotePool(1) as pool:
        assert [pool.run(path).stdout for _ in range(2)] == ["True\n", "True\n"]
        assert pool.started == [()]  # one zygote without the preload, kept for the second run
        assert pool.fresh_runs == 0
