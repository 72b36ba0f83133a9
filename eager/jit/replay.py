"""A trace's whole replay as one generated function.

A replay reads the input tensors' arrays, refuses (returns ``ALIASED``) when
one of them is a buffer of the state (an input aliasing a parameter: the call
then runs eagerly), runs the compiled kernel list (trace.py), repeats the
effects the capture saw outside the kernels (the version bumps of the state's
tensors, the optimizers' step counters) and builds the return value from the
replayed arrays. :func:`compile_replay` writes these steps as straight-line
Python for one trace, so that a replay runs no loop, no template walk and no
property on the way: the same effects as the general code, in fewer
bytecodes (see docs/jit.md's "What a replay costs").
"""
from __future__ import annotations

from phi.core import DenseTensor
from phi.core.dense_tensor import VersionCounter

from ..autograd.accumulation import edge_of
from ..autograd.meta import AutogradMeta
from ..tensor import Tensor
from .backward import ReplayGradNode

# What a replay returns when an input tensor's array is a buffer the trace reads
# from the state: the call runs eagerly instead.
ALIASED = object()


def _bump(impl, count):
    for _ in range(count):
        impl.bump_version()


def _node(*args):
    """A ReplayGradNode. (Through this function: a replay's namespace must not hold
    the class itself, whose reference count gc_policy reads as live nodes.)"""
    return ReplayGradNode(*args)


def _counted(count):
    """A VersionCounter that already counts ``count`` in-place writes."""
    counter = VersionCounter()
    counter.value = count
    return counter


def compile_replay(run, n_inputs, located_ids, bumps, counter_steps, template, grad):
    """``replay(tensors)``: the trace's result for the input tensors, or ALIASED.

    ``run`` is the compiled kernel list; ``bumps`` (DenseTensor, count) pairs;
    ``counter_steps`` (optimizer, ((attribute, step), ...)) pairs; ``template``
    the result's template (static_function._number_results); ``grad`` the
    _GradPlan of a forward-only trace, or None.
    """
    namespace = {"_run": run, "_located": located_ids, "_ALIASED": ALIASED, "_bump": _bump,
                 "_VC": VersionCounter, "_D": DenseTensor, "_T": Tensor, "_AM": AutogradMeta,
                 "_counted": _counted, "_grad": grad, "_node": _node, "_edge_of": edge_of}
    lines = ["def replay(tensors):"]

    def name(value):
        key = f"o{len(namespace)}"
        namespace[key] = value
        return key

    arrays = [f"a{i}" for i in range(n_inputs)]
    if n_inputs:
        for i in range(n_inputs):
            lines.append(f"    a{i} = tensors[{i}].impl.array")
        lines.append("    if " + " or ".join(f"id({a}) in _located" for a in arrays) + ": return _ALIASED")
    lines.append(f"    arrays = _run([{', '.join(arrays)}])")
    for impl, count in bumps:
        n = name(impl)
        if type(impl) is DenseTensor:  # its own bump_version: the counter's value moves by one per write
            lines.append(f"    if type(v := {n}.version_counter) is _VC: v.value += {count!r}")
            lines.append(f"    else: _bump({n}, {count!r})")
        else:
            lines.append(f"    _bump({n}, {count!r})")
    for opt, steps in counter_steps:
        n = name(opt)
        for attribute, step in steps:
            if attribute.isidentifier():
                lines.append(f"    {n}.{attribute} = {n}.{attribute} + {name(step)}")
            else:
                lines.append(f"    setattr({n}, {name(attribute)}, getattr({n}, {name(attribute)}) + {name(step)})")
    made = set()
    slots = {}  # grad slot -> the variable of the output tensor that has it

    def build(t):
        kind = t[0]
        if kind == "t":  # (index among results, stop_gradient, version, which, grad slot)
            var = f"r{t[4]}"
            if t[4] in made:  # the call returned this tensor more than once
                return var
            made.add(t[4])
            lines.append(f"    {var} = _T(_D(arrays[{t[1]}]))")
            if t[3]:
                lines.append(f"    {var}.impl.version_counter = _counted({t[3]!r})")
            if t[5] is not None:  # its history is the replay's grad node (attached below)
                slots[t[5]] = var
            elif not t[2]:  # stop_gradient False: a leaf of its own, as eager's setter makes it
                lines.append(f"    {var}._meta = _AM()")
            return var
        if kind == "c" or kind == "obj":
            return name(t[1])
        if kind == "in":
            return f"tensors[{t[1]!r}]"
        items = [build(item) for item in t[2]]
        if t[1] is dict:
            return "{" + "".join(f"{name(k)}: {v}, " for k, v in zip(t[3], items)) + "}"
        if t[1] is list:
            return "[" + ", ".join(items) + "]"
        return "(" + "".join(f"{v}, " for v in items) + ")"

    result = build(template)
    lines.append(f"    result = {result}")
    if grad is not None:
        _attach(grad, lines, name, slots)
    lines.append("    return result")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<eager.jit replay step>", "exec"), namespace)  # noqa: S102  (source built above)
    replay = namespace["replay"]
    replay.source = source
    return replay


def _attach(grad, lines, name, slots):
    """The lines that give the outputs of a forward-only replay their grad node
    (static_function._GradPlan says what it reads; see backward.py): its edges
    (an input's, taken when the call runs, or a boundary's, the same every call),
    the versions its backward checks, the arrays it keeps, and each output's meta."""
    edges = []
    for kind, where in grad.edges:
        edges.append(f"(_edge_of(tensors[{where!r}]),)" if kind == "in" else name((where,)))
    checks = []
    for kind, where in grad.checks:
        impl = (f"tensors[{where!r}].impl" if kind == "in" else name(where) if kind == "ext"
                else f"{slots[where]}.impl")
        checks.append(f"({impl}, {impl}.version)")
    if all(kind != "in" for kind, _ in grad.edges):
        edges_expr = name(tuple((where,) for _, where in grad.edges))  # one tuple for every call
    else:
        edges_expr = "(" + "".join(f"{e}, " for e in edges) + ")"
    lines.append(f"    node = _node({edges_expr}, {grad.num_grad_slots!r}, _grad.programs, arrays[{grad.n_results!r}:], "
                 f"({''.join(f'{c}, ' for c in checks)}), _grad.on_create_graph)")
    for slot in range(grad.num_grad_slots):
        lines.append(f"    {slots[slot]}._meta = _AM(node, {slot!r})")


__all__ = ["ALIASED", "compile_replay"]
