"""Render-ready plans derived from the parsed specs.

The templates only print; every decision (what a grad node saves, which
backward output answers which forward input, how an argument is converted)
is made here, once, in named functions.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .model import NO_DEFAULT, Arg, OpSpec, SpecError

_CONVERTERS = {
    "Scalar": "to_scalar", "IntArray": "to_int_array", "int[]": "to_int_array", "int": "to_int",
    "float": "to_float", "float[]": "to_float_list", "bool": "to_bool", "str": "to_str",
    "DataType": "to_dtype", "Place": "to_place", "Index": "to_index",
}


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def default_source(arg: Arg) -> str | None:
    """The Python source of an argument's default, or None if it has none."""
    value = arg.default
    if value is NO_DEFAULT:
        return None
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "DataType":
        return f"DataType.{value[1].upper()}"
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "Place":
        return "None"
    return repr(value)


@dataclass
class ArgPlan:
    name: str
    type: str
    is_tensor: bool
    is_list: bool
    optional: bool
    signature: str
    convert: str | None


def plan_args(op: OpSpec) -> list:
    plans = []
    for arg in op.args:
        default = default_source(arg)
        signature = arg.name if default is None else f"{arg.name}={default}"
        convert = None
        if not arg.is_tensor:
            fn = _CONVERTERS[arg.type]
            convert = f'{fn}({arg.name}, "{op.name}", "{arg.name}")'
        plans.append(ArgPlan(arg.name, arg.type, arg.is_tensor, arg.is_tensor_list, arg.optional,
                             signature, convert))
    return plans


@dataclass
class PhiPlan:
    """A phi API function: InferMeta, cached kernel selection, kernel, wrapping."""

    name: str
    doc: str
    params: list
    tensors: list
    infer_meta: str
    infer_meta_args: list
    outputs: list
    list_outputs: list
    kernel: str
    key: str
    kernel_args: list
    out_mask: bool
    view_source: str | None


def plan_phi(op: OpSpec) -> PhiPlan:
    tensors = [a.name for a in op.tensor_args]
    kernel = op.kernel
    data_type = kernel.data_type or (tensors[0] if tensors else None)
    data_arg = op.arg(data_type)
    if data_arg.is_tensor:
        first = f"{data_type}[0]" if data_arg.is_tensor_list else data_type
        key = f"(type({first}.array), {first}.array.dtype)"
    else:
        array_type = f"array_type_of({kernel.backend})" if kernel.backend else "np.ndarray"
        key = f"({array_type}, {data_type}.numpy_dtype)"
    kernel_args = []
    for name in kernel.params:
        arg = op.arg(name)
        if arg.is_tensor_list:
            kernel_args.append(f"[t.array for t in {name}]")
        elif arg.is_tensor and arg.optional:
            kernel_args.append(f"(None if {name} is None else {name}.array)")
        elif arg.is_tensor:
            kernel_args.append(f"{name}.array")
        else:
            kernel_args.append(name)
    return PhiPlan(
        name=op.name, doc=op.doc, params=[a.name for a in op.args], tensors=tensors,
        infer_meta=op.infer_meta.func, infer_meta_args=list(op.infer_meta.params),
        outputs=[o.name for o in op.outputs], list_outputs=[o.name for o in op.outputs if o.is_list],
        kernel=op.kernel.func, key=key, kernel_args=kernel_args,
        out_mask=op.is_backward and len(op.outputs) > 1,
        view_source=op.view[0] if op.view else None,
    )


@dataclass
class SavedPlan:
    slot: str
    source: str
    kind: str  # "input", "output" or "shape"
    rank: int = 0


@dataclass
class NodePlan:
    """The grad node recorded by forward op ``forward`` and running backward op ``backward``."""

    class_name: str
    backward: str
    forward: str
    num_outputs: int
    saved: list
    attrs: list  # (slot, forward variable)
    edge_sources: list  # forward tensor inputs, in order
    call_args: list  # expressions, in the backward op's arg order (create_graph path)
    phi_call_args: list  # the same for the phi path
    grad_args: list  # (backward arg name, forward output index, optional)
    returns: list  # per forward tensor input: index into the backward's outputs, or None
    composite: str | None
    has_kernel: bool
    out_mask: bool
    fill_zeros: bool
    is_view: bool
    list_input: str | None  # the forward's one Tensor[] input, whose edges are flattened
    list_output: bool  # the forward's one output is a Tensor[]: one slot per element
    returns_list: bool  # the backward's one output is a Tensor[] (gradients of list_input)
    order_limit: int | None  # 1 when the backward op itself cannot be differentiated


