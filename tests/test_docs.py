"""The README's and docs' Python examples run as written (blocks marked ```python gpu need a GPU and are skipped;
```python jax blocks run where JAX is installed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(path: Path, tag: str = "") -> list[str]:
    return re.findall(rf"```python{' ' + tag if tag else ''}\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_examples_run(path):
    for block in python_blocks(path):
        exec(compile(block, str(path), "exec"), {})


@pytest.mark.parametrize("path", [p for p in DOCS if python_blocks(p, "jax")], ids=lambda p: p.name)
def test_jax_examples_run(path):
    pytest.importorskip("jax")
    for block in python_blocks(path, "jax"):
        exec(compile(block, str(path), "exec"), {})


def test_readme_has_examples_and_names_its_commands():
    text = (ROOT / "README.md").read_text()
    assert python_blocks(ROOT / "README.md")
    assert "cornerturn run" in text and "scripts/test.sh" in text
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci


def test_every_figure_names_device_date_and_command():
    for path in DOCS:
        text = path.read_text()
        for note in re.findall(r"\n((?:NVIDIA H200|AMD EPYC)[^\n]*)", text):
            assert re.search(r"2026-\d\d-\d\d", note) and "`" in note, (path.name, note)
