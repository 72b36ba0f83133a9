"""eager.viz: pictures and text views of the backward graph.

The DOT source is checked for known graphs (boxes, arrows, labels, clusters,
colours); pictures are rendered with the real ``dot`` and read back as XML.
"""
import io
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import eager
from eager.viz import style

graphviz = pytest.importorskip("graphviz")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def leaf(shape, value=1.0):
    return eager.to_tensor(np.full(shape, value, "float32"), stop_gradient=False)


def const(shape, value=1.0):
    return eager.to_tensor(np.full(shape, value, "float32"))


def small_net():
    """loss = mean(reshape(tanh(x @ w + b))), with name scopes enc and enc/lin."""
    w, b, x = leaf((3, 2), 0.5), leaf((2,), 0.1), const((4, 3))
    with eager.viz.name_scope("enc"):
        with eager.viz.name_scope("lin"):
            h = eager.add(eager.matmul(x, w), b)
        h = eager.tanh(h)
        r = eager.reshape(h, [8])
    loss = eager.mean(r)
    return loss, w, b


def node_lines(source):
    """DOT node id -> its whole statement."""
    return {m.group(1): m.group(0) for m in re.finditer(r"^\s*(\w+) \[.*\]$", source, re.M)
            if m.group(1) not in ("graph", "node", "edge")}


def edges(source):
    return re.findall(r"^\s*(\w+) -> (\w+)", source, re.M)


def by_label(lines, text):
    found = [nid for nid, line in lines.items() if f"<B>{text}</B>" in line or f"<I>{text}</I>" in line]
    assert len(found) == 1, (text, found)
    return found[0]


# -- structure --------------------------------------------------------------
def test_boxes_arrows_and_labels_of_a_known_graph():
    loss, w, b = small_net()
    graph = eager.viz.make_graph(loss, params={"w": w})
    assert isinstance(graph, graphviz.Digraph)
    source = graph.source
    lines = node_lines(source)
    ids = {name: by_label(lines, name) for name in
           ("matmul_grad", "add_grad", "tanh_grad", "reshape_grad", "mean_grad", "w", "output")}
    unnamed = by_label(lines, "leaf")
    # Arrows follow the forward data flow, from leaves to the output.
    assert sorted(edges(source)) == sorted([
        (ids["w"], ids["matmul_grad"]), (ids["matmul_grad"], ids["add_grad"]),
        (unnamed, ids["add_grad"]), (ids["add_grad"], ids["tanh_grad"]),
        (ids["tanh_grad"], ids["reshape_grad"]), (ids["reshape_grad"], ids["mean_grad"]),
        (ids["mean_grad"], ids["output"]),
    ])
    # Leaves show name (when known), shape and dtype; the output is marked.
    assert "[3, 2] float32" in lines[ids["w"]] and style.PARAM.fill in lines[ids["w"]]
    assert style.LEAF.fill in lines[unnamed]  # its shape is known once it has a grad (below)
    assert "peripheries=2" in lines[ids["output"]] and style.OUTPUT.fill in lines[ids["output"]]
    assert "[] float32" in lines[ids["output"]]
    assert graph.stats["ops"] == 5 and graph.stats["leaves"] == 2 and graph.stats["outputs"] == 1
    # No attributes unless asked for.
    assert "transpose_x" not in source


def test_unnamed_leaves_show_shape_and_dtype_when_known():
    loss, w, b = small_net()
    # add keeps only shapes, but the accumulation node keeps b weakly: its shape is known ...
    lines = node_lines(eager.viz.make_graph(loss, params={"w": w}).source)
    assert "[2] float32" in lines[by_label(lines, "leaf")]
    # ... and a name set on the tensor itself is shown.
    b.name = "bias_term"
    lines = node_lines(eager.viz.make_graph(loss, params={"w": w}).source)
    assert any("bias_term" in line for line in lines.values())
    # Once b is gone, only what the graph saved remains.
    loss.backward(retain_graph=True)
    lines = node_lines(eager.viz.make_graph(loss, params={"w": w}).source)
    assert "[2] float32" in lines[by_label(lines, "bias_term")]
    # matmul keeps w itself, so w is known from the start, name or not.
    loss, w, b = small_net()
    assert "[3, 2] float32" in eager.viz.make_graph(loss).source


