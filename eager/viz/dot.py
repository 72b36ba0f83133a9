"""make_graph: a Graphviz picture of the backward graph.

Arrows follow the forward data flow (leaves at the top, outputs at the bottom
with the default ``rankdir="TB"``); each box is one grad node, labelled with its
backward op. Name scopes become nested clusters, and ``collapse`` folds the
deep ones into single boxes so that big models stay readable.
"""
from __future__ import annotations

import dataclasses
import html
import importlib
import math

from . import style
from .render import PIP_HINT
from .walk import GRAD_NONFINITE, GRAD_ZERO, LEAF, OP, OUTPUT, walk

RANKDIRS = ("TB", "LR", "BT", "RL")
MAX_ATTRS = 6  # attributes listed per box; more are summarised
MAX_ATTR_CHARS = 28  # longer attribute values are cut


def make_graph(outputs, params=None, show_attrs: bool = False, show_saved: bool = False,
               show_grads: bool = False, collapse: int | None = None,
               max_nodes: int | None = None, rankdir: str = "TB"):
    """A ``graphviz.Digraph`` of the backward graph of ``outputs``.

    outputs: a Tensor or a sequence of Tensors (their backward graph is drawn).
    params: names for leaves: a dict name -> Tensor, or an ``eager.nn.Layer``.
    show_attrs: list each op's attributes (``transpose_x=False``, ...).
    show_saved: list the tensors each node keeps for backward, with their bytes;
        the caption gives the total.
    show_grads: show each leaf's gradient norm; NaN/Inf gradients are red,
        all-zero ones gray, and the caption counts them.
    collapse: fold name scopes deeper than this depth into one box each
        (0 folds every top-level scope).
    max_nodes: stop after this many grad nodes (leaves included), nearest the
        outputs first; the caption says how many were left out.
    rankdir: "TB" (default), "LR", "BT" or "RL".

    Render with ``eager.viz.render(graph, "graph.svg")`` or ``graph.pipe(format="svg")``
    (both need Graphviz's ``dot``); ``graph.source`` needs nothing more.
    """
    module = _import_graphviz()
    if collapse is not None and (isinstance(collapse, bool) or not isinstance(collapse, int)
                                 or collapse < 0):
        raise ValueError(f"collapse: expected None or an int >= 0, got {collapse!r}")
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir: expected one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    model = walk(outputs, params, max_nodes=max_nodes, grads=show_grads, saved=show_saved,
                 attrs=show_attrs)
    drawing = _Drawing(model, collapse, show_saved=show_saved, show_grads=show_grads)
    return drawing.draw(module.BackwardGraph, rankdir)


def _import_graphviz():
    try:
        # Through sys.modules, so a graphviz removed since the last call is noticed.
        _graphviz = importlib.import_module(f"{__package__}._graphviz")
    except ImportError as error:
        raise ImportError(
            f"eager.viz.make_graph needs the graphviz Python package: {PIP_HINT}. "
            f"eager.viz.print_graph draws a text view without it."
        ) from error
    return _graphviz


@dataclasses.dataclass
class _Fold:
    """A name scope folded into one box."""

    id: str
    scope: tuple
    ops: int = 0
    leaves: int = 0
    graded: int = 0  # leaves with a gradient
    nonfinite: int = 0
    zero: int = 0
    saved: dict = dataclasses.field(default_factory=dict)  # buffer key -> bytes


