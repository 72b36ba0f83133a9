"""Render-ready plans derived from the parsed specs.

The templates only print; every decision (what a grad node saves, which
backward output answers which forward input, how an argument is converted)
is made here, once, in named functions.
"""
from __future__ import annotations

import ast

import math
from dataclasses import dataclass

from .checks import BILINEAR_RULE
from .model import NO_DEFAULT, BaseTy, BaseType, OpSpec, SpecError

_CONVERTERS = {
    "Scalar": "to_scalar", "IntArray": "to_int_array", "int[]": "to_int_array", "int": "to_int",
    "float": "to_float", "float[]": "to_float_list", "bool": "to_bool", "str": "to_str",
    "DataType": "to_dtype", "Place": "to_place", "Index": "to_index",
    "IntOrIntArray": "to_int_or_int_array",
}

# The type each converter returns unchanged: the generated code tests for it
# first (``type(v) is float``) and calls the converter only for anything else.
_FAST_TYPES = {
    "to_scalar": "float", "to_float": "float", "to_bool": "bool", "to_str": "str",
    "to_dtype": "DataType", "to_required_dtype": "DataType",
}


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


@dataclass(frozen=True)
class ArgPlan:
    """An argument of a generated function; the template writes its checks and conversion."""

    name: str
    type: str  # the YAML spelling without optionality: "Tensor", "Tensor[]", "int[]", ...
    is_tensor: bool
    is_list: bool
    optional: bool
    default: object  # NO_DEFAULT, or the parsed value (rendered by the py_default filter)
    converter: str | None  # the eager.arguments function that checks and converts an attribute
    scalar_like: str | None = None  # a tensor whose dtype and place a Python number here takes

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def fast_type(self) -> str | None:
        """The type its converter passes through untouched (checked inline first), or None."""
        return _FAST_TYPES.get(self.converter)


def plan_args(op: OpSpec) -> list:
    scalar = dict([op.scalar_tensor]) if op.scalar_tensor else {}
    return [ArgPlan(arg.name, str(arg.type.strip_optional()), arg.is_tensor, arg.is_tensor_list,
                    arg.optional, arg.default, _converter(arg), scalar.get(arg.name))
            for arg in op.args]


def _converter(arg) -> str | None:
    if arg.is_tensor:
        return None
    type_name = str(arg.type.strip_optional())
    if type_name == "DataType" and not arg.has_default:
        return "to_required_dtype"  # None is a dtype's "not given" only where it is the default
    if type_name == "IntArray" and arg.has_default and arg.default is None and not arg.optional:
        # Paddle's axis=None: the same as the empty list (every axis), so InferMeta,
        # kernels and backward rules only ever see a tuple.
        return "to_int_array_none_as_empty"
    if type_name == "Scalar" and isinstance(arg.default, str):
        # A Scalar whose default is a word (norm's p = "fro") also takes words;
        # the op's InferMeta says which.
        return "to_scalar_or_str"
    return _CONVERTERS[type_name]


@dataclass(frozen=True)
class CallPlan:
    """``func(arg, ...)``: an invoke target or a composite rule, with its argument names.
    ``renames``: for an invoke, (target's argument, caller's argument) pairs where the
    caller passes its own argument under another name, so the target's errors can be
    reworded to the names the user wrote."""

    func: str
    args: tuple
    renames: tuple = ()


@dataclass(frozen=True)
class ScalarOperatorPlan:
    """What an operator runs for a Python int or float ``y`` on a floating-point
    tensor ``x`` (ops.yaml's ``scalar_operator``): the op ``target`` (scale), its
    attributes set from ``values`` ((attribute, Python expression of y), ...)."""

    target: "ForwardPlan"
    values: tuple  # (ArgPlan of the attribute, Python expression, whether it needs the conversion)


@dataclass(frozen=True)
class KernelArg:
    """An argument of a kernel call: a tensor's array (of each element for a
    Tensor[], None passed through for an optional one) or an attribute."""

    name: str
    is_tensor: bool
    is_list: bool = False
    optional: bool = False


