"""PyLayer: an op whose forward and backward are Python functions (Paddle 2.x API).

Subclass :class:`PyLayer` with two static methods and call ``apply``:

>>> class Cube(PyLayer):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x * x
...     @staticmethod
...     def backward(ctx, grad):
...         (x,) = ctx.saved_tensor()
...         return 3 * x * x * grad
>>> y = Cube.apply(x)

``forward`` runs under ``no_grad``: the layer is one node in the graph, and its
backward is exactly the user's ``backward``. The engine runs ``backward`` with
grad mode set to ``create_graph``, so a backward written with eager ops is
itself recorded and can be differentiated again (double backward).

How apply connects the layer to the graph, in order:

1. find the tensor inputs (top-level positional, then keyword arguments);
2. run forward under no_grad, with a fresh :class:`PyLayerContext`;
3. if grad mode is on and some tensor input requires a gradient, make one grad
   node (one gradient slot per Tensor output, one edge per tensor input), give
   the outputs their history and turn what ``save_for_backward`` got into
   saved tensors (outputs kept as buffers only, so the node does not keep
   itself alive through its own outputs).
"""
from __future__ import annotations

from phi import api as phi_api

from ..errors import AutogradError, PyLayerResultError
from ..tensor import Tensor
from .accumulation import edge_of
from .grad_mode import STATE
from .meta import AutogradMeta, records_gradient
from .node import GradNodeBase, GradSlotMeta
from .saved_hooks import save_input, save_output


class PyLayerContext:
    """What ``forward`` hands to ``backward``: saved tensors, flags, and any attribute.

    Arbitrary attributes may be set on it (``ctx.alpha = 2.0``). Keep tensors
    in :meth:`save_for_backward` rather than in attributes: an attribute holding
    an output of the layer makes a reference cycle (output -> node -> ctx ->
    output) that only the garbage collector frees, and skips the inplace check.
    """

    # Internal fields are slots; user attributes go to __dict__.
    __slots__ = ("_layer", "_in_forward", "_to_save", "_saved", "_not_inplace",
                 "_non_differentiable", "_materialize", "_node", "_needs_input_grad",
                 "__dict__", "__weakref__")

    def __init__(self, layer_name: str = "PyLayer"):
        self._layer = layer_name
        self._in_forward = False
        self._to_save = None       # the raw tensors, between save_for_backward and the end of apply
        self._saved = None         # the saved-tensor wrappers, once the node exists
        self._not_inplace = ()
        self._non_differentiable = ()
        self._materialize = True
        self._node = None          # set only while backward runs (no lasting node <-> ctx cycle)
        self._needs_input_grad = ()

    # -- called from forward --------------------------------------------------
    def save_for_backward(self, *tensors) -> None:
        """Keeps ``tensors`` (Tensors or None) for ``backward``; read them with :meth:`saved_tensor`.

        Call it in ``forward`` only, at most once that matters: a second call
        replaces the first. A saved tensor modified in place before backward
        makes backward raise.
        """
        self._check_in_forward("save_for_backward")
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"{self._layer}: save_for_backward takes Tensors (or None), but argument {i} "
                    f"is {type(t).__name__}; keep other values as attributes of ctx, "
                    f"e.g. ctx.value = ...")
        self._to_save = tensors

    def mark_not_inplace(self, *tensors) -> None:
        """Marks inputs that forward returns unchanged as *not* modified in place.

        By default an input returned as an output is taken to be modified in
        place by forward: that very tensor becomes the output and its history
        moves to this layer. Marked inputs are returned as a new Tensor sharing
        the buffer, and keep their own history.
        """
        self._check_in_forward("mark_not_inplace")
        self._not_inplace = self._tensor_ids("mark_not_inplace", tensors)

    def mark_non_differentiable(self, *tensors) -> None:
        """Marks outputs that have no gradient (indices, masks...).

        They get ``stop_gradient=True``; in ``backward`` their gradient is a
        zero tensor (or None after ``set_materialize_grads(False)``).
        """
        self._check_in_forward("mark_non_differentiable")
        self._non_differentiable = self._tensor_ids("mark_non_differentiable", tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """Whether missing output gradients reach backward as zeros (True, the default) or None."""
        if not isinstance(value, bool):
            raise TypeError(f"{self._layer}: set_materialize_grads expects a bool, got {value!r}")
        self._materialize = value

    # -- called from backward -------------------------------------------------
    def saved_tensor(self) -> tuple:
        """The tensors given to :meth:`save_for_backward`, as a tuple.

        Raises :class:`AutogradError` when the graph was already freed by an
        earlier backward (pass ``retain_graph=True`` to it) or when a saved
        tensor was modified in place after forward.
        """
        if self._saved is None:
            # In forward, or a layer that was not recorded: the tensors themselves.
            return tuple(self._to_save or ())
        node = self._node
        if node is None:
            raise AutogradError(f"{self._layer}: ctx.saved_tensor() can only be called inside "
                                f"forward or backward")
        return tuple(None if w is None else w.recover(node) for w in self._saved)

    @property
    def needs_input_grad(self) -> tuple:
        """One bool per tensor input of forward: whether backward must compute its gradient."""
        return self._needs_input_grad

    # -- helpers ----------------------------------------------------------------
    def _check_in_forward(self, method: str) -> None:
        if not self._in_forward:
            raise AutogradError(f"{self._layer}: ctx.{method}() can only be called inside forward")

    def _tensor_ids(self, method: str, tensors) -> tuple:
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"{self._layer}: {method} takes Tensors, but argument {i} is "
                                f"{type(t).__name__}")
        # ids only: holding the tensors would keep them alive through ctx.
        return tuple(id(t) for t in tensors)