class _Drawing:
    def __init__(self, model, collapse, *, show_saved, show_grads):
        self.model = model
        self.collapse = collapse
        self.show_saved = show_saved
        self.show_grads = show_grads
        self.folds: dict = {}  # scope -> _Fold
        self.rep: dict = {}  # vertex id -> id of the box that shows it
        self.clusters: dict = {(): []}  # scope path -> [(id, attrs)]
        self.looks_used: list = []

    # -- placement ----------------------------------------------------------
    def _fold_of(self, vertex):
        if self.collapse is None or vertex.kind == OUTPUT or len(vertex.scope) <= self.collapse:
            return None
        scope = vertex.scope[:self.collapse + 1]
        fold = self.folds.get(scope)
        if fold is None:
            fold = self.folds[scope] = _Fold(id=f"fold{len(self.folds)}", scope=scope)
        return fold

    def _place(self):
        for vertex in self.model.vertices.values():
            fold = self._fold_of(vertex)
            if fold is None:
                self.rep[vertex.id] = vertex.id
                self._put(vertex.scope, vertex.id, self._vertex_attrs(vertex))
                continue
            self.rep[vertex.id] = fold.id
            if vertex.kind == OP:
                fold.ops += 1
                for saved in vertex.saved:
                    if saved.nbytes:
                        fold.saved[saved.key] = max(fold.saved.get(saved.key, 0), saved.nbytes)
            else:
                fold.leaves += 1
                if vertex.grad is not None:
                    fold.graded += 1
                    fold.nonfinite += vertex.grad.status == GRAD_NONFINITE
                    fold.zero += vertex.grad.status == GRAD_ZERO
        for fold in self.folds.values():
            self._put(fold.scope[:-1], fold.id, self._fold_attrs(fold))

    def _put(self, scope, node_id, attrs):
        for depth in range(len(scope) + 1):
            self.clusters.setdefault(scope[:depth], [])
        self.clusters[scope].append((node_id, attrs))

    def _use(self, look):
        if look not in self.looks_used:
            self.looks_used.append(look)
        return look

    # -- drawing ------------------------------------------------------------
    def draw(self, graph_class, rankdir):
        self._place()
        graph = graph_class(
            name="backward",
            graph_attr={"rankdir": rankdir, "fontname": style.FONT, "fontsize": "10",
                        "nodesep": "0.3", "ranksep": "0.4", "pad": "0.3", "newrank": "true",
                        "labelloc": "b", "labeljust": "l", "bgcolor": "white",
                        "outputorder": "edgesfirst"},
            node_attr={"fontname": style.FONT, "fontsize": style.FONT_SIZE, "margin": "0.12,0.05",
                       "penwidth": "1.2", "height": "0.3", **_look_attrs(style.OP)},
            edge_attr={"color": style.EDGE, "arrowsize": "0.7", "penwidth": "1.1",
                       "fontname": style.FONT, "fontsize": style.SMALL,
                       "fontcolor": style.MUTED},
        )
        self._draw_clusters(graph, graph_class)
        self._draw_edges(graph)
        self._draw_left_out(graph)
        graph.stats = self._stats()
        graph.attr(label=self._caption(graph.stats))
        return graph

    def _draw_clusters(self, graph, graph_class):
        # Deepest scopes first, so each cluster is complete when its parent takes it in.
        paths = sorted(self.clusters, key=len, reverse=True)
        made = {(): graph}
        for index, path in enumerate(sorted(self.clusters, key=lambda p: (len(p), p))):
            if path:
                depth = len(path) - 1
                made[path] = graph_class(
                    name=f"cluster_{index}",
                    graph_attr={"label": path[-1], "tooltip": "/".join(path),
                                "style": "rounded,filled", "fillcolor": style.cluster_fill(depth),
                                "color": style.CLUSTER_BORDER, "fontcolor": style.CLUSTER_FONT,
                                "fontsize": style.FONT_SIZE, "labeljust": "l", "labelloc": "t",
                                "margin": "10",
                                "penwidth": "1"},
                )
        for path in paths:
            target = made[path]
            for node_id, attrs in self.clusters[path]:
                target.node(node_id, **attrs)
            if path:
                made[path[:-1]].subgraph(target)

    def _draw_edges(self, graph):
        vertices = self.model.vertices
        folded: dict = {}
        for source, target, rank in self.model.edges:
            tail, head = self.rep[source], self.rep[target]
            if tail == head:
                continue
            if tail != source or head != target:  # an end is folded: draw one edge per pair
                folded[(tail, head)] = folded.get((tail, head), 0) + 1
                continue
            attrs = {}
            if vertices[source].num_outputs > 1:
                attrs["label"] = f" out{rank}"
            if vertices[source].is_view:
                attrs["style"] = "dotted"
            graph.edge(tail, head, **attrs)
        for (tail, head), count in folded.items():
            attrs = {"penwidth": f"{min(1.1 + math.log2(count) * 0.5, 3.0):.2f}"}
            if count > 1:
                attrs["label"] = f" ×{count}"
            graph.edge(tail, head, **attrs)

    def _draw_left_out(self, graph):
        if not self.model.left_out:
            return
        graph.node("more", label=f"⋯ {self.model.left_out:,} more nodes", shape="plaintext",
                   style="", fontcolor=style.MUTED)
        heads = {self.rep[v.id] for v in self.model.vertices.values() if v.truncated}
        for head in sorted(heads):
            graph.edge("more", head, style="dashed", color=style.MUTED)

    # -- boxes --------------------------------------------------------------
    def _vertex_attrs(self, vertex) -> dict:
        if vertex.kind == OP:
            look = style.VIEW if vertex.is_view else style.OP
            label = self._op_label(vertex)
            tooltip = f"{vertex.title}: backward of {vertex.op_name or '?'}"
        elif vertex.kind == LEAF:
            look = style.PARAM if vertex.named else style.LEAF
            if vertex.grad is not None and vertex.grad.status == GRAD_NONFINITE:
                look = style.NONFINITE
            elif vertex.grad is not None and vertex.grad.status == GRAD_ZERO:
                look = style.ZERO
            label = self._leaf_label(vertex)
            tooltip = f"leaf {vertex.title}" if vertex.named else "leaf tensor"
        else:
            look = style.OUTPUT
            label = self._output_label(vertex)
            tooltip = f"output {vertex.title}"
        if vertex.scope:
            tooltip += f" (scope {'/'.join(vertex.scope)})"
        attrs = self._look_attrs(self._use(look))
        if look in (style.NONFINITE, style.ZERO) and vertex.kind == LEAF:
            self._use(style.PARAM if vertex.named else style.LEAF)
        attrs.update(label=label, tooltip=tooltip)
        if vertex.saved:
            self._use(style.SAVED)
        return attrs

    @staticmethod
    def _look_attrs(look) -> dict:
        """The attributes of ``look`` that differ from the defaults (a grad op's)."""
        defaults = _look_attrs(style.OP)
        return {key: value for key, value in _look_attrs(look).items() if defaults.get(key) != value}

    def _fold_attrs(self, fold) -> dict:
        look = self._use(style.FOLDED)
        attrs = self._look_attrs(look)
        rows = [_bold(fold.scope[-1]),
                _small(f"{_plural(fold.ops, 'op')} folded" +
                       (f" · {_plural(fold.leaves, 'leaf', 'leaves')}" if fold.leaves else ""))]
        if self.show_saved:
            rows.append(_small(f"saved {format_bytes(sum(fold.saved.values()))}"))
        healthy = fold.graded - fold.nonfinite - fold.zero
        if healthy:
            rows.append(_small(f"{_plural(healthy, 'healthy grad')}"))
        if fold.nonfinite:
            rows.append(_small(f"{_plural(fold.nonfinite, 'NaN/Inf grad')}", style.NONFINITE.border))
            attrs.update(color=style.NONFINITE.border, penwidth="2")
            self._use(style.NONFINITE)
        if fold.zero:
            rows.append(_small(f"{_plural(fold.zero, 'all-zero grad')}", style.ZERO.font))
            self._use(style.ZERO)
        attrs.update(label=_table(rows), tooltip=f"scope {'/'.join(fold.scope)}")
        return attrs

    def _op_label(self, vertex) -> str:
        title = _bold(vertex.title)
        if vertex.is_view:
            title += f' <FONT POINT-SIZE="{style.SMALL}" COLOR="{style.MUTED}">(view)</FONT>'
        rows = [title]
        attrs = vertex.attrs
        for name, value in attrs[:MAX_ATTRS]:
            rows.append(_small(f"{name}={_short(value)}"))
        if len(attrs) > MAX_ATTRS:
            rows.append(_small(f"… {len(attrs) - MAX_ATTRS} more"))
        for saved in vertex.saved:
            rows.append(_saved_row(saved))
        return _table(rows)

    def _leaf_label(self, vertex) -> str:
        rows = [_bold(vertex.title) if vertex.named else _italic("leaf")]
        rows.append(_small(describe_shape(vertex.shape, vertex.dtype)))
        grad = vertex.grad
        if grad is not None:
            colour = {GRAD_NONFINITE: style.NONFINITE.font, GRAD_ZERO: style.ZERO.font}.get(
                grad.status, style.MUTED)
            rows.append(_small(describe_grad(grad), colour))
        elif self.show_grads:
            rows.append(_small("no grad yet"))
        return _table(rows)

    def _output_label(self, vertex) -> str:
        if vertex.named:
            rows = [_bold(vertex.title), _small(f"output · {describe_shape(vertex.shape, vertex.dtype)}")]
        else:
            rows = [_bold("output"), _small(describe_shape(vertex.shape, vertex.dtype))]
        if not vertex.inputs:
            rows.append(_small("no grad (stop_gradient)"))
        return _table(rows)

    # -- caption ------------------------------------------------------------
    def _stats(self) -> dict:
        model = self.model
        counts = model.grad_counts()
        return {
            "ops": len(model.of_kind(OP)),
            "leaves": len(model.of_kind(LEAF)),
            "outputs": len(model.of_kind(OUTPUT)),
            "saved_bytes": model.saved_bytes() if self.show_saved else None,
            "nonfinite_grads": counts[GRAD_NONFINITE],
            "zero_grads": counts[GRAD_ZERO],
            "healthy_grads": counts["ok"],
            "folds": len(self.folds),
            "folded_ops": sum(fold.ops for fold in self.folds.values()),
            "left_out": model.left_out,
        }

    def _caption(self, stats) -> str:
        lines = [f"{_plural(stats['ops'], 'grad op')} · {_plural(stats['leaves'], 'leaf', 'leaves')}"
                 f" · {_plural(stats['outputs'], 'output')}"]
        if self.show_saved:
            lines.append(f"saved for backward: {format_bytes(stats['saved_bytes'])}")
        if self.show_grads:
            if stats["nonfinite_grads"] + stats["zero_grads"] + stats["healthy_grads"] == 0:
                lines.append("gradients: none yet (run backward first)")
            else:
                lines.append(f"gradients: {stats['nonfinite_grads']} NaN/Inf · "
                             f"{stats['zero_grads']} all-zero · {stats['healthy_grads']} healthy")
        if self.folds:
            lines.append(f"scopes deeper than {self.collapse} folded: "
                         f"{_plural(stats['folded_ops'], 'op')} in {_plural(stats['folds'], 'box', 'boxes')}")
        if stats["left_out"]:
            lines.append(f"{stats['left_out']:,} nodes left out (max_nodes={self.model.max_nodes})")
        swatches = "".join(_swatch(look) for look in _legend_order(self.looks_used))
        width = len(self.looks_used) + 1
        text = "".join(f"{_esc(line)}<BR ALIGN=\"LEFT\"/>" for line in lines)
        return (f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="4" CELLPADDING="3">'
                f'<TR><TD BORDER="0"><FONT COLOR="{style.MUTED}">legend</FONT></TD>{swatches}</TR>'
                f'<TR><TD BORDER="0" COLSPAN="{width}" ALIGN="LEFT">'
                f'<FONT POINT-SIZE="10" COLOR="{style.MUTED}">{text}</FONT></TD></TR></TABLE>>')