@dataclass(frozen=True)
class KeySource:
    """Where the dispatch key (array type, NumPy dtype) comes from: a tensor
    argument (its first element for a Tensor[]), or a DataType attribute with the
    array type of a Place attribute (``backend``) or of the CPU."""

    name: str
    is_tensor: bool
    is_list: bool = False
    backend: str | None = None
    # A DataType attribute whose default is None: when not given, the dtype the
    # InferMeta chose (in this output's meta) selects the kernel and is passed on.
    chosen_by: str | None = None


@dataclass(frozen=True)
class SignaturePart:
    """One argument's part of a call's signature (what the op's InferMeta reads):
    a tensor's array type, dtype and shape (per element of a Tensor[]; None for
    an optional tensor not given), or an attribute's value, with its type where
    values of different types compare equal (1 == 1.0 == True)."""

    name: str
    is_tensor: bool
    is_list: bool = False
    optional: bool = False
    typed: bool = False


# Attributes whose equal values may differ in type (int, float, bool, complex):
# the signature holds the type too, as InferMeta may accept one and refuse another.
_TYPED_ATTRIBUTES = {BaseTy.Scalar, BaseTy.int, BaseTy.float, BaseTy.bool, BaseTy.IntOrIntArray}


def plan_signature(op: OpSpec, key: "KeySource") -> tuple | None:
    """The signature parts of the op's phi function: every tensor argument (its
    array type also decides the kernel and the place check) and every attribute
    its InferMeta reads. None when the function does not remember signatures: its kernel is not selected by a tensor (creation ops,
    whose InferMeta may read the default dtype), or an argument is an Index
    (it may hold tensors, whose shape is not in the signature)."""
    if not key.is_tensor:
        return None
    parts = []
    read = set(op.infer_meta.params)
    for a in op.args:
        base = a.type.strip_optional()
        if isinstance(base, BaseType) and base.name is BaseTy.Index:
            return None
        if not a.is_tensor and a.name not in read:
            continue  # an attribute only the kernel reads (scale's factor): any value passes
        typed = isinstance(base, BaseType) and base.name in _TYPED_ATTRIBUTES
        parts.append(SignaturePart(a.name, a.is_tensor, a.is_tensor_list, a.optional, typed))
    return tuple(parts)


@dataclass(frozen=True)
class PhiPlan:
    """A phi API function: InferMeta, cached kernel selection, kernel, wrapping."""

    name: str
    doc: str
    params: tuple
    tensors: tuple
    infer_meta: str
    infer_meta_args: tuple
    outputs: tuple
    list_outputs: tuple
    kernel: str
    key: KeySource
    kernel_args: tuple
    out_mask: bool
    view_source: str | None
    # The tensor arguments checked against the key's place (the key first), as
    # KernelArgs: every dense tensor the kernel reads, except shape-only ones.
    same_place: tuple = ()
    # What a call's signature holds; None: the function runs every check on every call.
    signature: tuple | None = None


def plan_phi(op: OpSpec) -> PhiPlan:
    tensors = tuple(a.name for a in op.tensor_args)
    kernel = op.kernel
    data_type = kernel.data_type or (tensors[0] if tensors else None)
    data_arg = op.arg(data_type)
    chosen_by = None
    if not data_arg.is_tensor and data_arg.default is None:
        chosen_by = f"{op.outputs[0].name}_meta"
    key = KeySource(data_type, data_arg.is_tensor, data_arg.is_tensor_list, kernel.backend, chosen_by)
    kernel_args = tuple(KernelArg(name, op.arg(name).is_tensor, op.arg(name).is_tensor_list,
                                  op.arg(name).is_tensor and op.arg(name).optional)
                        for name in kernel.params)
    same_place = ()
    if key.is_tensor and key.name in kernel.params:
        others = tuple(a for a in kernel_args if a.is_tensor and a.name != key.name
                       and a.name not in op.no_need_buffer)
        if others or key.is_list:
            same_place = (next(a for a in kernel_args if a.name == key.name),) + others
    return PhiPlan(
        name=op.name, doc=op.doc, params=tuple(a.name for a in op.args), tensors=tensors,
        infer_meta=op.infer_meta.func, infer_meta_args=tuple(op.infer_meta.params),
        outputs=tuple(o.name for o in op.outputs),
        list_outputs=tuple(o.name for o in op.outputs if o.is_list),
        kernel=op.kernel.func, key=key, kernel_args=kernel_args,
        out_mask=op.is_backward and len(op.outputs) > 1,
        view_source=op.view[0] if op.view else None,
        same_place=same_place,
        signature=plan_signature(op, key),
    )


