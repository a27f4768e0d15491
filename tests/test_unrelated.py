"""Errors that have nothing to do with export get "no confident match", not a guess.

Each text is produced by really running the snippet, so the matcher sees exactly what
Python and torch print.
"""
import subprocess
import sys

import pytest


SNIPPETS = {
    "zero-division": "1 / 0",
    "key-error": "cfg = {'hidden_size': 8}\ncfg['num_layers']",
    "missing-module": "import definitely_not_a_module_xyz",
    "file-not-found": "open('/nonexistent/weights.bin')",
    "json-decode": "import json; json.loads('{bad json')",
    "type-error": "def f(a): pass\nf(1, 2)",
    "attribute-error": "None.shape",
    "recursion": "def f(): return f()\nf()",
    "eager-matmul-shapes": "import torch; torch.zeros(2, 3) @ torch.zeros(2, 3)",
    "eager-conv-input": "import torch; torch.nn.Conv2d(3, 8, 3)(torch.zeros(1, 4, 8, 8))",
    "eager-cat-sizes": "import torch; torch.cat([torch.zeros(2, 3), torch.zeros(3, 4)])",
    "index-error": "[1, 2][5]",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_unrelated_real_error_has_no_confident_match(repo_matcher, name):
    proc = subprocess.run([sys.executable, "-c", SNIPPETS[name]], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    result = repo_matcher.search(proc.stderr)
    assert result.best is None, (result.best, proc.stderr[-300:])
