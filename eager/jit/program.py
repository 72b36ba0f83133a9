"""A recorded kernel list as a JSON program, and back (``eager.jit.save`` / ``load``).

:func:`encode` turns a recorder's kernel calls into plain JSON data: each call
names its phi kernel, the dispatch key it was bound with (tensor kind, dtype),
its arguments and its results' shapes and dtypes. Every array argument says
where it comes from (its provenance): ``{"in": i}`` the i-th input,
``{"state": name}`` a parameter or buffer by its structured name, ``{"call": k,
"out": j}`` the j-th array result of call k, and in a backward program
``{"seed": k}`` the incoming gradient of the forward's k-th gradient output. Other arguments are constants:
JSON's null, booleans, numbers (ints and floats kept apart, floats exact) and
strings, or a tagged object (``{"tuple": [...]}``, ``{"list": [...]}``,
``{"dtype": "float32"}``, ``{"scalar": "float32", "value": 0.5}``,
``{"enum": "phi.common...DataType", "name": "FLOAT32"}``, ``{"place": "cpu"}``,
``{"slice": [...]}``, ``{"float": "nan"}``, ...). Nothing is pickled, and
:func:`decode` rebuilds only these tags, binding each kernel by name from phi's
registry, so a program that names an unknown kernel or tag raises ValueError.

A dimension that an ``InputSpec`` leaves as None is found by tracing twice with
two sizes for it and :func:`unify`-ing the programs: every integer that differs
between the traces must be the same multiple of that dimension's size in both,
and becomes ``{"dim": d, "times": k}`` (or, for two None dimensions flattened
into one, k times the product of their sizes in both: ``{"dims": [d, e],
"times": k}``); anything else that differs (another
kernel, a float computed from the size) makes the program unsaveable.
"""
from __future__ import annotations

import enum
import importlib
import math

import numpy as np

from phi.common.place import CPUPlace, CUDAPinnedPlace, GPUPlace
from phi.common.tensor_kind import TensorKind
from phi.core import KERNELS, ArraySpec

from .recorder import KernelCall

FORMAT = "eager.jit.program"
# Version 2 adds the "grad" entry (the programs a trained TranslatedLayer runs);
# version 1 files (inference only) still load.
VERSION = 2
VERSIONS = (1, 2)
MODEL_SUFFIX = ".pdmodel"
PARAMS_SUFFIX = ".pdiparams"


class ProgramError(ValueError):
    """A program that cannot be saved or loaded (the message says why)."""


# -- encoding -----------------------------------------------------------------
def _const(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value) is int:
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, np.generic):
        item = value.item()
        return {"scalar": value.dtype.name, "value": _const(item)}
    if isinstance(value, np.dtype):
        return {"dtype": value.name}
    if isinstance(value, enum.Enum):
        cls = type(value)
        return {"enum": f"{cls.__module__}:{cls.__qualname__}", "name": value.name}
    if isinstance(value, complex):
        return {"complex": [_const(value.real), _const(value.imag)]}
    if isinstance(value, CPUPlace):
        return {"place": "cpu"}
    if isinstance(value, GPUPlace):
        return {"place": "gpu", "id": value.device_id}
    if isinstance(value, CUDAPinnedPlace):
        return {"place": "gpu_pinned"}
    if isinstance(value, slice):
        return {"slice": [_const(value.start), _const(value.stop), _const(value.step)]}
    if value is Ellipsis:
        return {"ellipsis": True}
    if type(value) is np.ndarray:  # an index array the code wrote as a list
        return {"array": value.tolist(), "dtype": value.dtype.name, "shape": list(value.shape)}
    if value is np.ndarray:
        return {"type": "ndarray"}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"type": np.dtype(value).name}
    if isinstance(value, ArraySpec):
        return {"spec": list(value.shape), "dtype": np.dtype(value.dtype).name,
                "place": _const(getattr(value, "place", None))}
    raise ProgramError(f"a kernel argument of type {type(value).__name__} has no JSON form")