@dataclass(frozen=True)
class SavedPlan:
    """A forward tensor the grad node keeps: an input, an output, or only shape(s)."""

    slot: str  # the node attribute (the backward op's argument name)
    source: str  # the forward variable
    kind: str  # "input", "output" or "shape" (no_need_buffer); "inputs" / "shapes" for a Tensor[]
    optional: bool = False  # an optional forward input: None is saved as None


@dataclass(frozen=True)
class CallArg:
    """One argument of a backward call: an incoming gradient, a saved tensor or an attribute."""

    name: str
    kind: str  # "grad", "saved" or "attr"
    is_list: bool = False
    optional: bool = False
    shape_only: bool = False  # a saved tensor kept as a (shape, dtype, device) spec


@dataclass(frozen=True)
class GradArg:
    """Where a backward argument ``<out>_grad`` sits in the node's flat gradient slots.

    A forward op with a Tensor[] output has one slot per element, so the slots of
    the outputs after the list are counted from the end: ``index`` is negative
    for those, and a list takes ``grads[start:len(grads) - after]``.
    """

    name: str
    is_list: bool
    index: int  # the slot of a single output (negative: from the end)
    after: int  # for a list: how many slots follow it
    optional: bool


@dataclass(frozen=True)
class InputSlot:
    """A forward tensor input: one slot of the node's edges (one edge per list element)."""

    name: str
    is_list: bool
    optional: bool
    grad: int | None  # which backward output is its gradient; None if there is none


@dataclass(frozen=True)
class OutputSlot:
    name: str
    is_list: bool


@dataclass(frozen=True)
class NodePlan:
    """The grad node recorded by forward op ``forward`` and running backward op ``backward``."""

    class_name: str
    backward: str
    forward: str
    outputs: tuple  # OutputSlot per differentiable forward output: they fill the node's gradient slots
    inputs: tuple  # InputSlot per forward tensor input: the node's edge slots
    saved: tuple
    attrs: tuple  # (slot, forward variable)
    grad_args: tuple  # GradArg per incoming-gradient argument of the backward op
    call_args: tuple  # CallArg per argument of the backward op, in its order
    composite: CallPlan | None  # args index call_args by name
    bilinear: tuple | None  # (forward op, its gradient op): the generic bilinear rule applies
    has_kernel: bool
    out_mask: bool  # the backward op has several outputs and takes out_mask
    backward_returns_list: bool  # its one output is a Tensor[]
    fill_zeros: bool
    is_view: bool
    order_limit: int | None  # 1 when the backward op itself cannot be differentiated
    # (incoming gradient, kernel) when backward.yaml says inplace: (out_grad -> x_grad):
    # the kernel may write its result into that gradient when the engine owns it.
    inplace: tuple | None = None
    # Per edge slot, the saved shape-only spec of an input whose gradient is the
    # incoming gradient itself when their shapes match (None: not such an input).
    pass_through: tuple = ()

    @property
    def has_list_output(self) -> bool:
        return any(o.is_list for o in self.outputs)

    @property
    def num_grad_slots(self) -> int | None:
        """Known statically unless the forward op returns a Tensor[]."""
        return None if self.has_list_output else len(self.outputs)

    @property
    def saved_outputs(self) -> tuple:
        return tuple(s for s in self.saved if s.kind == "output")

    def call_arg(self, name: str) -> CallArg:
        return next(a for a in self.call_args if a.name == name)