def _look_attrs(look) -> dict:
    attrs = {"shape": look.shape, "style": look.style, "fillcolor": look.fill,
             "color": look.border, "fontcolor": look.font}
    if look.peripheries != 1:
        attrs["peripheries"] = str(look.peripheries)
    if look is style.NONFINITE:
        attrs["penwidth"] = "2"
    return attrs


_LEGEND = (style.OUTPUT, style.OP, style.VIEW, style.PARAM, style.LEAF, style.SAVED, style.FOLDED,
           style.NONFINITE, style.ZERO)


def _legend_order(used) -> list:
    return [look for look in _LEGEND if look in used]


def _swatch(look) -> str:
    extra = ' STYLE="dotted"' if "dotted" in look.style else ""
    return (f'<TD BGCOLOR="{look.fill}" COLOR="{look.border}"{extra}>'
            f'<FONT POINT-SIZE="{style.SMALL}" COLOR="{look.font}">{_esc(look.legend)}</FONT></TD>')


# -- label pieces -----------------------------------------------------------
def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _bold(text) -> str:
    return f"<B>{_esc(text)}</B>"


def _italic(text) -> str:
    return f"<I>{_esc(text)}</I>"


def _small(text, colour: str = style.MUTED) -> str:
    return f'<FONT POINT-SIZE="{style.SMALL}" COLOR="{colour}">{_esc(text)}</FONT>'


