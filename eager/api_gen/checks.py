"""Cross-entry rules for ops.yaml and backward.yaml, each error pointing at a YAML line.

- every ``backward:`` names an existing backward op, whose ``forward:`` line
  matches the op it differentiates (name, argument types, outputs);
- backward args are forward inputs/outputs, ``<output>_grad`` or forward
  attributes; backward outputs are ``<input>_grad`` of tensor inputs;
- InferMeta functions exist in phi.infermeta and take the params plus one
  MetaTensor per output; kernels are registered and take the YAML params;
- composite functions exist in eager.composite with the YAML's parameters;
- a ``bilinear`` entry names a forward op with two tensor inputs whose
  gradient is the op it differentiates, with args (x, y, grad_out,
  grad_x_grad, grad_y_grad, attributes...);
- names in optional, no_need_buffer, intermediate, no_grad_outputs, inplace and
  view exist;
- ``no_grad_outputs`` (outputs never differentiated, such as topk's indices)
  belong to a differentiable op, leave it at least one differentiable output,
  are not the output of inplace or view, and their ``<output>_grad`` is no
  argument of the backward op;
- ``returned_if`` maps returned outputs to bool attributes of the op (which
  then has no inplace, view or backward).
- ``scalar_tensor: (value -> x)`` maps a tensor argument to a tensor argument before it.
"""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

from .model import OpSpec, SpecError