def plan_node(fwd: OpSpec, bwd: OpSpec) -> NodePlan:
    sig = bwd.forward
    # The forward line may rename the forward op's args and outputs by position.
    alias_to_input = {alias.name: real for alias, real in zip(sig.args, fwd.args)}
    alias_to_output = {alias.name: real for alias, real in zip(sig.outputs, fwd.outputs)}
    # Gradient slots: one per differentiable output (no_grad_outputs take none).
    grad_outputs = fwd.grad_outputs
    slot_of = {o.name: i for i, o in enumerate(grad_outputs)}
    list_position = next((i for i, o in enumerate(grad_outputs) if o.is_list), None)
    if sum(o.is_list for o in grad_outputs) > 1:
        raise SpecError(fwd.where("output"), f"{fwd.name}: a differentiable op may have at most one "
                                             f"Tensor[] output (the slots after it are counted from the end)")
    grad_of = {f"{alias}_grad": (slot_of[real.name], real) for alias, real in alias_to_output.items()
               if real.name in slot_of}

    saved, attrs, call_args, grad_args = [], [], [], []
    for arg in bwd.args:
        if arg.name in grad_of:
            index, real = grad_of[arg.name]
            grad_args.append(_grad_arg(grad_outputs, bwd, arg, index, list_position))
            call_args.append(CallArg(arg.name, "grad", arg.is_tensor_list, arg.optional))
        elif arg.name in alias_to_output:
            real = alias_to_output[arg.name]
            if real.is_list:
                raise SpecError(bwd.where("args"), f"{bwd.name}: a Tensor[] forward output cannot be saved; "
                                                   f"save the inputs instead")
            # A non-differentiable output has no history pointing at the node, so
            # it is kept as an input is (no reference cycle to break).
            kind = "output" if real.name in slot_of else "input"
            saved.append(SavedPlan(arg.name, real.name, kind))
            call_args.append(CallArg(arg.name, "saved"))
        elif arg.is_tensor:
            real = alias_to_input[arg.name]
            kind = "shape" if arg.name in bwd.no_need_buffer else "input"
            if arg.is_tensor_list:
                kind += "s"
            saved.append(SavedPlan(arg.name, real.name, kind, real.optional))
            call_args.append(CallArg(arg.name, "saved", arg.is_tensor_list, real.optional, kind == "shape"))
        else:
            attrs.append((arg.name, alias_to_input[arg.name].name))
            call_args.append(CallArg(arg.name, "attr"))

    output_index = {o.name: j for j, o in enumerate(bwd.outputs)}
    inputs = tuple(InputSlot(real.name, real.is_tensor_list, real.optional, output_index.get(f"{alias.name}_grad"))
                   for alias, real in zip(sig.args, fwd.args) if real.is_tensor)
    composite = None
    if bwd.composite is not None:
        composite = CallPlan(bwd.composite.func, tuple(bwd.composite.args))
    return NodePlan(
        class_name=f"{camel(bwd.name)}Node", backward=bwd.name, forward=fwd.name,
        outputs=tuple(OutputSlot(o.name, o.is_list) for o in grad_outputs), inputs=inputs,
        saved=tuple(saved), attrs=tuple(attrs), grad_args=tuple(grad_args), call_args=tuple(call_args),
        composite=composite, bilinear=None if bwd.bilinear is None else (bwd.bilinear, fwd.name),
        has_kernel=bwd.kernel is not None, out_mask=len(bwd.outputs) > 1,
        backward_returns_list=len(bwd.outputs) == 1 and bwd.outputs[0].is_list,
        fill_zeros=len(grad_outputs) > 1 or list_position is not None, is_view=fwd.view is not None,
        # The backward op has no backward and no composite: its results are the
        # last order of fwd, and differentiating them must raise, not give zeros.
        order_limit=1 if bwd.composite is None and bwd.bilinear is None and bwd.backward is None else None,
        inplace=_plan_grad_inplace(bwd, call_args, len(grad_outputs)),
        pass_through=_plan_pass_through(bwd, inputs, saved, grad_args),
    )