class PyLayerGradNode(GradNodeBase):
    """The grad node of one PyLayer call: runs the layer's ``backward``.

    Each PyLayer subclass gets its own subclass of this node (``CubeBackward``
    for ``Cube``), named ``Cube_backward``, so graph pictures and errors show
    which layer it is.
    """

    __slots__ = ("ctx", "input_specs", "output_specs")
    layer = None  # the PyLayer subclass, set on the per-layer node class

    def apply(self, grads, create_graph: bool):
        ctx = self.ctx
        layer = self.layer
        grads = [self._missing_grad(slot) if g is None else g for slot, g in enumerate(grads)]
        ctx._node = self
        try:
            result = layer.backward(ctx, *grads)
        finally:
            ctx._node = None
        # One edge slot per tensor input, each with its one edge.
        return tuple((grad,) for grad in self._check_result(result))

    def _missing_grad(self, slot: int):
        """Zeros for an output whose gradient never came (unused or non-differentiable),
        or None when the layer called ``set_materialize_grads(False)``."""
        if not self.ctx._materialize:
            return None
        shape, dtype, place = self.output_specs[slot]
        return Tensor(phi_api.full(list(shape), 0, dtype, place))

    def _check_result(self, result) -> tuple:
        name = self.layer.__name__
        n_inputs = len(self.next_edges)
        grads = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(grads) != n_inputs:
            got = f"{len(grads)} gradient(s)" if isinstance(result, (tuple, list)) else \
                f"one {type(result).__name__}"
            raise AutogradError(
                f"{name}.backward returned {got}, but forward took {n_inputs} "
                f"tensor input(s); return a tuple of exactly one gradient per tensor input, in the "
                f"order of forward's arguments (None for an input that needs no gradient)")
        out = []
        for i, (grad, (edge,)) in enumerate(zip(grads, self.next_edges)):
            shape, dtype, place = self.input_specs[i]
            if grad is None:
                # As in Paddle 2.6: None sends no gradient to that input (its .grad stays
                # None unless another path reaches it), for any input.
                out.append(None)
                continue
            if not isinstance(grad, Tensor):
                raise PyLayerResultError(
                    f"{name}.backward returned {type(grad).__name__} as the gradient of tensor "
                    f"input {i}; a gradient must be a Tensor or None")
            if edge is None:
                # The input stops gradients: nothing receives this one.
                out.append(None)
                continue
            if grad.dtype != dtype and _inexact(grad.dtype) and _inexact(dtype):
                grad = grad.astype(dtype)  # another floating dtype: cast, as Paddle does
            if tuple(grad.shape) != shape or grad.dtype != dtype:
                raise AutogradError(
                    f"{name}.backward returned a gradient of shape {grad.shape} and dtype "
                    f"{grad.dtype} for tensor input {i}, which has shape {list(shape)} "
                    f"and dtype {dtype}; a gradient must match its input exactly (no broadcasting)")
            if grad.place != place:
                raise AutogradError(
                    f"{name}.backward returned a gradient on {grad.place} for tensor input {i}, "
                    f"which is on {place}")
            out.append(grad)
        return tuple(out)


