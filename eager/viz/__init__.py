"""Pictures of the backward graph.

>>> graph = eager.viz.make_graph(loss, params=model, show_saved=True)
>>> eager.viz.render(graph, "graph.svg")      # needs Graphviz's `dot`
>>> eager.viz.print_graph(loss)              # text view, needs nothing

``make_graph`` needs the graphviz Python package (``pip install eager-phi[viz]``);
this package itself imports without it.
"""
from ..autograd.scope import current_scope, name_scope
from .dot import make_graph
from .render import GraphvizNotFoundError, render, require_dot
from .text import print_graph
from .walk import GraphModel, walk

__all__ = ["GraphModel", "GraphvizNotFoundError", "current_scope", "make_graph", "name_scope",
           "print_graph", "render", "require_dot", "walk"]