def _plan_pass_through(bwd: OpSpec, inputs: tuple, saved: list, grad_args: list) -> tuple:
    """The saved spec slot per edge slot for backward.yaml's pass_through (add's
    gradient reaches an input of the output's shape unchanged): each named
    output must be the gradient of a plain input saved shape-only, and the op
    must take one incoming gradient and have several outputs (out_mask)."""
    if not bwd.pass_through:
        return ()
    shape_only = {s.slot for s in saved if s.kind == "shape"}
    by_grad = {f"{slot.name}_grad": slot for slot in inputs}
    if len(grad_args) != 1 or len(bwd.outputs) < 2 or any(
            name not in by_grad or by_grad[name].is_list or by_grad[name].name not in shape_only
            for name in bwd.pass_through):
        raise SpecError(bwd.where("pass_through"), f"{bwd.name}: pass_through names gradients of plain "
                                                   f"inputs in no_need_buffer, of an op with one incoming "
                                                   f"gradient and several outputs")
    return tuple(slot.name if f"{slot.name}_grad" in bwd.pass_through else None for slot in inputs)


def _plan_grad_inplace(bwd: OpSpec, call_args: list, num_grad_slots: int):
    """(incoming gradient, kernel) for a backward op with ``inplace``; the engine's
    in-place path covers one incoming gradient, one output and a kernel whose
    tensor arguments come before its attributes, in the op's order."""
    if bwd.inplace is None:
        return None
    source, _ = bwd.inplace
    kinds = [a.kind for a in call_args]
    if (bwd.kernel is None or len(bwd.outputs) != 1 or num_grad_slots != 1
            or not any(a.name == source and a.kind == "grad" for a in call_args)
            or any(a.is_list or a.optional for a in call_args)
            or kinds != sorted(kinds, key=lambda kind: kind == "attr")
            or tuple(bwd.kernel.params) != tuple(a.name for a in bwd.args)):
        raise SpecError(bwd.where("inplace"), f"{bwd.name}: inplace on a backward op needs a kernel, one "
                                              f"output, one incoming gradient (the input written into), "
                                              f"plain tensors before attributes and the kernel's params "
                                              f"in the op's order")
    return source, bwd.kernel.func


def _grad_arg(grad_outputs: tuple, bwd: OpSpec, arg, index: int, list_position: int | None) -> GradArg:
    count = len(grad_outputs)
    is_list = grad_outputs[index].is_list
    if is_list != arg.is_tensor_list:
        raise SpecError(bwd.where("args"), f"{bwd.name}: {arg.name!r} must be declared "
                                           f"{'Tensor[]' if is_list else 'Tensor'}, like the output it is the gradient of")
    if list_position is not None and index > list_position:
        slot = index - count  # after the list: counted from the end
    else:
        slot = index
    if arg.optional and list_position is not None:
        raise SpecError(bwd.where("optional"), f"{bwd.name}: an optional gradient of an op with a "
                                               f"Tensor[] output is not supported")
    return GradArg(arg.name, is_list, slot, count - 1 - index, arg.optional)


@dataclass(frozen=True)
class ForwardPlan:
    """An eager API function (and its inplace twin, if any)."""

    name: str
    doc: str
    args: tuple
    outputs: tuple  # returned outputs
    returned_if: tuple  # (returned output, the bool attribute it needs, or None)
    all_outputs: tuple  # OutputSlot per output, intermediate ones included
    phi: str | None
    invoke: CallPlan | None
    composite: CallPlan | None  # with a kernel: used when recording; without: always
    node: NodePlan | None
    inplace: tuple | None
    out_mask: bool
    max_order: float
    is_backward: bool
    method: bool
    view_source: str | None  # the input whose buffer the output views (``view:``)
    operator: str | None = None  # the Tensor operator (``__add__``) that runs this op in one frame
    scalar_operator: ScalarOperatorPlan | None = None  # the operator's number case, in the same frame
    reflected_operator: str | None = None  # the reflected operator (``__radd__``) that is the same function
    type_promotion: tuple = ()  # the tensor args cast to a common dtype when the kernel refuses theirs
    complex_promotion: tuple = ()  # the tensor args cast to one complex dtype when the kernel refuses a real with a complex

    @property
    def list_output(self) -> bool:
        return any(o.is_list for o in self.all_outputs)

    @property
    def order_text(self) -> str:
        if self.max_order == 0:
            return "not differentiable"
        if math.isinf(self.max_order):
            return "differentiable to any order"
        return f"differentiable to order {int(self.max_order)}"


