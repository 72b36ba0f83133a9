"""Rendering pictures with Graphviz's ``dot`` program, with an error that says
what to install when it is missing.

Building a graph (its DOT source) needs only the ``graphviz`` Python package;
turning it into SVG or PNG needs the ``dot`` executable as well.
"""
from __future__ import annotations

import os
import shutil

PIP_HINT = "pip install eager-phi[viz]  (or: pip install graphviz)"

DOT_HINT = (
    "Graphviz's 'dot' program is needed to render the picture, and it is not on PATH. "
    "Install Graphviz itself (the Python package alone is not enough):\n"
    "  Debian/Ubuntu:  apt-get install graphviz\n"
    "  macOS:          brew install graphviz\n"
    "  conda:          conda install -c conda-forge graphviz\n"
    "  Windows:        winget install graphviz  (then add its bin folder to PATH)\n"
    "The DOT source (graph.source) needs no install; eager.viz.print_graph needs nothing."
)


class GraphvizNotFoundError(RuntimeError):
    """Graphviz's ``dot`` executable is missing."""

    def __init__(self, message: str = DOT_HINT):
        super().__init__(message)


def require_dot() -> str:
    """The path of ``dot``, or GraphvizNotFoundError saying how to install it."""
    path = shutil.which("dot")
    if path is None:
        raise GraphvizNotFoundError()
    return path


RASTER_FORMATS = ("png", "jpg", "jpeg", "gif", "bmp", "webp")


def render(graph, path, format: str | None = None, dpi: int | None = None) -> str:
    """Renders ``graph`` (from :func:`eager.viz.make_graph`) into the file ``path``.

    ``format`` ("svg", "png", "pdf", ...) defaults to the extension of ``path``,
    which is added when missing. Pictures made of pixels are drawn at ``dpi``
    (144 unless the graph sets its own), so they stay sharp on modern screens.
    Returns the path written.
    """
    path = os.fspath(path)
    stem, extension = os.path.splitext(path)
    if format is None:
        if not extension:
            raise ValueError(f"render: give format=, or a path with an extension; got {path!r}")
        format = extension[1:]
    format = format.lower()
    if extension.lower() != "." + format:
        path = f"{path}.{format}"
    require_dot()
    if format in RASTER_FORMATS and (dpi is not None or "dpi" not in graph.graph_attr):
        graph = graph.copy()
        graph.graph_attr["dpi"] = str(dpi or 144)
    data = graph.pipe(format=format)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)
    return path
