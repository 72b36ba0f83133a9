"""The Python state a captured trace depends on, and how it is compared.

A trace replays kernels on arrays; what made the eager run pick those kernels,
attributes and arrays is Python state: which Layers and Optimizers the function
reaches, their flags and hyperparameters, which tensors they hold, each
tensor's buffer, gradient and hooks. :func:`discover` finds the objects a
function reaches (its arguments, ``self``, closure cells and the globals its
code names, one attribute level deep for other objects); a :class:`Guard`
compiles their state into one boolean expression. A replay runs only while
the guard built at capture holds, and a capture is used only if the call left
the state as it found it (apart from the effects a replay repeats: version
counters and optimizer step counts).
"""
from __future__ import annotations

import collections
import enum
import types

import numpy as np

from phi.core import DenseTensor

from ..nn.layer import Layer
from ..optimizer.lr import LRScheduler
from ..optimizer.optimizer import Optimizer
from ..tensor import Tensor

# Attribute values compared by value; anything else by identity. NumPy's scalars
# too (a global `SCALE = np.float32(2.0)` is a number the code reads).
SCALARS = (bool, int, float, complex, str, bytes, type(None), np.bool_, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16, np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
           np.complex128)
# Counters a step moves by a fixed amount, which nothing but state_dict reads:
# a replay adds the captured change. Only eager's own optimizers (a subclass
# elsewhere may read its step count, so there it is compared like any number).
COUNTERS = {"eager.optimizer.optimizer": ("_step_count",), "eager.optimizer.nadam": ("_step_count",),
            "eager.optimizer.radam": ("_step_count",), "eager.optimizer.asgd": ("_step_count",),
            "eager.optimizer.rprop": ("_step_count",)}


def _counters_of(obj) -> tuple:
    if isinstance(obj, Optimizer):
        return COUNTERS.get(type(obj).__module__, ())
    return ()


