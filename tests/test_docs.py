"""The README's and docs' Python examples run as written (blocks marked ```python gpu need a GPU and are skipped)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_examples_run(path):
    for block in python_blocks(path):
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