def test_views_are_dotted():
    loss, w, _ = small_net()
    lines = node_lines(eager.viz.make_graph(loss).source)
    assert "dotted" in lines[by_label(lines, "reshape_grad")]
    assert "dotted" not in lines[by_label(lines, "tanh_grad")]
    assert "view op" in eager.viz.make_graph(loss).source  # in the legend


def test_a_view_flag_on_any_node_is_honoured(monkeypatch):
    loss, _, _ = small_net()
    tanh_node = loss.grad_node.next_edges[0][0][0].next_edges[0][0][0]
    assert tanh_node.backward_op == "tanh_grad"
    monkeypatch.setattr(type(tanh_node), "is_view", True, raising=False)
    lines = node_lines(eager.viz.make_graph(loss).source)
    assert "dotted" in lines[by_label(lines, "tanh_grad")]


def test_show_attrs_lists_and_truncates_attributes():
    loss, _, _ = small_net()
    source = eager.viz.make_graph(loss, show_attrs=True).source
    assert "transpose_x=False" in source and "keepdim=False" in source
    x = leaf([1] * 12)
    total = eager.sum(x, axis=tuple(range(12)))
    source = eager.viz.make_graph(total, show_attrs=True).source
    assert "axis=(0, 1, 2, 3" in source and "…" in source
    assert "axis=(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)" not in source


def test_show_saved_lists_tensors_and_totals_bytes():
    loss, _, _ = small_net()
    graph = eager.viz.make_graph(loss, show_saved=True)
    lines = node_lines(graph.source)
    matmul = lines[by_label(lines, "matmul_grad")]
    assert "x: [4, 3] float32 · 48 B" in matmul and "y: [3, 2] float32 · 24 B" in matmul
    assert style.SAVED.fill in matmul
    assert "shape only" in lines[by_label(lines, "reshape_grad")]
    # matmul keeps x and w (48 + 24), tanh keeps its output (4*2*4 = 32); the rest shape only.
    assert graph.stats["saved_bytes"] == 48 + 24 + 32
    assert "saved for backward: 104 B" in graph.source
    assert "saved for backward" not in eager.viz.make_graph(loss).source


def test_a_buffer_saved_twice_counts_once():
    x = leaf((10,))
    y = eager.multiply(x, x)  # saves x as both x and y
    graph = eager.viz.make_graph(eager.sum(y), show_saved=True)
    assert graph.stats["saved_bytes"] == 40


def test_saved_tensors_freed_by_backward_show_as_freed():
    loss, _, _ = small_net()
    loss.backward()
    graph = eager.viz.make_graph(loss, show_saved=True)
    assert "x: freed" in graph.source and graph.stats["saved_bytes"] == 0


# -- gradient health --------------------------------------------------------
def test_gradient_norms_and_health_colours():
    healthy, broken, dead = leaf((3,), 2.0), leaf((3,)), leaf((3,))
    bad_input = eager.to_tensor(np.array([1.0, np.nan, 1.0], "float32"))
    loss = eager.add(eager.add(eager.sum(eager.multiply(healthy, healthy)),
                               eager.sum(eager.multiply(broken, bad_input))),
                     eager.sum(eager.multiply(dead, const((3,), 0.0))))
    loss.backward(retain_graph=True)
    params = {"healthy": healthy, "broken": broken, "dead": dead}
    graph = eager.viz.make_graph(loss, params=params, show_grads=True)
    lines = node_lines(graph.source)
    good = lines[by_label(lines, "healthy")]
    assert f"‖grad‖ = {np.linalg.norm([4.0, 4.0, 4.0]):.4g}" in good and style.PARAM.fill in good
    nan = lines[by_label(lines, "broken")]
    assert style.NONFINITE.fill in nan and style.NONFINITE.border in nan and "1 NaN" in nan
    zero = lines[by_label(lines, "dead")]
    assert style.ZERO.fill in zero and "grad all zero" in zero
    assert graph.stats["nonfinite_grads"] == 1 and graph.stats["zero_grads"] == 1
    assert graph.stats["healthy_grads"] == 1
    assert "gradients: 1 NaN/Inf · 1 all-zero · 1 healthy" in graph.source
    assert "NaN/Inf grad" in graph.source and "all-zero grad" in graph.source  # legend
    # Without show_grads the picture says nothing about gradients.
    assert "‖grad‖" not in eager.viz.make_graph(loss, params=params).source