def discover(fn, args, kwargs) -> tuple:
    """(roots, layers, optimizers, tensors, schedulers) the call can reach:
    roots are (kind, holder, key, object) found in the arguments, ``self``, the
    closure and the globals; layers include every sublayer; schedulers are the
    optimizers' learning-rate schedulers."""
    roots = []  # (kind, holder, key, object)
    seen = set()

    def visit(kind, holder, key, value, depth):
        if id(value) in seen and kind != "arg":
            return
        if isinstance(value, Tensor) and kind in ("arg", "item"):
            return  # an input: the signature's, not the state's
        if isinstance(value, (Layer, Optimizer, Tensor, LRScheduler)):
            seen.add(id(value))
            roots.append((kind, holder, key, value))
        elif kind in ("global", "cell", "attr") and type(value) in SCALARS:
            roots.append((kind, holder, key, value))  # a number the code reads: compared by value
        elif kind in ("global", "cell") and _user_function(value):
            # a helper the code calls: what it reaches (its closure, the globals its code
            # names) is state the trace depends on, and rebinding the name changes the code
            roots.append((kind, holder, key, value))
            if id(value) not in seen:
                seen.add(id(value))
                scan(value)
        elif kind in ("global", "cell") and isinstance(value, types.MethodType) \
                and _user_function(value.__func__):
            roots.append((kind, holder, key, value))
            if id(value) not in seen:
                seen.add(id(value))
                visit("self", None, None, value.__self__, 0)
                scan(value.__func__)
        elif depth == 0 and hasattr(value, "__dict__") and not isinstance(
                value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)) \
                and not type(value).__module__.startswith("eager.jit"):  # (a to_static function's counters)
            seen.add(id(value))
            scan_class(type(value))
            for name, attr in list(vars(value).items()):
                visit("attr", value, name, attr, 1)
        elif isinstance(value, (list, tuple, dict)) and (depth == 0 or kind == "attr"):
            items = list(value.values() if isinstance(value, dict) else value)
            held = [item for item in items if isinstance(item, (Layer, Optimizer, Tensor))]
            numbers = kind in ("global", "cell", "attr") and any(type(item) in SCALARS for item in items)
            if (held or numbers) and kind != "arg":
                # a container the code indexes: the same one, holding the same objects
                # (an optimizer swapped in a list between calls is not the captured one)
                # and the same numbers (a config dict's value is a constant of the trace)
                if kind in ("global", "cell", "attr"):
                    roots.append((kind, holder, key, value))
                if held:
                    roots.append(("items", None, None, value))
                if numbers:
                    roots.append(("values", None, None, value))
            for item in held:
                visit("item" if kind == "arg" else "member", None, None, item, 1)

    def scan(func):  # a function's closure cells and the globals its code names
        code = getattr(func, "__code__", None)
        if code is None:
            return
        for name, cell in zip(code.co_freevars, func.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            visit("cell", cell, name, value, 0)
        names = set()
        stack = [code]
        while stack:
            c = stack.pop()
            names.update(c.co_names)
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        globs = func.__globals__
        for name in sorted(names):
            if name in globs:
                visit("global", globs, name, globs[name], 0)

    def scan_class(cls):
        """A user-defined class of an object the code reaches (a Layer's forward and
        helpers, their globals; its numbers): rebinding a method or changing a
        class-level number changes what the call computes."""
        for klass in cls.__mro__:
            if id(klass) in seen or (getattr(klass, "__module__", None) or "").split(".", 1)[0] in _LIBRARY_ROOTS:
                continue
            seen.add(id(klass))
            attrs = vars(klass)
            for name, attr in list(attrs.items()):
                if name.startswith("__"):
                    continue
                if type(attr) in SCALARS:
                    roots.append(("classattr", attrs, name, attr))
                    continue
                function = attr.__func__ if isinstance(attr, (staticmethod, classmethod)) else \
                    attr.fget if isinstance(attr, property) else attr
                if _user_function(function):
                    roots.append(("classattr", attrs, name, attr))
                    if id(function) not in seen:
                        seen.add(id(function))
                        scan(function)

    func = fn
    if isinstance(fn, types.MethodType):
        visit("self", None, None, fn.__self__, 0)
        func = fn.__func__
    seen.add(id(func))
    for value in list(args) + list(kwargs.values()):
        visit("arg", None, None, value, 0)
    scan(func)
    layers, optimizers, tensors = [], [], []
    known = set()
    done = 0
    while done < len(roots):  # a Layer's class may reach more state (its forward's globals)
        start, done = done, len(roots)
        for _, _, _, obj in roots[start:done]:
            if isinstance(obj, Layer):
                for layer in obj.sublayers(include_self=True):
                    if id(layer) not in known:
                        known.add(id(layer))
                        layers.append(layer)
                        scan_class(type(layer))
                        for attr in list(vars(layer).values()):  # a function kept as an attribute
                            if _user_function(attr) and id(attr) not in seen:
                                seen.add(id(attr))
                                scan(attr)
            elif isinstance(obj, Optimizer):
                if id(obj) not in known:
                    known.add(id(obj))
                    optimizers.append(obj)
                    scan_class(type(obj))
            elif isinstance(obj, Tensor) and id(obj) not in known:
                known.add(id(obj))
                tensors.append(obj)
    for layer in layers:
        plain = [v for v in vars(layer).values() if isinstance(v, Tensor)]  # a tensor kept as an attribute
        for t in list(layer._parameters.values()) + list(layer._buffers.values()) + plain:
            if isinstance(t, Tensor) and id(t) not in known:
                known.add(id(t))
                tensors.append(t)
    for opt in optimizers:
        held = list(opt._parameter_list) + list(opt._accumulators.values()) + list(opt._master_weights.values())
        for t in held:
            if isinstance(t, Tensor) and id(t) not in known:
                known.add(id(t))
                tensors.append(t)
    schedulers = []
    for obj in [r[3] for r in roots] + [opt._lr_scheduler for opt in optimizers]:
        if isinstance(obj, LRScheduler) and all(obj is not other for other in schedulers):
            schedulers.append(obj)
    return roots, layers, optimizers, tensors, schedulers


# Modules whose functions hold no user state: a helper from them is not followed.
_LIBRARY_ROOTS = ("eager", "phi", "numpy", "cupy", "builtins", "functools", "typing")


def _user_function(value) -> bool:
    """Whether ``value`` is a plain Python function outside the library (a helper
    the traced code calls, whose closure and globals hold state it reads)."""
    if type(value) is not types.FunctionType:
        return False
    module = getattr(value, "__module__", None) or ""
    return module.split(".", 1)[0] not in _LIBRARY_ROOTS


def _settings_object(value) -> bool:
    """Whether a Layer's or Optimizer's attribute is a plain object whose numbers
    the guard compares by value (not a Layer, Optimizer, Tensor, scheduler (its
    rate is compared), enum, class, module, function or to_static function)."""
    if isinstance(value, (Layer, Optimizer, Tensor, LRScheduler, enum.Enum, type, types.ModuleType,
                          types.FunctionType, types.MethodType, types.BuiltinFunctionType)):
        return False
    if type(value).__module__.startswith("eager.jit"):
        return False  # a to_static function's own bookkeeping (its call counters), not settings
    return type(getattr(value, "__dict__", None)) is dict


class Guard:
    """The state a trace is specialised to, as one compiled boolean expression:
    each root still where it was found; each Layer's and Optimizer's
    attributes (scalars by value, containers by the identities they hold,
    anything else by identity; counters left out); each learning-rate
    scheduler's current rate; each tensor's buffer, autograd meta, gradient
    and hooks by identity.

    ``guard()`` is True while the state is as it was when the Guard was built;
    the objects compared by identity are held here, so their ids stay unique.
    Built before a captured call, it also tells whether the call left the state
    as it found it.
    """

    def __init__(self, roots, layers, optimizers, tensors, schedulers):
        self.namespace = {"_MISSING": _MISSING}
        self.terms = []
        for kind, holder, key, obj in roots:
            check = self._eq if type(obj) in SCALARS else self._is
            if kind == "global":
                check(self._item(self._name(holder), holder, key), obj)
            elif kind == "cell":
                check(f"{self._name(holder)}.cell_contents", obj)
            elif kind == "attr":
                check(f"vars({self._name(holder)}).get({self._name(key)}, _MISSING)", obj)
            elif kind == "items":
                self._container("", obj)
            elif kind == "classattr":
                check(self._item(self._name(holder), holder, key), obj)
            elif kind == "values":
                self._values(obj)
        for obj in list(layers) + list(optimizers):
            self._attributes(obj)
        for scheduler in schedulers:  # the rate the next step reads (a step() between calls is fine)
            self._eq(f"{self._name(scheduler)}()", scheduler())
        for t in tensors:
            self._tensor(t)
        source = ("def guard():\n    try:\n        return (" + "\n                and ".join(self.terms or ["True"])
                  + ")\n    except Exception:  # a cell emptied, an attribute deleted: not the captured state\n"
                  "        return False\n")
        exec(compile(source, "<eager.jit guard>", "exec"), self.namespace)  # noqa: S102  (built above)
        self.source = source
        self.guard = self.namespace["guard"]

    def failing(self):
        """The first term of the guard that does not hold now (its source), or None."""
        for term in self.terms:
            if not eval(term, self.namespace):  # noqa: S307  (a term built above)
                return term
        return None

    def _name(self, value) -> str:
        name = f"o{len(self.namespace)}"
        self.namespace[name] = value
        return name

    # The terms are written in the cheapest form that means the same (the guard runs
    # before every replay): None, True and False as literals, compared by identity
    # (for them `is` is exactly "same type and equal"); other numbers and strings
    # first by identity, then by type and value; a plain dict's string keys as
    # literals in a subscript (a missing key raises KeyError: the guard is False);
    # a length as an int literal, and an empty builtin container as `not c`.
    def _ref(self, value) -> str:
        """``value`` in a term: a literal for None/True/False, else a namespace name."""
        if value is None or value is True or value is False:
            return repr(value)
        return self._name(value)

    def _is(self, expr: str, value) -> None:
        self.terms.append(f"{expr} is {self._ref(value)}")

    def _eq(self, expr: str, value) -> None:
        if value is None or value is True or value is False:
            self._is(expr, value)  # the singletons: identity is type and value
            return
        name = self._name(value)
        self.terms.append(f"((_v := {expr}) is {name} or type(_v) is {self._name(type(value))} and _v == {name})")

    def _len(self, holder: str, value) -> None:
        if not len(value) and type(value) in _BUILTIN_CONTAINERS:
            self.terms.append(f"not {holder}")
        else:
            self.terms.append(f"len({holder}) == {len(value)!r}")

    def _item(self, holder: str, mapping, key) -> str:
        """The expression reading ``mapping[key]`` (``holder`` names ``mapping``):
        a missing key makes it raise, or give _MISSING."""
        if type(mapping) in _PLAIN_DICTS and type(key) is str:
            return f"{holder}[{key!r}]"
        return f"{holder}.get({self._name(key)}, _MISSING)"

    def _container(self, expr: str, value) -> None:
        """``expr`` (already checked to be ``value``) holds the same items."""
        holder = self._name(value)
        self._len(holder, value)
        if isinstance(value, dict):
            for k, v in list(value.items()):
                self._is(self._item(holder, value, k), v)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                self._is(f"{holder}[{i}]", v)

    def _values(self, value) -> None:
        """A container's numbers and strings by value (one comparison when it holds
        nothing else), its length too."""
        holder = self._name(value)
        if isinstance(value, dict):
            pairs = list(value.items())
        else:
            pairs = list(enumerate(value))
        if all(type(v) in SCALARS for _, v in pairs):
            snapshot = dict(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else value
            self.terms.append(f"{holder} == {self._name(snapshot)}")
            return
        self._len(holder, value)
        for k, v in pairs:
            if type(v) in SCALARS:
                self._eq(self._item(holder, value, k) if isinstance(value, dict) else f"{holder}[{k}]", v)

    def _slots(self, t, tn: str) -> None:
        """A Parameter's own attributes (need_clip, regularizer, optimize_attr's
        learning rate, ...): the optimizer reads them when it steps."""
        for klass in type(t).__mro__:
            if klass is Tensor:
                break
            slots = vars(klass).get("__slots__", ())
            for slot in (slots,) if isinstance(slots, str) else slots:
                value = getattr(t, slot, _MISSING)
                expr = f"getattr({tn}, {slot!r}, _MISSING)"
                if type(value) in SCALARS:
                    self._eq(expr, value)
                    continue
                self._is(expr, value)
                if isinstance(value, dict):
                    self._container(expr, value)
                    if any(type(v) in SCALARS for v in value.values()):
                        self._values(value)
                elif _settings_object(value):
                    self._settings(value)

    def _attributes(self, obj) -> None:
        skip = _counters_of(obj)
        d = vars(obj)
        name = self._name(d)
        self._is(f"{self._name(obj)}.__dict__", d)
        self._len(name, d)
        for key, value in list(d.items()):
            expr = self._item(name, d, key)
            if key in skip:
                continue
            if type(value) in SCALARS:
                self._eq(expr, value)
                continue
            self._is(expr, value)
            if isinstance(value, (dict, list, set)) and not isinstance(value, Tensor):
                self._container(expr, value)
            elif _settings_object(value):
                self._settings(value)

    def _settings(self, obj) -> None:
        """The numbers and strings of a plain object a Layer or Optimizer holds
        (a gradient clip's norm, a regularizer's coefficient, a config namespace),
        by value: the code reads them, so they are constants of the trace."""
        d = vars(obj)
        name = self._name(d)
        self._is(f"{self._name(obj)}.__dict__", d)
        for key, value in list(d.items()):
            if type(value) in SCALARS:
                self._eq(self._item(name, d, key), value)

    def _tensor(self, t) -> None:
        tn = self._name(t)
        impl = t.impl
        self._is(f"{tn}.impl", impl)
        if type(t) is not Tensor:
            self._slots(t, tn)
        if type(impl) is DenseTensor:
            self._is(f"{self._name(impl)}.array", impl.array)
        meta = t._meta
        self._is(f"{tn}._meta", meta)
        if meta is None:
            return
        mn = self._name(meta)
        self._eq(f"{mn}.stop_gradient", meta.stop_gradient)
        self._is(f"{mn}.node", meta.node)
        self._container(f"{mn}.__dict__", meta.__dict__)
        for value in list(meta.__dict__.values()):
            if isinstance(value, dict):  # hooks: a hook added to the same dict changes its length
                self._container("", value)
        node = meta.node
        if node is not None:
            self._container(f"{self._name(node)}.__dict__", node.__dict__)
            for value in list(node.__dict__.values()):
                if isinstance(value, dict):
                    self._container("", value)
        grad = meta.__dict__.get("grad")
        if grad is not None:
            gn = self._name(grad)
            self._is(f"{gn}.impl", grad.impl)
            if type(grad.impl) is DenseTensor:
                self._is(f"{self._name(grad.impl)}.array", grad.impl.array)
            self._is(f"{gn}._meta", grad._meta)


_MISSING = object()
# Containers whose truth is their length (no __bool__ or __len__ of a subclass).
_BUILTIN_CONTAINERS = (dict, list, tuple, set, frozenset, collections.OrderedDict)
# Mappings whose subscript of a missing key raises (no __missing__ to run).
_PLAIN_DICTS = (dict, collections.OrderedDict)


def shallow(obj) -> tuple:
    """An object's attributes, numbers by value and anything else by identity
    (a scheduler stepped during a capture changes it)."""
    return tuple((k, v if type(v) in SCALARS else id(v)) for k, v in vars(obj).items())


def counters(optimizers) -> tuple:
    """The counters a replay moves, per optimizer."""
    return tuple(tuple(getattr(opt, name) for name in _counters_of(opt)) for opt in optimizers)


__all__ = ["Guard", "counters", "discover", "shallow"]
