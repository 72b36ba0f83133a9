"""Paddle 2.6's type promotion between two Tensors of different dtypes.

A binary op whose kernel needs one dtype refuses a float32 and a float64 tensor
(InferMeta raises); the ops that ops.yaml marks with ``type_promotion`` catch
that refusal and come here, so two tensors of one dtype (the hot path) never
pay for it. The rules, as Paddle 2.6's guide "Introduction to Data Type
Promotion" gives them for Tensor-to-Tensor:

- two floating types give the wider one (float16 + float32 -> float32;
  bfloat16 + float16 -> float32);
- a complex type with any real type gives the complex type wide enough for
  both (complex64 + float64 -> complex128, complex64 + int64 -> complex64);
- any other mix (float with int or bool, ints of two widths) has no rule: the
  binary API raises (``eager.add``), while the operator (``a + b``) casts the
  right operand to the left one's dtype, as Paddle's Tensor operators do, with
  a warning here (Paddle only logs it at a high verbosity).

``@`` follows its own Paddle 2.6 rule (:func:`matmul_operands`): real with
complex promotes, any other mix casts the right operand to the left's dtype.
The products that ops.yaml marks with ``complex_promotion`` (matmul, kron, dot,
inner, outer) promote only a floating tensor with a complex one
(:func:`complex_operands`), as Paddle's kernel dispatch does: a complex input
makes the kernel complex and the real input is cast to it; float32 with
float64, or an integer with a complex tensor, stays an error.

Each cast is a recorded ``cast``, so each input's gradient comes back in that
input's own dtype. Scalars (``x + 1.5``) follow their own rules in
eager.tensor_api; inplace ops (``x.add_(y)``) keep refusing a mismatch.
"""
from __future__ import annotations

import functools
import warnings

from phi.common import DataType

from .arguments import has_sparse, sparse_operation

__all__ = ["complex_list_operands", "complex_operands", "matmul_operands", "promoted_dtype", "promote_binary", "operator_operands", "inplace_operator_operand"]

_FLOAT_WIDTH = {DataType.BFLOAT16: 16, DataType.FLOAT16: 16, DataType.FLOAT32: 32, DataType.FLOAT64: 64}
# The real types whose values a complex64 cannot hold exactly enough: they need complex128.
_NEEDS_COMPLEX128 = frozenset({DataType.FLOAT64, DataType.COMPLEX128})


def promoted_dtype(left: DataType, right: DataType) -> DataType | None:
    """The dtype both tensors are cast to under Paddle 2.6's Tensor-to-Tensor
    rules, or None where there is no rule (float with int, int with int).

    Example: ``promoted_dtype(DataType.FLOAT16, DataType.FLOAT32)`` is FLOAT32;
    ``promoted_dtype(DataType.COMPLEX64, DataType.FLOAT64)`` is COMPLEX128.
    """
    if left is right:
        return left
    if left.is_complex or right.is_complex:
        if left in _NEEDS_COMPLEX128 or right in _NEEDS_COMPLEX128:
            return DataType.COMPLEX128
        return DataType.COMPLEX64
    if left in _FLOAT_WIDTH and right in _FLOAT_WIDTH:
        if _FLOAT_WIDTH[left] == _FLOAT_WIDTH[right]:
            return DataType.FLOAT32  # bfloat16 with float16: neither holds the other
        return left if _FLOAT_WIDTH[left] > _FLOAT_WIDTH[right] else right
    return None


def _cast(tensor, dtype: DataType):
    return tensor if tensor.dtype is dtype else tensor.astype(dtype)


def _warn_right_cast(op: str, left: DataType, right: DataType, stacklevel: int) -> None:
    warnings.warn(f"{op}: the left Tensor is {left} and the right Tensor is {right}; the operator casts the "
                  f"right one to {left}, as Paddle's Tensor operators do (cast one yourself to choose the dtype)",
                  UserWarning, stacklevel=stacklevel + 1)