class PyLayer:
    """Base class of user-defined ops: subclass it, write static ``forward`` and
    ``backward``, call ``MyLayer.apply(*args, **kwargs)``.

    - ``forward(ctx, *args, **kwargs)`` computes the outputs (a Tensor, or a
      tuple/list holding at least one Tensor) under no_grad. Arguments may be
      anything; the Tensors among the top-level positional arguments, then the
      keyword arguments, are the layer's *tensor inputs*.
    - ``backward(ctx, *grads)`` gets one gradient per Tensor output of forward
      and returns one gradient per tensor input (a bare Tensor when there is
      one input). An input with ``stop_gradient=False`` must get a Tensor of
      its own shape and dtype; None is allowed for the others.

    >>> class Scale(PyLayer):
    ...     @staticmethod
    ...     def forward(ctx, x, alpha=2.0):
    ...         ctx.alpha = alpha
    ...         return x * alpha
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return grad * ctx.alpha
    >>> y = Scale.apply(x, alpha=3.0)
    """

    _node_class = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # A node class per layer: its name labels the node in graphs and errors.
        cls._node_class = type(f"{cls.__name__}Backward", (PyLayerGradNode,), {
            "__slots__": (),
            "layer": cls,
            "backward_op": f"{cls.__name__}_backward",
            "forward_op": cls.__name__,
            "__doc__": f"Runs {cls.__qualname__}.backward.",
        })

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """The layer's outputs from its inputs (runs under no_grad). Override it."""
        raise NotImplementedError(f"{getattr(ctx, '_layer', 'PyLayer')}: a PyLayer subclass must define a "
                                  f"static forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        """Gradients of the tensor inputs from gradients of the outputs. Override
        it; a layer without one runs forward, and raises when a gradient is
        asked of it (as Paddle)."""
        raise NotImplementedError(f"{getattr(ctx, '_layer', 'PyLayer')}: a PyLayer subclass must define a "
                                  f"static backward(ctx, *grads) to be differentiated")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward on the arguments and records the layer in the graph when needed."""
        if cls._node_class is None:
            raise TypeError("PyLayer.apply: call apply on a subclass of PyLayer, not on PyLayer itself")
        inputs = _tensor_inputs(cls.__name__, args, kwargs)
        needs = tuple(t._meta is not None and not t._meta.stop_gradient for t in inputs)
        recording = STATE.enabled and any(needs)

        ctx = PyLayerContext(cls.__name__)
        ctx._needs_input_grad = needs if recording else (False,) * len(inputs)
        ctx._in_forward = True
        previous = STATE.enabled
        STATE.enabled = False
        try:
            result = cls.forward(ctx, *args, **kwargs)
        finally:
            STATE.enabled = previous
            ctx._in_forward = False

        outputs, rebuild = _tensor_outputs(cls.__name__, result)
        if not recording:
            ctx._not_inplace = ctx._non_differentiable = ()
            return result
        outputs = _record(cls, ctx, inputs, outputs)
        return rebuild(outputs)


def _tensor_inputs(name, args, kwargs) -> list:
    """The top-level Tensor arguments, positional first. A Tensor that needs a
    gradient hidden inside a list or tuple is refused: it would silently get none."""
    inputs = []
    for where, value in [(f"argument {i}", a) for i, a in enumerate(args)] + \
                        [(f"keyword argument '{k}'", v) for k, v in kwargs.items()]:
        if isinstance(value, Tensor):
            inputs.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, Tensor) and records_gradient(item):
                    raise TypeError(
                        f"{name}.apply: {where} is a {type(value).__name__} holding a Tensor with "
                        f"stop_gradient=False; PyLayer differentiates only Tensors passed directly "
                        f"as arguments, so pass each of them as its own argument")
    return inputs