def test_show_grads_before_backward_says_so():
    loss, w, _ = small_net()
    source = eager.viz.make_graph(loss, show_grads=True).source
    assert "no grad yet" in source and "gradients: none yet" in source


# -- scopes -----------------------------------------------------------------
def test_name_scopes_are_nested_clusters():
    loss, w, _ = small_net()
    source = eager.viz.make_graph(loss, params={"w": w}).source
    enc = re.search(r"subgraph (cluster_\d+) \{\s*graph \[[^\]]*label=enc[ \]]", source)
    lin = re.search(r"subgraph (cluster_\d+) \{\s*graph \[[^\]]*label=lin[ \]]", source)
    assert enc and lin and enc.start() < lin.start()
    # lin sits inside enc: its block closes before enc's does, and holds matmul and w.
    lin_block = source[lin.start():source.index("\n\t\t}", lin.start())]
    assert "<B>matmul_grad</B>" in lin_block and "<B>w</B>" in lin_block
    assert "<B>tanh_grad</B>" not in lin_block
    assert "tanh_grad" in source[enc.start():] and "mean_grad" not in lin_block
    assert eager.viz.name_scope is eager.autograd.scope.name_scope


def test_collapse_folds_deep_scopes():
    loss, w, _ = small_net()
    graph = eager.viz.make_graph(loss, params={"w": w}, collapse=0)
    source = graph.source
    assert "cluster_" not in source
    lines = node_lines(source)
    enc = by_label(lines, "enc")
    assert "box3d" in lines[enc] and "4 ops folded · 2 leaves" in lines[enc]
    mean = by_label(lines, "mean_grad")
    assert sorted(edges(source)) == sorted([(mean, by_label(lines, "output")), (enc, mean)])
    assert graph.stats["folds"] == 1 and graph.stats["folded_ops"] == 4
    assert "scopes deeper than 0 folded: 4 ops in 1 box" in source

    graph = eager.viz.make_graph(loss, params={"w": w}, collapse=1)
    lines = node_lines(graph.source)
    lin = by_label(lines, "lin")
    assert "2 ops folded · 2 leaves" in lines[lin]
    assert "<B>tanh_grad</B>" in graph.source and "cluster_" in graph.source
    assert (lin, by_label(lines, "tanh_grad")) in edges(graph.source)


def test_collapse_carries_gradient_health():
    w = leaf((2,))
    with eager.viz.name_scope("block"):
        y = eager.multiply(w, eager.to_tensor(np.array([np.inf, 1.0], "float32")))
    loss = eager.sum(y)
    loss.backward()
    source = eager.viz.make_graph(loss, collapse=0, show_grads=True).source
    lines = node_lines(source)
    assert "1 NaN/Inf grad" in lines[by_label(lines, "block")]
    assert style.NONFINITE.border in lines[by_label(lines, "block")]


def test_thousands_of_scoped_nodes_collapse_to_a_few_boxes():
    x = leaf((2,))
    y = x
    for block in range(20):
        with eager.viz.name_scope(f"block{block}"):
            for _ in range(100):
                y = eager.tanh(y)
    graph = eager.viz.make_graph(y, collapse=0)
    assert graph.stats["ops"] == 2000 and graph.stats["folds"] == 20
    assert len(node_lines(graph.source)) == 21  # 20 boxes and the output


# -- size limits ------------------------------------------------------------
def test_max_nodes_stops_and_counts_what_it_left_out():
    x = leaf((2,))
    y = x
    for _ in range(30):
        y = eager.scale(y, 2.0)
    graph = eager.viz.make_graph(y, max_nodes=10)
    assert graph.stats["ops"] == 10
    assert graph.stats["left_out"] == 21  # 20 scale nodes and the leaf
    assert "21 nodes left out (max_nodes=10)" in graph.source
    assert "⋯ 21 more nodes" in graph.source
    with pytest.raises(ValueError, match="max_nodes"):
        eager.viz.make_graph(y, max_nodes=0)