def promote_binary(op: str, fn, x, y, error: Exception, operator: bool):
    """``fn(x, y)`` again with x and y cast to their promoted dtype; called by
    the generated op ``op`` when its kernel refused them (``error``).

    ``error`` is raised again where the refusal was not about the dtypes, and,
    for the binary API (``operator`` False), where the two dtypes have no rule.
    For the operator (``a + b``), a mix without a rule casts y to x's dtype
    with a warning. A sparse operand goes to eager.sparse's op instead."""
    if has_sparse(x, y):  # InferMeta refused a sparse pair (shapes, dtypes): eager.sparse's own checks
        return sparse_operation(op, error, x, y)
    left, right = x.dtype, y.dtype
    if left is right:
        raise error  # shapes, places: not a dtype mismatch
    target = promoted_dtype(left, right)
    if target is None:
        if not operator:
            raise error
        _warn_right_cast(op, left, right, stacklevel=3)
        return fn(x, y.astype(left))
    return fn(_cast(x, target), _cast(y, target))


def operator_operands(x, y, op: str, promotes: bool):
    """The two Tensors of a Tensor operator, in one dtype: for the operators
    that promote (``promotes``: + - * /) the promoted dtype where a rule
    exists; otherwise (and for //, %, **, comparisons, which never promote
    in Paddle 2.6) y cast to x's dtype, with a warning."""
    left, right = x.dtype, y.dtype
    if left is right:
        return x, y
    target = promoted_dtype(left, right) if promotes else None
    if target is None:
        _warn_right_cast(op, left, right, stacklevel=3)
        return x, y.astype(left)
    return _cast(x, target), _cast(y, target)


def inplace_operator_operand(x, y, op: str, promotes: bool):
    """y cast to x's dtype for ``x += y`` (``-= *= /=``) where the operator
    ``x + y`` would give x's dtype by casting y (a mix without a promotion rule;
    for ``/``, any real mix), with the operator's warning; None where the
    operator's result would have another dtype (the inplace op keeps refusing:
    Paddle's ``+=`` would rebind x to it)."""
    left, right = x.dtype, y.dtype
    if left is right:
        return None
    if promotes:
        if promoted_dtype(left, right) is not None:
            return None
    elif left.is_complex or right.is_complex:
        return None
    _warn_right_cast(op, left, right, stacklevel=3)
    return y.astype(left)


def complex_operands(x, y, error: Exception):
    """x and y cast to the complex dtype wide enough for both, for an op whose
    kernel refused them (``error``): Paddle 2.6's kernel dispatch promotes
    a floating tensor with a complex one (float32 with complex64 is complex64,
    float64 with complex64 complex128). ``error`` is raised again for any other
    pair (two real dtypes, an integer with a complex one, equal dtypes)."""
    left, right = x.dtype, y.dtype
    if left is right or not (left.is_complex or right.is_complex) \
            or not ((left.is_complex or left.is_floating_point) and (right.is_complex or right.is_floating_point)):
        raise error
    target = promoted_dtype(left, right)
    return _cast(x, target), _cast(y, target)


def complex_list_operands(tensors, error: Exception) -> list:
    """The operands of a list op (einsum, add_n) in one dtype where a complex one meets
    floating ones, after the op refused them (``error``): Paddle 2.6.2's kernel takes
    the first operand's dtype and casts each real operand to it, so a complex first
    operand keeps its dtype (complex64 with float64 is complex64, as Paddle's); where
    Paddle refuses (a real first operand, two complex widths) the operands get the
    complex type wide enough, as :func:`complex_operands`. ``error`` is raised again
    for any other mix (no complex operand, an integer one, one dtype)."""
    dtypes = [t.dtype for t in tensors]
    first = dtypes[0] if dtypes else None
    if all(d is first for d in dtypes) or not any(d.is_complex for d in dtypes) \
            or not all(d.is_complex or d.is_floating_point for d in dtypes):
        raise error
    if first.is_complex and all(d is first or not d.is_complex for d in dtypes):
        target = first
    else:
        target = functools.reduce(promoted_dtype, dtypes)
    return [_cast(t, target) for t in tensors]


def matmul_operands(x, y, error: Exception):
    """The two Tensors of ``x @ y`` in one dtype, after matmul refused them
    (``error``), as Paddle 2.6's ``Tensor.__matmul__``: a complex operand makes
    both the complex type wide enough (as + - * / do); any other mismatch
    (float32 @ float64, int @ float) casts y to x's dtype, with a warning (never
    the wider one: ``@`` does not promote real types). ``error`` is raised again
    where the dtypes agree (a shape mismatch is not a dtype one)."""
    left, right = x.dtype, y.dtype
    if left is right:
        raise error
    if left.is_complex or right.is_complex:
        target = promoted_dtype(left, right)
        return _cast(x, target), _cast(y, target)
    _warn_right_cast("matmul", left, right, stacklevel=3)
    return x, y.astype(left)