def composite_signatures(package: Path) -> dict:
    """name -> parameter names of the public top-level functions in the modules
    of the eager/composite package.

    Read from the source, not imported: the modules import the generated code
    that is being (re)generated.
    """
    signatures = {}
    for path in sorted(Path(package).glob("*.py")):
        tree = ast.parse(path.read_text())
        signatures.update({node.name: [a.arg for a in node.args.args] for node in tree.body
                           if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")})
    return signatures


def check_all(forward_ops: list, backward_ops: list, infermeta_module, kernel_factory,
              composites: dict) -> None:
    ops = {op.name: op for op in forward_ops}
    backwards = {op.name: op for op in backward_ops}
    for name in set(ops) & set(backwards):
        raise SpecError(backwards[name].location, f"{name!r} is both a forward and a backward op")
    everything = {**ops, **backwards}
    for op in forward_ops + backward_ops:
        _check_names(op)
        if op.infer_meta is not None:
            _check_infer_meta(op, infermeta_module)
        if op.kernel is not None:
            _check_kernel(op, kernel_factory)
        if op.composite is not None:
            _check_composite(op, composites)
        if op.bilinear is not None:
            _check_bilinear(op, everything, composites)
        if op.invoke is not None:
            _check_invoke(op, everything)
        if op.scalar_operator is not None:
            _check_scalar_operator(op, ops)
        if op.backward is not None:
            if op.backward not in backwards:
                raise SpecError(op.where("backward"), f"{op.name}: backward op {op.backward!r} is not in backward.yaml")
            _check_backward_pair(op, backwards[op.backward])
    for op in backward_ops:
        fwd = everything.get(op.forward.name)
        if fwd is None:
            raise SpecError(op.where("forward"), f"{op.name}: forward op {op.forward.name!r} does not exist")
        if fwd.backward != op.name:
            raise SpecError(op.where("forward"), f"{op.name}: its forward op {fwd.name!r} names "
                                                 f"{fwd.backward!r} as its backward, not {op.name!r}")


def _check_names(op: OpSpec) -> None:
    arg_names = {a.name for a in op.args}
    out_names = {o.name for o in op.outputs}
    for key, names, pool in (("optional", op.optional, arg_names), ("no_need_buffer", op.no_need_buffer, None),
                             ("intermediate", op.intermediate, out_names),
                             ("no_grad_outputs", op.no_grad_outputs, out_names)):
        for name in names:
            if pool is not None and name not in pool:
                raise SpecError(op.where(key), f"{op.name}: {key} names {name!r}, which is not among {sorted(pool)}")
    for key, mapping in (("inplace", op.inplace), ("view", op.view)):
        if mapping is None:
            continue
        src, dst = mapping
        if src not in arg_names or not op.arg(src).is_tensor:
            raise SpecError(op.where(key), f"{op.name}: {key} input {src!r} is not a tensor argument")
        if dst not in out_names:
            raise SpecError(op.where(key), f"{op.name}: {key} output {dst!r} is not an output")
        if dst in op.no_grad_outputs:
            raise SpecError(op.where(key), f"{op.name}: {key} output {dst!r} is listed in no_grad_outputs; "
                                           f"the output written into an input must be differentiable")
    for output, flag in op.returned_if:
        where = op.where("returned_if")
        if output not in out_names or output in op.intermediate:
            raise SpecError(where, f"{op.name}: returned_if names {output!r}, which is not a returned output; "
                                   f"returned outputs are {[o for o in sorted(out_names) if o not in op.intermediate]}")
        attr = op.arg(flag)
        if attr is None or str(attr.type) != "bool":
            raise SpecError(where, f"{op.name}: returned_if makes {output!r} depend on {flag!r}, which is not "
                                   f"a bool attribute; bool attributes are "
                                   f"{[a.name for a in op.args if str(a.type) == 'bool']}")
    if op.returned_if and (op.inplace or op.view or op.backward):
        raise SpecError(op.where("returned_if"), f"{op.name}: an op whose returned outputs depend on flags "
                                                 f"takes no inplace, view or backward")
    if op.no_grad_outputs:
        if op.backward is None:
            raise SpecError(op.where("no_grad_outputs"),
                            f"{op.name}: no_grad_outputs marks outputs of a differentiable op; {op.name} has "
                            f"no backward, so none of its outputs is differentiable anyway")
        if not op.grad_outputs:
            raise SpecError(op.where("no_grad_outputs"),
                            f"{op.name}: no_grad_outputs lists every output {sorted(out_names)}; a differentiable "
                            f"op needs at least one differentiable output")
    if op.scalar_tensor is not None:
        arg, like = op.scalar_tensor
        names = [a.name for a in op.args]
        for name in (arg, like):
            if name not in arg_names or not op.arg(name).is_tensor or op.arg(name).is_tensor_list:
                raise SpecError(op.where("scalar_tensor"), f"{op.name}: scalar_tensor names {name!r}, which is "
                                                           f"not a (single) tensor argument")
        if names.index(like) > names.index(arg):
            raise SpecError(op.where("scalar_tensor"), f"{op.name}: scalar_tensor takes the dtype of {like!r}, "
                                                       f"which must come before {arg!r}")


def _signature_names(fn) -> list:
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _check_infer_meta(op: OpSpec, module) -> None:
    spec = op.infer_meta
    fn = getattr(module, spec.func, None)
    if fn is None:
        raise SpecError(op.where("infer_meta"), f"{op.name}: InferMeta function {spec.func!r} is not in phi.infermeta")
    for name in spec.params:
        if op.arg(name) is None:
            raise SpecError(op.where("infer_meta"), f"{op.name}: infer_meta param {name!r} is not an argument of the op")
    params = _signature_names(fn)
    expected = len(spec.params) + len(op.outputs)
    if len(params) != expected:
        raise SpecError(op.where("infer_meta"),
                        f"{op.name}: {spec.func}{tuple(params)} takes {len(params)} parameters, but the "
                        f"YAML passes {list(spec.params)} and {len(op.outputs)} output(s) = {expected}")
    for yaml_name, fn_name in zip(spec.params, params):
        arg = op.arg(yaml_name)
        if not arg.is_tensor and yaml_name != fn_name:
            raise SpecError(op.where("infer_meta"),
                            f"{op.name}: attribute {yaml_name!r} is passed to {spec.func} as its "
                            f"parameter {fn_name!r}; the names must match")


def _check_kernel(op: OpSpec, factory) -> None:
    spec = op.kernel
    if not factory.has(spec.func):
        raise SpecError(op.where("kernel"), f"{op.name}: no kernel named {spec.func!r} is registered in phi")
    for name in spec.params:
        if op.arg(name) is None:
            raise SpecError(op.where("kernel"), f"{op.name}: kernel param {name!r} is not an argument of the op")
    for kernel in factory.kernels(spec.func).values():
        if tuple(kernel.arg_names) != tuple(spec.params):
            raise SpecError(op.where("kernel"),
                            f"{op.name}: kernel {spec.func!r} registered for {kernel.key} takes "
                            f"{list(kernel.arg_names)}, but the YAML passes {list(spec.params)}")
        wants_mask = op.is_backward and len(op.outputs) > 1
        if wants_mask != ("out_mask" in kernel.keyword_only):
            raise SpecError(op.where("kernel"),
                            f"{op.name}: kernel {spec.func!r} must {'' if wants_mask else 'not '}take the "
                            f"keyword-only out_mask (backward kernels with several outputs do)")
    for key, value in (("data_type", spec.data_type), ("backend", spec.backend)):
        if value is not None and op.arg(value) is None:
            raise SpecError(op.where("kernel"), f"{op.name}: kernel {key} {value!r} is not an argument")
    if spec.data_type is None and not op.tensor_args:
        raise SpecError(op.where("kernel"), f"{op.name}: an op without tensor inputs needs kernel data_type")


def _check_composite(op: OpSpec, composites: dict) -> None:
    call = op.composite
    params = composites.get(call.func)
    if params is None:
        raise SpecError(op.where("composite"), f"{op.name}: composite function {call.func!r} is not in eager.composite")
    for name in call.args:
        if op.arg(name) is None:
            raise SpecError(op.where("composite"), f"{op.name}: composite argument {name!r} is not an argument of the op")
    if list(params) != list(call.args):
        raise SpecError(op.where("composite"),
                        f"{op.name}: eager.composite.{call.func} takes {params}, the YAML passes {list(call.args)}")


BILINEAR_RULE = "bilinear_double_grad"


def _check_bilinear(op: OpSpec, everything: dict, composites: dict) -> None:
    where = op.where("bilinear")
    fwd = everything.get(op.bilinear)
    if fwd is None or fwd.is_backward:
        raise SpecError(where, f"{op.name}: bilinear names {op.bilinear!r}, which is not a forward op")
    if len(fwd.tensor_args) != 2 or len(fwd.outputs) != 1:
        raise SpecError(where, f"{op.name}: a bilinear op takes two tensors and returns one; "
                               f"{fwd.name} takes {len(fwd.tensor_args)} and returns {len(fwd.outputs)}")
    if fwd.backward != op.forward.name:
        raise SpecError(where, f"{op.name}: it differentiates {op.forward.name!r}, but the gradient of "
                               f"{fwd.name} is {fwd.backward!r}")
    tensors = [a for a in op.args if a.is_tensor]
    attrs = [a.name for a in op.args if not a.is_tensor]
    if len(tensors) != 5 or len(op.outputs) != 3 or attrs != [a.name for a in fwd.attr_args]:
        raise SpecError(op.where("args"), f"{op.name}: a bilinear double grad takes (x, y, grad_out, "
                                          f"grad_x_grad, grad_y_grad, {', '.join(a.name for a in fwd.attr_args) or 'no attributes'}) "
                                          f"and returns three gradients")
    if BILINEAR_RULE not in composites:
        raise SpecError(where, f"{op.name}: eager.composite has no {BILINEAR_RULE}")


def _check_invoke(op: OpSpec, everything: dict) -> None:
    target = everything.get(op.invoke.func)
    if target is None:
        raise SpecError(op.where("invoke"), f"{op.name}: invoke target {op.invoke.func!r} is not an op")
    if len(op.invoke.args) > len(target.args):
        raise SpecError(op.where("invoke"), f"{op.name}: invoke passes {len(op.invoke.args)} arguments, "
                                            f"{target.name} takes {len(target.args)}")


def _check_scalar_operator(op: OpSpec, ops: dict) -> None:
    """``scalar_operator: scale(x, y, 0.0, True)``: a forward op with a kernel, one
    output and one tensor input ``x`` (passed as ``x``); its attributes get
    Python expressions of ``y``, the number, or constants."""
    call = op.scalar_operator
    where = op.where("scalar_operator")
    target = ops.get(call.func)
    if target is None or target.kernel is None or target.composite is not None:
        raise SpecError(where, f"{op.name}: scalar_operator calls {call.func!r}, which is not a forward op "
                               f"with a kernel and no composite")
    if [a.name for a in target.tensor_args] != ["x"] or target.args[0].name != "x" or len(target.outputs) != 1 \
            or target.outputs[0].is_list or target.intermediate or target.returned_if or target.view:
        raise SpecError(where, f"{op.name}: scalar_operator's op {target.name} must take one tensor x first "
                               f"and return one tensor")
    if len(call.args) != len(target.args) or call.args[0] != "x":
        raise SpecError(where, f"{op.name}: scalar_operator passes x and then every attribute of "
                               f"{target.name} ({len(target.args)} arguments), got {len(call.args)}")


def _check_backward_pair(fwd: OpSpec, bwd: OpSpec) -> None:
    sig = bwd.forward
    where = bwd.where("forward")
    if sig.name != fwd.name:
        raise SpecError(where, f"{bwd.name}: forward line names {sig.name!r}, but {fwd.name!r} lists it as backward")
    if len(sig.args) != len(fwd.args) or any(a.type.strip_optional() != b.type.strip_optional()
                                             for a, b in zip(sig.args, fwd.args)):
        raise SpecError(where, f"{bwd.name}: forward line args {[f'{a.type} {a.name}' for a in sig.args]} do not "
                               f"match {fwd.name}'s {[f'{a.type} {a.name}' for a in fwd.args]}")
    if len(sig.outputs) != len(fwd.outputs):
        raise SpecError(where, f"{bwd.name}: forward line has {len(sig.outputs)} output(s), {fwd.name} has {len(fwd.outputs)}")
    inputs = {a.name for a in sig.args if a.is_tensor}
    attrs = {a.name for a in sig.args if not a.is_tensor}
    outputs = {o.name for o in sig.outputs}
    grads = {f"{o}_grad" for o in outputs}
    # The forward line may rename outputs by position: compare with fwd's own names.
    no_grad = {f"{alias.name}_grad": real.name for alias, real in zip(sig.outputs, fwd.outputs)
               if real.name in fwd.no_grad_outputs}
    for arg in bwd.args:
        if arg.name in no_grad:
            raise SpecError(bwd.where("args"),
                            f"{bwd.name}: argument {arg.name!r} is the gradient of {fwd.name}'s output "
                            f"{no_grad[arg.name]!r}, which its no_grad_outputs marks as not differentiable; "
                            f"save the output itself ({no_grad[arg.name]!r}) if the backward needs it")
        if arg.name in grads:
            continue
        if arg.name in inputs or arg.name in outputs:
            if not arg.is_tensor:
                raise SpecError(bwd.where("args"), f"{bwd.name}: {arg.name!r} is a forward tensor but declared {arg.type}")
            continue
        if arg.name in attrs:
            continue
        raise SpecError(bwd.where("args"),
                        f"{bwd.name}: argument {arg.name!r} is none of the forward inputs {sorted(inputs)}, "
                        f"outputs {sorted(outputs)}, their gradients {sorted(grads)} or attributes {sorted(attrs)}")
    wanted = {f"{n}_grad" for n in inputs}
    for out in bwd.outputs:
        if out.name not in wanted:
            raise SpecError(bwd.where("output"),
                            f"{bwd.name}: output {out.name!r} is not the gradient of a forward tensor input; "
                            f"expected names from {sorted(wanted)}")
    for name in bwd.no_need_buffer:
        if name not in inputs:
            raise SpecError(bwd.where("no_need_buffer"), f"{bwd.name}: no_need_buffer {name!r} is not a forward input")