def _table(rows) -> str:
    body = "".join(row if row.startswith("<TR>") else f"<TR><TD>{row}</TD></TR>" for row in rows)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{body}</TABLE>>'


def _saved_row(saved) -> str:
    if saved.state == "freed":
        text = f"{saved.name}: freed"
    else:
        size = format_bytes(saved.nbytes) if saved.nbytes else "shape only"
        text = f"{saved.name}: {describe_shape(list(saved.shape), saved.dtype)} · {size}"
    return (f'<TR><TD BGCOLOR="{style.SAVED.fill}" ALIGN="LEFT">'
            f'<FONT POINT-SIZE="{style.SMALL}" COLOR="#5B3F78">{_esc(text)}</FONT></TD></TR>')


def _short(value, limit: int = MAX_ATTR_CHARS) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def describe_shape(shape, dtype) -> str:
    if shape is None:
        return "shape unknown"
    return f"[{', '.join(str(d) for d in shape)}] {dtype}"


def describe_grad(grad) -> str:
    if grad.status == GRAD_NONFINITE:
        parts = [f"{grad.nan:,} NaN" if grad.nan else "", f"{grad.inf:,} Inf" if grad.inf else ""]
        return f"‖grad‖ = {grad.norm} ({', '.join(p for p in parts if p)})"
    if grad.status == GRAD_ZERO:
        return "grad all zero"
    return f"‖grad‖ = {format_norm(grad.norm)}"


def format_norm(value: float) -> str:
    if 1e-3 <= abs(value) < 1e4:
        return f"{value:.4g}"
    return f"{value:.2e}"


def format_bytes(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