def encode(calls, n_inputs: int, state_of_slot: dict, named=None) -> list:
    """The JSON form of ``calls`` (recorder KernelCalls): slots below n_inputs are
    inputs, ``state_of_slot`` names the external slots, ``named`` maps other
    slots to their provenance (a backward's incoming gradients: ``{"seed": k}``)."""
    origin = {}  # slot -> provenance node
    named = named or {}

    def arg(plan):
        kind = plan[0]
        if kind == "a":
            slot = plan[1]
            if slot < n_inputs:
                return {"in": slot}
            if slot in state_of_slot:
                return {"state": state_of_slot[slot]}
            if slot in named:
                return dict(named[slot])
            if slot in origin:
                return dict(origin[slot])
            raise ProgramError("a kernel reads an array that is neither an input, a parameter or buffer, "
                               "nor an earlier kernel's result")
        if kind == "c":
            return _const(plan[1])
        if plan[1] not in (list, tuple):
            raise ProgramError(f"a kernel argument of type {plan[1].__name__} has no JSON form")
        return {plan[1].__name__: [arg(p) for p in plan[2]]}

    program = []
    for index, call in enumerate(calls):
        if call.key is None:
            raise ProgramError(f"kernel {call.name!r} was not called through phi's dispatch tables")
        count = [0]

        def out(o, index=index, count=count):
            if o[0] == "n":
                return None
            if o[0] == "a":
                origin[o[1]] = {"call": index, "out": count[0]}
                count[0] += 1
                return {"shape": list(o[2]), "dtype": np.dtype(o[3]).name}
            if o[1] not in (list, tuple):
                raise ProgramError(f"kernel {call.name!r} returns a {o[1].__name__}")
            return {o[1].__name__: [out(x) for x in o[2]]}

        entry = {"kernel": call.name, "kind": str(call.kind), "dtype": np.dtype(call.key[1]).name,
                 "args": [arg(p) for p in call.args],
                 "kwargs": {k: arg(p) for k, p in call.kwargs.items()}}
        entry["outs"] = out(call.outs)
        program.append(entry)
    return program


