"""print_graph: the backward graph as indented text, for terminals without Graphviz.

Each output comes first; under every op are the ops and leaves that feed it.
A line ends with ``@scope`` where its name scope differs from the line it feeds.
An op with a single input continues on the next line at the same indent, so a
long chain stays narrow; an input shared by several ops is shown once, tagged
``[#k]``, and later lines point back to it with ``^ #k``.
"""
from __future__ import annotations

import sys

from .dot import _plural, describe_grad, describe_shape, format_bytes
from .walk import LEAF, OP, OUTPUT, walk

_MARKS = {"tee": "├─ ", "last": "└─ ", "bar": "│  ", "see": "↑"}
_ASCII = str.maketrans({"├": "|", "└": "`", "─": "-", "│": "|", "↑": "^", "⋯": "...",
                        "…": "...", "‖": "|", "·": "-", "×": "x"})


def print_graph(outputs, params=None, show_attrs: bool = False, show_saved: bool = False,
                show_grads: bool = False, max_nodes: int | None = None, file=None) -> str:
    """Prints a compact text view of the backward graph of ``outputs`` and returns it.

    Takes the same ``params``, ``show_*`` and ``max_nodes`` as
    :func:`eager.viz.make_graph`; needs no Graphviz. ``file`` defaults to stdout.
    """
    model = walk(outputs, params, max_nodes=max_nodes, grads=show_grads, saved=show_saved,
                 attrs=show_attrs)
    stream = sys.stdout if file is None else file
    text = format_model(model, show_saved=show_saved)
    print(text if _can_encode(stream, text) else to_ascii(text), file=stream)
    return text


def format_model(model, *, show_saved: bool = False) -> str:
    marks = _MARKS
    vertices = model.vertices
    consumers: dict = {}
    for source, _, _ in model.edges:
        consumers[source] = consumers.get(source, 0) + 1
    tags: dict = {}  # id of a shared vertex -> its number
    printed = set()
    lines = []
    roots = [v for v in vertices.values() if v.kind == OUTPUT]
    # (vertex id, prefix of this line, connector, prefix of its inputs' lines,
    #  scope of the line that uses it: a scope is printed only where it changes)
    stack = [(root.id, "", "", "", ()) for root in reversed(roots)]
    while stack:
        vertex_id, prefix, connector, child_prefix, outer_scope = stack.pop()
        if vertex_id == "more":
            lines.append(f"{prefix}{connector}⋯ more nodes left out (max_nodes)")
            continue
        vertex = vertices[vertex_id]
        if vertex_id in printed:
            lines.append(f"{prefix}{connector}{marks['see']} #{tags[vertex_id]} {vertex.title}")
            continue
        printed.add(vertex_id)
        tag = ""
        if consumers.get(vertex_id, 0) > 1:
            tags[vertex_id] = len(tags) + 1
            tag = f"  [#{tags[vertex_id]}]"
        scope = f"  @{'/'.join(vertex.scope)}" if vertex.scope != outer_scope and vertex.scope else ""
        lines.append(f"{prefix}{connector}{_describe(vertex, show_saved)}{tag}{scope}")
        inputs = list(vertex.inputs) + (["more"] if vertex.truncated else [])
        if len(inputs) == 1:
            stack.append((inputs[0], child_prefix, "", child_prefix, vertex.scope))
            continue
        for index in reversed(range(len(inputs))):
            last = index == len(inputs) - 1
            stack.append((inputs[index], child_prefix, marks["last" if last else "tee"],
                          child_prefix + ("   " if last else marks["bar"]), vertex.scope))
    lines.append(_summary(model, show_saved))
    return "\n".join(lines)


def _describe(vertex, show_saved) -> str:
    if vertex.kind == OUTPUT:
        name = f"output {vertex.title}" if vertex.named else "output"
        text = f"{name}  {describe_shape(vertex.shape, vertex.dtype)}"
        return text if vertex.inputs else text + "  (no grad)"
    if vertex.kind == LEAF:
        text = f"leaf {vertex.title}" if vertex.named else "leaf"
        text += f"  {describe_shape(vertex.shape, vertex.dtype)}"
        if vertex.grad is not None:
            warn = {"nonfinite": "  !! NaN/Inf", "zero": "  (all zero)"}.get(vertex.grad.status, "")
            text += f"  {describe_grad(vertex.grad)}{warn}"
        return text
    text = vertex.title + (" (view)" if vertex.is_view else "")
    if vertex.attrs:
        text += "  " + ", ".join(f"{name}={value!r}" for name, value in vertex.attrs)
    if show_saved and vertex.saved:
        saved = ", ".join(
            f"{s.name}={format_bytes(s.nbytes) if s.nbytes else s.state}" for s in vertex.saved)
        text += f"  saved[{saved}]"
    return text


def _summary(model, show_saved) -> str:
    parts = [_plural(len(model.of_kind(OP)), "grad op"),
             _plural(len(model.of_kind(LEAF)), "leaf", "leaves")]
    if show_saved:
        parts.append(f"saved for backward {format_bytes(model.saved_bytes())}")
    counts = model.grad_counts()
    if counts["nonfinite"] or counts["zero"]:
        parts.append(f"{counts['nonfinite']} NaN/Inf grads, {counts['zero']} all-zero")
    if model.left_out:
        parts.append(f"{model.left_out:,} nodes left out (max_nodes={model.max_nodes})")
    return "(" + " · ".join(parts) + ")"


def to_ascii(text: str) -> str:
    """The text view with plain ASCII marks, for terminals that cannot show others."""
    return text.translate(_ASCII).encode("ascii", "replace").decode("ascii")


def _can_encode(stream, text: str) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True