def _tensor_outputs(name, result):
    """The Tensors forward returned, and a function putting replacements back in place."""
    if isinstance(result, Tensor):
        return [result], lambda outs: outs[0]
    if isinstance(result, (tuple, list)):
        positions = [i for i, v in enumerate(result) if isinstance(v, Tensor)]
        if positions:
            kind = type(result)

            def rebuild(outs):
                values = list(result)
                for i, t in zip(positions, outs):
                    values[i] = t
                return kind(values)

            return [result[i] for i in positions], rebuild
    raise PyLayerResultError(f"{name}.forward must return a Tensor or a tuple/list holding at least one "
                    f"Tensor, got {type(result).__name__}")


def _record(cls, ctx, inputs, outputs) -> list:
    """Makes the grad node and attaches the outputs to it; returns the final outputs."""
    name = cls.__name__
    input_ids = {id(t) for t in inputs}
    for tid in ctx._not_inplace:
        if tid not in input_ids:
            raise ValueError(f"{name}: mark_not_inplace got a tensor that is not a tensor input "
                             f"of forward")
    output_ids = {id(t) for t in outputs}
    for tid in ctx._non_differentiable:
        if tid not in output_ids:
            raise ValueError(f"{name}: mark_non_differentiable got a tensor that forward does "
                             f"not return")

    node = cls._node_class(tuple((edge_of(t),) for t in inputs))
    node.ctx = ctx
    node.num_grad_slots = len(outputs)
    node.input_specs = [_spec(t) for t in inputs]
    node.output_specs = [_spec(t) for t in outputs]
    node.slot_metas = [GradSlotMeta(t.shape, t.dtype) for t in outputs]

    final, slot_of = [], {}
    for slot, out in enumerate(outputs):
        original = out
        if id(out) in slot_of:
            out = Tensor(out.impl)          # the same tensor returned twice: two outputs
        elif id(out) in input_ids:
            if id(out) in ctx._not_inplace:
                out = Tensor(out.impl)      # an unchanged input: a new tensor, same buffer
            elif records_gradient(out) and out.is_leaf:
                raise AutogradError(
                    f"{name}: forward returned its input leaf tensor with stop_gradient=False "
                    f"as an output, which would modify it in place; if forward does not change "
                    f"it, call ctx.mark_not_inplace(x) in forward, otherwise return a copy")
            # else: modified in place by forward; the input itself becomes the output.
        elif out._meta is not None:
            out = Tensor(out.impl)          # a tensor from outside: keep its own history
        slot_of.setdefault(id(original), slot)
        differentiable = (id(original) not in ctx._non_differentiable
                          and (out.dtype.is_floating_point or out.dtype.is_complex))
        out._meta = AutogradMeta(node, slot) if differentiable else None
        final.append(out)

    wrappers = []
    for t in ctx._to_save or ():
        if t is None:
            wrappers.append(None)
        elif id(t) in slot_of:
            out = final[slot_of[id(t)]]
            wrappers.append(save_output(out) if out._meta is not None else save_input(out))
        else:
            wrappers.append(save_input(t))
    ctx._saved = wrappers
    # Visible to the generic release() and to graph pictures as saved_0, saved_1, ...
    node.saved_names = tuple(f"saved_{i}" for i in range(len(wrappers)))
    for i, w in enumerate(wrappers):
        setattr(node, f"saved_{i}", w)
    # Drop what would keep outputs (and so this node) alive through ctx.
    ctx._to_save = None
    ctx._not_inplace = ctx._non_differentiable = ()
    return final


def _inexact(dtype) -> bool:
    return dtype.is_floating_point or dtype.is_complex


def _spec(tensor):
    return tuple(tensor.impl.dims), tensor.dtype, tensor.place


__all__ = ["PyLayer", "PyLayerContext", "PyLayerGradNode"]
