"""A captured call as straight-line Python: its kernel calls, replayed.

:func:`compile_trace` turns a recorder's kernel calls into one Python function
(compiled once with ``exec``: the kernels, constants and external arrays are
names of its namespace) that takes the input arrays and returns the arrays the
call's results need. Each result is checked against the shape and dtype it
had when captured; a difference means the replay left the captured path, which
the capture rules exclude, and raises :class:`ReplayDiverged` rather than
return a wrong value.

A kernel that declares a keyword-only ``donated`` parameter may reuse the
buffers of arguments its caller never reads again (SGD scales a dead gradient
in place instead of into scratch). The replay donates an argument when the
kernel list shows it dead (made by an earlier call of this trace, read by no
later call, not returned) and, at run time, nothing else holds or views it: a
buffer of its own (``base`` None) whose only reference is the replay's local.
"""
from __future__ import annotations

import inspect
import sys

import numpy as np

from phi.api.support import as_array


class ReplayDiverged(RuntimeError):
    """A replayed kernel gave a result of another shape or dtype than when captured."""


def _fix(value, expected_type, call):
    """A replayed result as the array type it had when captured (a NumPy scalar
    becomes a 0-d array, as wrap_result makes it)."""
    if isinstance(value, np.generic) and expected_type is np.ndarray:
        return as_array(value, np.ndarray)
    raise ReplayDiverged(f"replay of kernel {call!r}: got a {type(value).__name__}, captured a "
                         f"{expected_type.__name__}")


def _only_local() -> int:
    """What sys.getrefcount gives for an object a function's local alone holds."""
    held = object()
    return sys.getrefcount(held)


_ONLY_LOCAL = _only_local()


def _donatable_names(fn):
    """The names of ``fn``'s positional kernel arguments (ctx excluded) if the
    kernel behind it (a bound partial) takes ``donated``, else None."""
    kernel = getattr(fn, "func", fn)
    if "donated" not in (getattr(kernel, "__kwdefaults__", None) or {}):
        return None
    params = [p for p in inspect.signature(kernel).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    bound = len(getattr(fn, "args", ()))  # the context a partial binds
    return [p.name for p in params[bound:]]


def _diverged(call, value, shape, dtype):
    raise ReplayDiverged(f"replay of kernel {call!r}: result {getattr(value, 'dtype', '?')}"
                         f"{list(getattr(value, 'shape', ()))}, captured {dtype}{list(shape)}")


def compile_trace(calls, n_inputs, externals, result_slots):
    """The replay function ``run(inputs) -> tuple of arrays for result_slots``.

    ``calls`` are recorder KernelCalls; ``n_inputs`` is the number of inputs
    (slots 0..n_inputs-1) or the list of slots ``inputs`` binds, in order;
    ``externals`` (slot, array) pairs the arrays read from the state (only those
    the calls read are bound). A result slot of None returns None.
    """
    namespace = {"_fix": _fix, "_diverged": _diverged, "_refs": sys.getrefcount, "_ONLY_LOCAL": _ONLY_LOCAL}
    lines = ["def run(inputs):"]
    input_slots = range(n_inputs) if isinstance(n_inputs, int) else n_inputs
    if input_slots:
        lines.append("    " + "".join(f"s{i}, " for i in input_slots) + "= inputs")
    read = set(read_slots(calls)) | {s for s in result_slots if s is not None}
    for slot, array in externals:
        if slot in read:
            namespace[f"e{slot}"] = array
            lines.append(f"    s{slot} = e{slot}")
    constants = []

    def constant(value):
        constants.append(value)
        name = f"c{len(constants) - 1}"
        namespace[name] = value
        return name

    def arg(plan):
        kind = plan[0]
        if kind == "a":
            return f"s{plan[1]}"
        if kind == "c":
            value = plan[1]
            if value is None or value is True or value is False:
                return repr(value)
            return constant(value)
        inner = ", ".join(arg(p) for p in plan[2])
        if plan[1] is list:
            return f"[{inner}]"
        if plan[1] is tuple:
            return f"({inner}{',' if len(plan[2]) == 1 else ''})"
        return f"{constant(plan[1])}(({inner}{',' if len(plan[2]) == 1 else ''}))"

    checks = []

    def target(out):
        kind = out[0]
        if kind == "n":
            return "_"
        if kind == "a":
            checks.append(out)
            return f"s{out[1]}"
        return "(" + "".join(target(o) + ", " for o in out[2]) + ")"

    made = set()  # slots an earlier call of this list made
    last_read = _last_reads(calls)
    returned = set(result_slots)
    for index, call in enumerate(calls):
        namespace[f"k{index}"] = call.fn
        namespace[f"n{index}"] = call.name
        args = [arg(p) for p in call.args] + [f"{k}={arg(p)}" for k, p in call.kwargs.items()]
        names = _donatable_names(call.fn)
        if names is not None:
            dead = [(name, plan[1]) for name, plan in zip(names, call.args)
                    if plan[0] == "a" and plan[1] in made and plan[1] not in returned
                    and last_read[plan[1]] == index]
            if dead:
                # Decided before the call line: there the arguments on the stack
                # would add to the count.
                lines.append(f"    g{index} = " + " + ".join(
                    f"(({name!r},) if s{slot}.base is None and _refs(s{slot}) == _ONLY_LOCAL else ())"
                    for name, slot in dead))
                args.append(f"donated=g{index}")
        checks.clear()
        lines.append(f"    {target(call.outs)} = k{index}({', '.join(args)})")
        for _, slot, shape, dtype in checks:
            made.add(slot)
            namespace[f"h{slot}"] = shape
            namespace[f"d{slot}"] = dtype
            lines.append(f"    if type(s{slot}) is not t{slot}: s{slot} = _fix(s{slot}, t{slot}, n{index})")
            # (a dtype is first compared by identity: NumPy's builtin dtypes are
            # singletons, so the usual case skips the comparison method)
            lines.append(f"    if s{slot}.shape != h{slot} or s{slot}.dtype is not d{slot} and s{slot}.dtype != d{slot}: "
                         f"_diverged(n{index}, s{slot}, h{slot}, d{slot})")
    lines.append("    return (" + "".join("None, " if s is None else f"s{s}, " for s in result_slots) + ")")
    return lines, namespace


def _reads(calls):
    """(call index, array slot) for every array argument of the calls, in order
    (the arrays inside list arguments included)."""
    def slots(plan):
        if plan[0] == "a":
            yield plan[1]
        elif plan[0] == "l":
            for p in plan[2]:
                yield from slots(p)

    for index, call in enumerate(calls):
        for plan in (*call.args, *call.kwargs.values()):
            for slot in slots(plan):
                yield index, slot


def _last_reads(calls) -> dict:
    """slot -> the index of the last call that reads it."""
    return {slot: index for index, slot in _reads(calls)}


def read_slots(calls):
    """Every array slot the calls read, in order of first reading."""
    return list(dict.fromkeys(slot for _, slot in _reads(calls)))


def build(calls, n_inputs, externals, result_slots, slot_types):
    """Compiles the replay function; ``slot_types`` maps each result slot to the
    array type it had when captured."""
    lines, namespace = compile_trace(calls, n_inputs, externals, result_slots)
    for slot, array_type in slot_types.items():
        namespace[f"t{slot}"] = array_type
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<eager.jit replay>", "exec"), namespace)  # noqa: S102  (source built above)
    run = namespace["run"]
    run.source = source
    return run


__all__ = ["ReplayDiverged", "build", "compile_trace", "read_slots"]