def plan_node(fwd: OpSpec, bwd: OpSpec) -> NodePlan:
    sig = bwd.forward
    forward_tensor_inputs = [a.name for a in fwd.args if a.is_tensor]
    list_inputs = [a.name for a in fwd.args if a.is_tensor_list]
    if list_inputs and len(forward_tensor_inputs) > 1:
        raise SpecError(fwd.where("args"), f"{fwd.name}: a differentiable op with a Tensor[] input may "
                                           f"have no other tensor input (its edges are the list's)")
    list_output = any(o.is_list for o in fwd.outputs)
    if list_output and len(fwd.outputs) > 1:
        raise SpecError(fwd.where("output"), f"{fwd.name}: a differentiable op with a Tensor[] output may "
                                             f"have no other output (its slots are the list's)")
    # The forward line may rename the forward op's args and outputs by position.
    alias_to_input = {alias.name: real.name for alias, real in zip(sig.args, fwd.args)}
    alias_to_output = {alias.name: (i, real.name) for i, (alias, real) in enumerate(zip(sig.outputs, fwd.outputs))}
    grad_names = {f"{alias}_grad": index for alias, (index, _) in alias_to_output.items()}

    saved, attrs, call_args, phi_args, grad_args = [], [], [], [], []
    for arg in bwd.args:
        if arg.name in grad_names:
            index = grad_names[arg.name]
            grad_args.append((arg.name, index, arg.optional))
            call_args.append(arg.name)
            if arg.is_tensor_list:
                phi_args.append(f"[g.impl for g in {arg.name}]")
            elif arg.optional:
                phi_args.append(f"(None if {arg.name} is None else {arg.name}.impl)")
            else:
                phi_args.append(f"{arg.name}.impl")
        elif arg.name in alias_to_output:
            index, real = alias_to_output[arg.name]
            saved.append(SavedPlan(arg.name, real, "output", index))
            call_args.append(arg.name)
            phi_args.append(f"self.{arg.name}.recover_impl(self)")
        elif arg.is_tensor:
            real = alias_to_input[arg.name]
            kind = "shape" if arg.name in bwd.no_need_buffer else "input"
            if arg.is_tensor_list:
                if kind != "shape":
                    raise SpecError(bwd.where("no_need_buffer"), f"{bwd.name}: a saved Tensor[] must be "
                                                                 f"in no_need_buffer (only shapes of lists are kept)")
                kind = "shapes"
            saved.append(SavedPlan(arg.name, real, kind))
            call_args.append(arg.name)
            phi_args.append(f"self.{arg.name}.recover_impl(self)")
        else:
            attrs.append((arg.name, alias_to_input[arg.name]))
            call_args.append(f"self.{arg.name}")
            phi_args.append(f"self.{arg.name}")

    alias_inputs = [alias.name for alias, real in zip(sig.args, fwd.args) if real.is_tensor]
    output_index = {o.name: j for j, o in enumerate(bwd.outputs)}
    returns = [output_index.get(f"{alias}_grad") for alias in alias_inputs]

    composite = None
    if bwd.composite is not None:
        composite = f"_composite.{bwd.composite.func}({', '.join(call_args_for(bwd.composite.args, bwd, call_args))})"
    return NodePlan(
        class_name=f"{camel(bwd.name)}Node", backward=bwd.name, forward=fwd.name,
        num_outputs=len(fwd.outputs), saved=saved, attrs=attrs, edge_sources=forward_tensor_inputs,
        call_args=call_args, phi_call_args=phi_args, grad_args=grad_args, returns=returns,
        composite=composite, has_kernel=bwd.kernel is not None,
        out_mask=len(bwd.outputs) > 1, fill_zeros=len(fwd.outputs) > 1 or list_output,
        is_view=fwd.view is not None, list_input=list_inputs[0] if list_inputs else None,
        list_output=list_output, returns_list=len(bwd.outputs) == 1 and bwd.outputs[0].is_list,
        # The backward op has no backward and no composite: its results are the
        # last order of fwd, and differentiating them must raise, not give zeros.
        order_limit=1 if bwd.composite is None and bwd.backward is None else None,
    )


def call_args_for(names, bwd: OpSpec, call_args: list) -> list:
    by_name = {arg.name: expr for arg, expr in zip(bwd.args, call_args)}
    return [by_name[name] for name in names]


@dataclass
class ForwardPlan:
    """An eager API function (and its inplace twin, if any)."""

    name: str
    doc: str
    args: list
    outputs: list  # returned outputs
    all_outputs: list
    phi: str | None
    invoke: str | None
    composite: str | None  # with a kernel: used when recording; without: always
    node: NodePlan | None
    inplace: tuple | None
    out_mask: bool
    max_order: float
    is_backward: bool
    method: bool
    list_output: bool = False

    @property
    def order_text(self) -> str:
        if self.max_order == 0:
            return "not differentiable"
        if math.isinf(self.max_order):
            return "differentiable to any order"
        return f"differentiable to order {int(self.max_order)}"


def max_order(op: OpSpec, everything: dict) -> float:
    """How many times gradients of this op can be taken, known from the YAML alone."""
    if op.composite is not None:
        return math.inf  # called directly, it records through its composite rule
    order = 0
    seen = set()
    while op.backward is not None and op.name not in seen:
        seen.add(op.name)
        bwd = everything[op.backward]
        order += 1
        if bwd.composite is not None:
            return math.inf
        op = bwd
    return order


def plan_forward(op: OpSpec, everything: dict) -> ForwardPlan:
    node = plan_node(op, everything[op.backward]) if op.backward else None
    invoke = None
    if op.invoke is not None:
        invoke = f"{op.invoke.func}({', '.join(op.invoke.args)})"
    composite = None
    if op.composite is not None:
        composite = f"_composite.{op.composite.func}({', '.join(op.composite.args)})"
    returned = [o.name for o in op.outputs if o.name not in op.intermediate]
    return ForwardPlan(
        name=op.name, doc=op.doc, args=plan_args(op), outputs=returned,
        all_outputs=[o.name for o in op.outputs], phi=op.name if op.kernel else None,
        invoke=invoke, composite=composite, node=node, inplace=op.inplace,
        out_mask=op.is_backward and len(op.outputs) > 1, max_order=max_order(op, everything),
        is_backward=op.is_backward,
        method=not op.is_backward and bool(op.args) and op.args[0].is_tensor,
        list_output=any(o.is_list for o in op.outputs),
    )