# -- a None dimension: two traces made one -----------------------------------------
def unify(a, b, sizes_a, sizes_b, where="program"):
    """The JSON node that is ``a`` where the traces agree and ``{"dim": d,
    "times": k}`` where an integer is k times None-dimension d's size in both."""
    if type(a) is not type(b):
        raise ProgramError(f"the traces for two sizes of a None dimension differ at {where}")
    if type(a) is dict:
        if a.keys() != b.keys():
            raise ProgramError(f"the traces for two sizes of a None dimension differ at {where}")
        return {k: unify(a[k], b[k], sizes_a, sizes_b, f"{where}.{k}") for k in a}
    if type(a) is list:
        if len(a) != len(b):
            raise ProgramError(f"the traces for two sizes of a None dimension differ at {where} "
                               f"(a shape or list whose length depends on the size)")
        return [unify(x, y, sizes_a, sizes_b, f"{where}[{i}]") for i, (x, y) in enumerate(zip(a, b))]
    if a == b:
        return a
    if type(a) is int:
        for d, (sa, sb) in enumerate(zip(sizes_a, sizes_b)):
            if a % sa == 0 and b % sb == 0 and a // sa == b // sb and a // sa > 0:
                return {"dim": d, "times": a // sa}
        # Two None sizes flattened into one (a [batch, time, H] input reshaped to
        # [batch * time, H] before a projection, as an RNN or a sequence loss does).
        for d in range(len(sizes_a)):
            for e in range(d, len(sizes_a)):
                sa, sb = sizes_a[d] * sizes_a[e], sizes_b[d] * sizes_b[e]
                if a % sa == 0 and b % sb == 0 and a // sa == b // sb and a // sa > 0:
                    return {"dims": [d, e], "times": a // sa}
    raise ProgramError(f"the program depends on the size of a None dimension beyond a multiple of it "
                       f"(at {where}: {a!r} vs {b!r}); give input_spec a fixed size there")


def resolve(node, dims):
    """``node`` with each ``{"dim": d, "times": k}`` replaced by k * dims[d]
    (``{"dims": [d, e], "times": k}`` by k * dims[d] * dims[e])."""
    if type(node) is dict:
        if "times" in node and len(node) == 2:
            if "dim" in node:
                return dims[node["dim"]] * node["times"]
            if "dims" in node:
                return math.prod(dims[d] for d in node["dims"]) * node["times"]
        return {k: resolve(v, dims) for k, v in node.items()}
    if type(node) is list:
        return [resolve(v, dims) for v in node]
    return node


# -- decoding -----------------------------------------------------------------
def _enum(spec, name):
    module_name, _, qualname = str(spec).partition(":")
    if not module_name.startswith("phi."):
        raise ProgramError(f"enum {spec!r}: only phi's enums can appear in a program")
    try:
        cls = importlib.import_module(module_name)
        for part in qualname.split("."):
            cls = getattr(cls, part)
    except (ImportError, AttributeError):
        raise ProgramError(f"enum {spec!r} does not exist in this version of phi") from None
    if not (isinstance(cls, type) and issubclass(cls, enum.Enum)) or name not in cls.__members__:
        raise ProgramError(f"enum {spec!r} has no member {name!r}")
    return cls[name]


def _decode_const(node):
    if node is None or isinstance(node, (bool, str, int, float)):
        return node
    if type(node) is not dict or len(node) == 0:
        raise ProgramError(f"unknown constant {node!r}")
    if "scalar" in node:
        return np.dtype(node["scalar"]).type(_decode_const(node["value"]))
    if "dtype" in node and len(node) == 1:
        return np.dtype(node["dtype"])
    if "float" in node:
        return float(node["float"])
    if "enum" in node:
        return _enum(node["enum"], node["name"])
    if "complex" in node:
        return complex(_decode_const(node["complex"][0]), _decode_const(node["complex"][1]))
    if "array" in node:
        array = np.array(node["array"], dtype=np.dtype(node["dtype"])).reshape(node["shape"])
        array.flags.writeable = False
        return array
    if "spec" in node:  # before "place", which an ArraySpec's node holds too
        place = _decode_const(node["place"])
        return ArraySpec(tuple(node["spec"]), np.dtype(node["dtype"]), place)
    if "place" in node:
        if node["place"] in ("cpu", "gpu_pinned"):
            return CPUPlace() if node["place"] == "cpu" else CUDAPinnedPlace()
        return GPUPlace(int(node["id"]))
    if "slice" in node:
        return slice(*(_decode_const(v) for v in node["slice"]))
    if "ellipsis" in node:
        return Ellipsis
    if "type" in node:
        return np.ndarray if node["type"] == "ndarray" else np.dtype(node["type"]).type
    raise ProgramError(f"unknown constant {node!r}")


def decode(program, n_inputs: int, state_slots: dict, array_type, seeds: int = 0):
    """KernelCalls (with kernels bound from phi's registry for ``array_type``)
    and the slot of every call result, from a resolved JSON program; slots
    below n_inputs are the inputs, ``state_slots`` maps state names to slots,
    and ``{"seed": k}`` (k < seeds) is slot ``n_inputs + len(state_slots) + k``;
    the results' slots follow."""
    calls, result_slots = [], []
    first_seed = n_inputs + len(state_slots)
    next_slot = [first_seed + seeds]
    for index, entry in enumerate(program):
        name = entry.get("kernel")
        if not isinstance(name, str) or not KERNELS.has(name):
            raise ProgramError(f"call {index} names kernel {name!r}, which this version of phi does not have")
        try:
            kind = TensorKind(entry["kind"])
            key = (array_type, np.dtype(entry["dtype"]))
            # A call that writes into a given array (``out += y``) binds from the
            # ``into`` table: the bare xp function of the plain table names that keyword ``out``.
            into = isinstance(entry.get("kwargs"), dict) and "into" in entry["kwargs"]
            fn = KERNELS.dispatch_table(name, kind, into=into)[key]
        except Exception as error:  # an unknown kind or dtype, or no kernel registered for it
            raise ProgramError(f"call {index}: kernel {name!r} has no {entry.get('kind')} "
                               f"{entry.get('dtype')} kernel here ({error})") from None
        slots_of_call = []
        result_slots.append(slots_of_call)

        def arg(node):
            if type(node) is dict and len(node) in (1, 2):
                if "in" in node:
                    if not 0 <= node["in"] < n_inputs:
                        raise ProgramError(f"call {index} reads input {node['in']}, of {n_inputs}")
                    return ("a", node["in"])
                if "state" in node:
                    if node["state"] not in state_slots:
                        raise ProgramError(f"call {index} reads {node['state']!r}, which is not in the "
                                           f"parameters file")
                    return ("a", state_slots[node["state"]])
                if "seed" in node:
                    if type(node["seed"]) is not int or not 0 <= node["seed"] < seeds:
                        raise ProgramError(f"call {index} reads incoming gradient {node['seed']!r}, of {seeds}")
                    return ("a", first_seed + node["seed"])
                if "call" in node:
                    k, j = node["call"], node["out"]
                    if not (0 <= k < index and 0 <= j < len(result_slots[k])):
                        raise ProgramError(f"call {index} reads result {j} of call {k}, which does not "
                                           f"come before it")
                    return ("a", result_slots[k][j])
                if "tuple" in node:
                    return ("l", tuple, [arg(v) for v in node["tuple"]])
                if "list" in node:
                    return ("l", list, [arg(v) for v in node["list"]])
            return ("c", _decode_const(node))

        def out(node):
            if node is None:
                return ("n",)
            if "tuple" in node or "list" in node:
                kind_ = "tuple" if "tuple" in node else "list"
                return ("l", tuple if kind_ == "tuple" else list, [out(v) for v in node[kind_]])
            slot = next_slot[0]
            next_slot[0] += 1
            slots_of_call.append(slot)
            return ("a", slot, tuple(node["shape"]), np.dtype(node["dtype"]))

        args = [arg(a) for a in entry["args"]]
        kwargs = {k: arg(v) for k, v in entry["kwargs"].items()}
        calls.append(KernelCall(fn, name, args, kwargs, out(entry["outs"]), key, kind))
    return calls, result_slots


def result_slots(calls, first: int = 0) -> dict:
    """slot -> ``{"call": k, "out": j}`` for every array result of ``calls`` (call
    k counted from ``first``): where a program's later reader finds it."""
    found = {}
    for index, call in enumerate(calls, first):
        flat = []
        _flat_slots(call.outs, flat)
        for j, slot in enumerate(flat):
            found[slot] = {"call": index, "out": j}
    return found


def _flat_slots(outs, flat):
    if outs[0] == "a":
        flat.append(outs[1])
    elif outs[0] == "l":
        for o in outs[2]:
            _flat_slots(o, flat)


def output_leaves(node):
    """The tensor leaves of a program's output tree, in order: the ``{"call": k,
    "out": j}``, ``{"in": i}`` and ``{"state": name}`` nodes inside its tuples,
    lists and dicts (constants are no leaves)."""
    if type(node) is not dict:
        return
    if "call" in node or "in" in node or "state" in node:
        yield node
        return
    for key in ("tuple", "list"):
        for value in node.get(key, ()):
            yield from output_leaves(value)
    for _, value in node.get("dict", ()):
        yield from output_leaves(value)


# -- dead calls -------------------------------------------------------------------
def _references(node, calls: set, states: set) -> None:
    """Collects the call indices (``{"call": k, "out": j}``) and state names
    (``{"state": name}``) a JSON node refers to, at any depth."""
    if type(node) is dict:
        if "call" in node and "out" in node and len(node) == 2:
            calls.add(node["call"])
        elif "state" in node and len(node) == 1:
            states.add(node["state"])
        else:
            for value in node.values():
                _references(value, calls, states)
    elif type(node) is list:
        for value in node:
            _references(value, calls, states)


def _renumber(node, new):
    if type(node) is dict:
        if "call" in node and "out" in node and len(node) == 2:
            return {"call": new[node["call"]], "out": node["out"]}
        return {key: _renumber(value, new) for key, value in node.items()}
    if type(node) is list:
        return [_renumber(value, new) for value in node]
    return node


def _has_array(outs) -> bool:
    if type(outs) is dict:
        return "shape" in outs or any(_has_array(v) for v in outs.values())
    if type(outs) is list:
        return any(_has_array(v) for v in outs)
    return False


def prune(calls: list, outputs) -> tuple:
    """``(calls, outputs)`` of a JSON program without the calls no output needs
    (their results read by no kept call nor output), the kept calls renumbered.
    Conservative: a call that writes into an array (an ``into`` argument) or
    returns none is kept as a side effect, and the caller keeps every call of a
    program that writes into its state (non-empty bumps)."""
    live = set()
    _references(outputs, live, set())
    live.update(k for k, call in enumerate(calls) if "into" in call["kwargs"] or not _has_array(call["outs"]))
    for k in range(len(calls) - 1, -1, -1):
        if k in live:
            _references([calls[k]["args"], list(calls[k]["kwargs"].values())], live, set())
    kept = sorted(live)
    new = {old: index for index, old in enumerate(kept)}
    pruned = []
    for k in kept:
        entry = dict(calls[k])
        entry["args"] = _renumber(entry["args"], new)
        entry["kwargs"] = {key: _renumber(value, new) for key, value in entry["kwargs"].items()}
        pruned.append(entry)
    return pruned, _renumber(outputs, new)


def references(calls: list, outputs) -> tuple:
    """(the call indices, the state names) that ``calls`` (JSON call entries)
    and ``outputs`` read, as sets."""
    found, states = set(), set()
    _references([[call["args"], list(call["kwargs"].values())] for call in calls], found, states)
    _references(outputs, found, states)
    return found, states


__all__ = ["FORMAT", "MODEL_SUFFIX", "PARAMS_SUFFIX", "VERSION", "VERSIONS", "ProgramError", "decode", "encode",
           "prune", "references", "resolve", "result_slots", "unify"]
