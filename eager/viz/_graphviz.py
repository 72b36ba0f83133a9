"""The Digraph that make_graph returns; imported only when the graphviz package is.

It is a plain ``graphviz.Digraph`` whose rendering methods turn "dot not
found" into an error that says what to install, and which carries the numbers
its caption shows in ``stats``.
"""
from __future__ import annotations

import graphviz

from .render import GraphvizNotFoundError


class BackwardGraph(graphviz.Digraph):
    """A picture of a backward graph. ``stats`` holds what the caption reports."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.stats: dict = {}

    def pipe(self, *args, **kwargs):
        try:
            return super().pipe(*args, **kwargs)
        except graphviz.ExecutableNotFound as error:
            raise GraphvizNotFoundError() from error

    def render(self, *args, **kwargs):
        try:
            return super().render(*args, **kwargs)
        except graphviz.ExecutableNotFound as error:
            raise GraphvizNotFoundError() from error