def test_a_100000_node_chain_needs_no_recursion():
    x = leaf((2,))
    y = x
    for _ in range(100_000):
        y = eager.scale(y, 1.0)
    limit = sys.getrecursionlimit()
    model = eager.viz.walk(y)
    assert len(model.vertices) == 100_002  # 100,000 ops, the leaf, the output
    graph = eager.viz.make_graph(y, max_nodes=100)
    assert graph.stats["left_out"] == 100_000 - 100 + 1
    text = eager.viz.print_graph(y, file=io.StringIO())
    assert text.count("scale_grad") == 100_000
    assert sys.getrecursionlimit() == limit


# -- text view --------------------------------------------------------------
def test_print_graph_text_view():
    loss, w, _ = small_net()
    loss.backward(retain_graph=True)
    out = io.StringIO()
    text = eager.viz.print_graph(loss, params={"w": w}, show_grads=True, show_attrs=True, file=out)
    assert out.getvalue() == text + "\n"
    lines = text.splitlines()
    assert lines[0] == "output  [] float32"
    assert lines[1].startswith("mean_grad") and "keepdim=False" in lines[1]
    assert lines[2].startswith("reshape_grad (view)") and lines[2].endswith("@enc")
    assert lines[4].startswith("add_grad") and lines[4].endswith("@enc/lin")
    assert lines[5].startswith("├─ matmul_grad")
    assert lines[6].startswith("│  leaf w  [3, 2] float32  ‖grad‖ = ")
    assert lines[7].startswith("└─ leaf  [2] float32")
    assert lines[-1] == "(5 grad ops · 2 leaves)"


def test_print_graph_shows_shared_nodes_once():
    x = leaf((2,))
    h = eager.tanh(x)
    loss = eager.sum(eager.add(eager.exp(h), eager.relu(h)))
    text = eager.viz.print_graph(loss, file=io.StringIO())
    assert text.count("tanh_grad") == 2
    assert "tanh_grad  [#1]" in text and "↑ #1 tanh_grad" in text
    assert text.count("leaf  ") == 1


def test_print_graph_falls_back_to_ascii():
    loss, _, _ = small_net()
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    text = eager.viz.print_graph(loss, file=stream)
    stream.flush()
    printed = raw.getvalue().decode("ascii")
    assert "├─" in text and "|- matmul_grad" in printed and "(5 grad ops - 2 leaves)" in printed


