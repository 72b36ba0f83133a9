"""Every Python example in the docs and the README runs as written.

The blocks of one page run in order in one namespace, as a reader would type
them into one session.
"""
import pathlib
import re
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(page):
    text = page.read_text()
    for match in re.finditer(r"```python\n(.*?)```", text, re.S):
        yield text[:match.start()].count("\n") + 2, match.group(1)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_examples_run(page, tmp_path, monkeypatch, capsys):
    blocks = list(python_blocks(page))
    if any("eager.viz.render" in code or ".pipe(" in code for _, code in blocks):
        pytest.importorskip("graphviz")
        if shutil.which("dot") is None:
            pytest.skip("Graphviz's dot program is not installed")
    monkeypatch.chdir(tmp_path)  # examples that write files write here
    namespace = {"__name__": "__main__"}
    for line, code in blocks:
        # Padding makes a traceback's line number the line in the page.
        exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)
