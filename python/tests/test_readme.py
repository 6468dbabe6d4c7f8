"""The README's Python example is python/examples/quickstart.py, and runs."""

import os
import re
import subprocess
import sys

import pytest

import int21
from conftest import MODELS, ROOT

QUICKSTART = ROOT / "python" / "examples" / "quickstart.py"


def test_readme_shows_the_quickstart_verbatim():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert QUICKSTART.read_text() in blocks
    assert len(QUICKSTART.read_text().splitlines()) == 5


def test_quickstart_runs_and_prints_the_output_shape():
    if not MODELS.is_dir():
        pytest.skip(f"the shared models are not at {MODELS}")
    package_dir = os.path.dirname(os.path.dirname(int21.__file__))
    env = dict(os.environ, PYTHONPATH=package_dir)
    done = subprocess.run([sys.executable, str(QUICKSTART)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "(64, 10)\n"