def test_print_graph_needs_no_graphviz_package():
    code = (
        "import sys; sys.modules['graphviz'] = None\n"
        "import numpy as np, eager\n"
        "w = eager.to_tensor(np.ones(3, 'float32'), stop_gradient=False)\n"
        "eager.viz.print_graph(eager.sum(eager.tanh(w)), params={'w': w})\n"
        "try:\n"
        "    eager.viz.make_graph(eager.sum(w))\n"
        "except ImportError as e:\n"
        "    print('ERR', e)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=_repo_root(), env=_env())
    assert result.returncode == 0, result.stderr
    assert "leaf w  [3] float32" in result.stdout
    assert "pip install eager-phi[viz]" in result.stdout and "pip install graphviz" in result.stdout


# -- arguments --------------------------------------------------------------
def test_params_from_a_layer_and_tensor_names():
    linear = eager.nn.Linear(3, 2)
    x = const((4, 3))
    x.name = "features"  # unnamed leaves that stop gradients are not drawn; names still apply
    loss = eager.mean(linear(x))
    source = eager.viz.make_graph(loss, params=linear).source
    assert "<B>weight</B>" in source and "<B>bias</B>" in source
    assert "[3, 2] float32" in source and "[2] float32" in source
    named = leaf((2,))
    named.name = "alpha"
    # multiply keeps its inputs, so the walk finds the tensor and its name
    assert "<B>alpha</B>" in eager.viz.make_graph(eager.sum(eager.multiply(named, named))).source


def test_several_outputs_and_an_output_without_grad():
    w = leaf((2,))
    a, b = eager.sum(w), eager.mean(w)
    c = const((1,))
    graph = eager.viz.make_graph([a, b, c])
    lines = node_lines(graph.source)
    assert {"out0", "out1", "out2"} <= set(lines)
    assert "no grad (stop_gradient)" in lines["out2"]
    assert len([e for e in edges(graph.source) if e[0] == by_label(lines, "leaf")]) == 2


def test_edges_from_a_multi_output_op_name_the_output():
    w = leaf((2, 3))
    parts = eager.split(w, 3, axis=1)
    loss = eager.sum(eager.concat([eager.tanh(parts[0]), parts[2]], axis=1))
    source = eager.viz.make_graph(loss).source
    lines = node_lines(source)
    split = by_label(lines, "split_grad")
    labelled = re.findall(rf"^\s*{split} -> (\w+) \[label=\" out(\d)\"", source, re.M)
    assert sorted(labelled) == sorted([(by_label(lines, "tanh_grad"), "0"),
                                       (by_label(lines, "concat_grad"), "2")])


def test_bad_arguments_are_named():
    loss, _, _ = small_net()
    with pytest.raises(TypeError, match="outputs: expected a Tensor"):
        eager.viz.make_graph(np.ones(3))
    with pytest.raises(TypeError, match="outputs"):
        eager.viz.make_graph([])
    with pytest.raises(TypeError, match="params"):
        eager.viz.make_graph(loss, params=3)
    with pytest.raises(ValueError, match="rankdir"):
        eager.viz.make_graph(loss, rankdir="UP")
    with pytest.raises(ValueError, match="collapse"):
        eager.viz.make_graph(loss, collapse=-1)


def test_make_graph_without_graphviz_package_says_what_to_install(monkeypatch):
    loss, _, _ = small_net()
    monkeypatch.setitem(sys.modules, "graphviz", None)
    monkeypatch.delitem(sys.modules, "eager.viz._graphviz", raising=False)
    with pytest.raises(ImportError, match=re.escape("pip install eager-phi[viz]")):
        eager.viz.make_graph(loss)


def test_legend_shows_only_kinds_present():
    loss, w, _ = small_net()
    source = eager.viz.make_graph(loss, params={"w": w}).source
    legend = source[source.index(">legend<"):]
    for word in ("output", "grad op", "view op", "parameter", "leaf tensor"):
        assert f">{word}<" in legend
    for word in ("folded scope", "NaN/Inf grad", "saved for backward"):
        assert f">{word}<" not in legend


# -- rendering --------------------------------------------------------------
def svg_texts(data: bytes) -> list:
    root = ET.fromstring(data)
    return ["".join(t.itertext()).strip() for t in root.iter("{http://www.w3.org/2000/svg}text")]


@needs_dot
def test_renders_svg_with_the_expected_labels(tmp_path):
    loss, w, _ = small_net()
    loss.backward(retain_graph=True)
    graph = eager.viz.make_graph(loss, params={"w": w}, show_attrs=True, show_saved=True,
                                 show_grads=True)
    texts = svg_texts(graph.pipe(format="svg"))
    for expected in ("matmul_grad", "add_grad", "tanh_grad", "reshape_grad", "mean_grad", "w",
                     "output", "enc", "lin", "transpose_x=False", "x: [4, 3] float32 · 48 B",
                     "legend", "saved for backward: 104 B"):
        assert expected in texts, expected
    assert any(t.startswith("‖grad‖ = ") for t in texts)
    path = eager.viz.render(graph, tmp_path / "graph.svg")
    assert path.endswith("graph.svg")
    assert "matmul_grad" in svg_texts(open(path, "rb").read())


@needs_dot
def test_renders_png_and_collapsed_pictures(tmp_path):
    loss, w, _ = small_net()
    path = eager.viz.render(eager.viz.make_graph(loss, collapse=0), tmp_path / "sub" / "graph",
                            format="png")
    assert path.endswith("graph.png")
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    texts = svg_texts(eager.viz.make_graph(loss, collapse=0).pipe(format="svg"))
    assert "enc" in texts and "4 ops folded · 2 leaves" in texts


def test_missing_dot_says_what_to_install(monkeypatch, tmp_path):
    loss, _, _ = small_net()
    graph = eager.viz.make_graph(loss)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no dot on PATH
    for attempt in (lambda: eager.viz.render(graph, tmp_path / "g.svg"),
                    lambda: graph.pipe(format="svg")):
        with pytest.raises(eager.viz.GraphvizNotFoundError) as error:
            attempt()
        message = str(error.value)
        assert "apt-get install graphviz" in message and "brew install graphviz" in message
        assert "conda install -c conda-forge graphviz" in message
    assert "digraph" in graph.source  # the source needs no dot


def _repo_root():
    import pathlib

    return str(pathlib.Path(__file__).resolve().parent.parent)


def _env():
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = _repo_root() + os.pathsep + env.get("PYTHONPATH", "")
    return env