def max_order(op: OpSpec, everything: dict) -> float:
    """How many times gradients of this op can be taken, known from the YAML alone
    (an invoke op records through the op it calls: that op's order)."""
    if op.invoke is not None:
        return max_order(everything[op.invoke.func], everything)
    if op.composite is not None or op.bilinear is not None:
        return math.inf  # called directly, it records through its composite rule
    order = 0
    seen = set()
    while op.backward is not None and op.name not in seen:
        seen.add(op.name)
        bwd = everything[op.backward]
        order += 1
        if bwd.composite is not None or bwd.bilinear is not None:
            return math.inf
        op = bwd
    return order


def plan_forward(op: OpSpec, everything: dict) -> ForwardPlan:
    node = plan_node(op, everything[op.backward]) if op.backward else None
    invoke = None
    if op.invoke is not None:
        own = {a.name for a in op.args}
        target_args = everything[op.invoke.func].args
        renames = tuple((t.name, a) for t, a in zip(target_args, op.invoke.args) if a in own and a != t.name)
        invoke = CallPlan(op.invoke.func, tuple(op.invoke.args), renames)
    composite = None if op.composite is None else CallPlan(op.composite.func, tuple(op.composite.args))
    if op.bilinear is not None:
        # The generic rule, given the bilinear op and its gradient op (both eager functions).
        composite = CallPlan(BILINEAR_RULE, (op.bilinear, op.forward.name, *(a.name for a in op.args)))
    return ForwardPlan(
        name=op.name, doc=op.doc, args=tuple(plan_args(op)),
        outputs=tuple(o.name for o in op.outputs if o.name not in op.intermediate),
        returned_if=tuple((o.name, dict(op.returned_if).get(o.name)) for o in op.outputs
                          if o.name not in op.intermediate) if op.returned_if else (),
        all_outputs=tuple(OutputSlot(o.name, o.is_list) for o in op.outputs),
        phi=op.name if op.kernel else None, invoke=invoke, composite=composite, node=node,
        # A backward op's inplace is its kernel's (the engine's in-place gradient), not an eager twin.
        inplace=None if op.is_backward else op.inplace, out_mask=op.is_backward and len(op.outputs) > 1,
        max_order=max_order(op, everything), is_backward=op.is_backward,
        method=not op.is_backward and bool(op.args) and op.args[0].is_tensor,
        view_source=op.view[0] if op.view else None,
        operator=op.operator,
        scalar_operator=None if op.scalar_operator is None else plan_scalar_operator(op, everything),
        reflected_operator=op.reflected_operator,
        type_promotion=op.type_promotion,
        complex_promotion=op.complex_promotion,
    )


def plan_scalar_operator(op: OpSpec, everything: dict) -> ScalarOperatorPlan:
    """ops.yaml's ``scalar_operator``: the target op's plan and each attribute's value.
    A constant already of the type its converter passes through untouched (``0.0``
    for a Scalar, ``True`` for a bool) skips the conversion; an expression of y
    (``-y``) gets the target's own conversion, as a call of the target would."""
    target = plan_forward(everything[op.scalar_operator.func], everything)
    values = []
    for arg, expr in zip(target.args[1:], op.scalar_operator.args[1:]):
        try:
            constant = ast.literal_eval(expr)
        except (ValueError, SyntaxError):
            convert = True
        else:
            convert = type(constant).__name__ != arg.fast_type
        values.append((arg, expr, convert))
    return ScalarOperatorPlan(target, tuple(values))
