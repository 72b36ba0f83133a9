"""InferMeta of the fused optimizer ops (Paddle's SgdInferMeta, MomentumInferMeta,
AdamInferMeta, AdamwInferMeta, and those of adamax_, adagrad_, adadelta_, rmsprop_, lamb_).

Every output is its input updated in place (``param -> param_out``,
``moment1 -> moment1_out``, ...), so each output takes its input's meta; the
work here is the checks, all made before a kernel writes anything:

- ``param`` is floating point; ``grad`` has its dims and dtype, or is float32 for a
  float16/bfloat16 param (amp's master gradient: the kernels compute in float32).
- The states (velocity, moments, the master weight) have param's dims and the
  *state dtype*: float32 for a float16 param (Paddle keeps optimizer state of
  half-precision parameters in float32), param's dtype otherwise.
- ``learning_rate`` and the beta powers hold one element of the state dtype.
- ``multi_precision`` with a float16 param needs ``master_param``.
"""
from __future__ import annotations

import math

from ..common.data_type import HALF_TYPES, DataType
from ..core.errors import InvalidArgumentError, InvalidTypeError

_FLOATS = (DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64)


def optimizer_state_dtype(param_dtype: DataType) -> DataType:
    """The dtype of a parameter's optimizer state (and of the learning rate the
    kernels read): float32 for a float16 or bfloat16 parameter, else the parameter's dtype."""
    return DataType.FLOAT32 if param_dtype in HALF_TYPES else param_dtype


def grad_dtype_fits(param_dtype: DataType, grad_dtype: DataType) -> bool:
    """Whether a gradient of ``grad_dtype`` may update a parameter of ``param_dtype``:
    the parameter's own dtype, or its optimizer state's (float32 for a float16 or
    bfloat16 parameter: amp's master gradient)."""
    return grad_dtype is param_dtype or grad_dtype is optimizer_state_dtype(param_dtype)


def _describe(t) -> str:
    return f"{t.dtype}{list(t.dims)}"


def _same_dims(a, b) -> bool:
    da, db = a.dims, b.dims
    return da == db or tuple(da) == tuple(db)  # the second for list dims of a MetaTensor


def _check_param(param, grad) -> DataType:
    dtype = param.dtype
    if dtype not in _FLOATS:
        raise InvalidTypeError(
            f"argument 'param' expected a float16, bfloat16, float32 or float64 tensor, got {_describe(param)}")
    # the common case (grad of param's dtype) decided without a call: this runs every step
    if grad.dtype is not dtype and not grad_dtype_fits(dtype, grad.dtype) or not _same_dims(grad, param):
        raise InvalidArgumentError(
            f"argument 'grad' expected {_describe(param)} like 'param', got {_describe(grad)}")
    return DataType.FLOAT32 if dtype in HALF_TYPES else dtype


def _check_state(arg: str, state, param, dtype: DataType) -> None:
    if state.dtype is not dtype or not _same_dims(state, param):
        raise InvalidArgumentError(
            f"argument '{arg}' expected {dtype}{list(param.dims)} (param's shape, the state "
            f"dtype), got {_describe(state)}")


def _check_scalar(arg: str, tensor, dtype: DataType) -> None:
    if tensor.dtype is not dtype or tuple(tensor.dims) not in ((), (1,)):
        raise InvalidArgumentError(
            f"argument '{arg}' expected one {dtype} element (shape [] or [1]), got "
            f"{_describe(tensor)}")


def _check_master(param, master_param, multi_precision, dtype: DataType) -> None:
    if master_param is None and multi_precision is False:
        return
    if not isinstance(multi_precision, bool):
        raise InvalidTypeError(f"argument 'multi_precision' expected a bool, got {multi_precision!r}")
    if master_param is None:
        if multi_precision and param.dtype in HALF_TYPES:
            raise InvalidArgumentError(
                f"argument 'master_param' is required with multi_precision=True for a "
                f"{param.dtype} param (the float32 copy the update computes on), got None")
        return
    _check_state("master_param", master_param, param, dtype)


def _check_unit_interval(arg: str, value) -> None:
    if type(value) is not float and (isinstance(value, bool) or not isinstance(value, int)) \
            or not 0 <= value < 1:
        raise InvalidArgumentError(f"argument '{arg}' expected a float in [0, 1), got {value!r}")


def _check_non_negative(arg: str, value) -> None:
    if type(value) is not float and (isinstance(value, bool) or not isinstance(value, int)) \
            or not (value >= 0 and math.isfinite(value)):
        raise InvalidArgumentError(f"argument '{arg}' expected a finite float >= 0, got {value!r}")


def _share(outs, ins) -> None:
    for out, tensor in zip(outs, ins):
        if tensor is not None:
            out.dims, out.dtype, out.layout = tensor.dims, tensor.dtype, tensor.layout


def sgd_infer_meta(param, learning_rate, grad, master_param, multi_precision,
                   param_out, master_param_out) -> None:
    """param_out and master_param_out are param and master_param, updated."""
    dtype = _check_param(param, grad)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    param_out.dims, param_out.dtype, param_out.layout = param.dims, param.dtype, param.layout
    if master_param is not None:
        master_param_out.share_meta(master_param)


def momentum_infer_meta(param, grad, velocity, learning_rate, master_param, mu, use_nesterov,
                        regularization_method, regularization_coeff, multi_precision, rescale_grad,
                        param_out, velocity_out, master_param_out) -> None:
    """The outputs are param, velocity and master_param, updated."""
    dtype = _check_param(param, grad)
    _check_state("velocity", velocity, param, dtype)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_non_negative("mu", mu)
    if not isinstance(use_nesterov, bool):
        raise InvalidTypeError(f"argument 'use_nesterov' expected a bool, got {use_nesterov!r}")
    if regularization_method not in ("", "l2_decay"):
        raise InvalidArgumentError(
            f"argument 'regularization_method' expected '' or 'l2_decay', got {regularization_method!r}")
    _check_non_negative("regularization_coeff", regularization_coeff)
    _check_non_negative("rescale_grad", rescale_grad)
    _share((param_out, velocity_out, master_param_out), (param, velocity, master_param))


def lars_momentum_infer_meta(param, grad, velocity, learning_rate, master_param, mu, lars_coeff,
                             lars_weight_decay, epsilon, multi_precision, rescale_grad,
                             param_out, velocity_out, master_param_out) -> None:
    """The outputs are param, velocity and master_param, updated; mu, lars_coeff,
    lars_weight_decay, epsilon and rescale_grad are numbers >= 0."""
    dtype = _check_param(param, grad)
    _check_state("velocity", velocity, param, dtype)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    for arg, value in (("mu", mu), ("lars_coeff", lars_coeff), ("lars_weight_decay", lars_weight_decay),
                       ("epsilon", epsilon), ("rescale_grad", rescale_grad)):
        _check_non_negative(arg, value)
    _share((param_out, velocity_out, master_param_out), (param, velocity, master_param))


def adam_infer_meta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
                    beta1, beta2, epsilon, multi_precision,
                    param_out, moment1_out, moment2_out, beta1_pow_out, beta2_pow_out,
                    master_param_out) -> None:
    """The outputs are param, the moments, the beta powers and master_param, updated."""
    dtype = _check_param(param, grad)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_state("moment1", moment1, param, dtype)
    _check_state("moment2", moment2, param, dtype)
    _check_scalar("beta1_pow", beta1_pow, dtype)
    _check_scalar("beta2_pow", beta2_pow, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_unit_interval("beta1", beta1)
    _check_unit_interval("beta2", beta2)
    _check_non_negative("epsilon", epsilon)
    _share((param_out, moment1_out, moment2_out, beta1_pow_out, beta2_pow_out, master_param_out),
           (param, moment1, moment2, beta1_pow, beta2_pow, master_param))


def adamw_infer_meta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
                     beta1, beta2, epsilon, lr_ratio, coeff, with_decay, multi_precision,
                     param_out, moment1_out, moment2_out, beta1_pow_out, beta2_pow_out,
                     master_param_out) -> None:
    """adam_infer_meta, and AdamW's lr_ratio > 0, coeff >= 0 and with_decay a bool."""
    adam_infer_meta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
                    beta1, beta2, epsilon, multi_precision, param_out, moment1_out, moment2_out,
                    beta1_pow_out, beta2_pow_out, master_param_out)
    if isinstance(lr_ratio, bool) or not isinstance(lr_ratio, (int, float)) or not (
            lr_ratio > 0 and math.isfinite(lr_ratio)):
        raise InvalidArgumentError(f"argument 'lr_ratio' expected a positive finite float, got {lr_ratio!r}")
    _check_non_negative("coeff", coeff)
    if not isinstance(with_decay, bool):
        raise InvalidTypeError(f"argument 'with_decay' expected a bool, got {with_decay!r}")


def _check_in_open_unit(arg: str, value) -> None:
    if type(value) is not float and (isinstance(value, bool) or not isinstance(value, int)) \
            or not 0 < value < 1:
        raise InvalidArgumentError(f"argument '{arg}' expected a float in (0, 1), got {value!r}")


def adamax_infer_meta(param, grad, learning_rate, moment, inf_norm, beta1_pow, master_param,
                      beta1, beta2, epsilon, multi_precision,
                      param_out, moment_out, inf_norm_out, beta1_pow_out, master_param_out) -> None:
    """The outputs are param, moment, inf_norm, beta1_pow and master_param, updated."""
    dtype = _check_param(param, grad)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_state("moment", moment, param, dtype)
    _check_state("inf_norm", inf_norm, param, dtype)
    _check_scalar("beta1_pow", beta1_pow, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_unit_interval("beta1", beta1)
    _check_unit_interval("beta2", beta2)
    _check_non_negative("epsilon", epsilon)
    _share((param_out, moment_out, inf_norm_out, beta1_pow_out, master_param_out),
           (param, moment, inf_norm, beta1_pow, master_param))


def adagrad_infer_meta(param, grad, moment, learning_rate, master_param, epsilon, multi_precision,
                       param_out, moment_out, master_param_out) -> None:
    """The outputs are param, moment and master_param, updated."""
    dtype = _check_param(param, grad)
    _check_state("moment", moment, param, dtype)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_non_negative("epsilon", epsilon)
    _share((param_out, moment_out, master_param_out), (param, moment, master_param))


def adadelta_infer_meta(param, grad, avg_squared_grad, avg_squared_update, learning_rate,
                        master_param, rho, epsilon, multi_precision, param_out,
                        avg_squared_grad_out, avg_squared_update_out, master_param_out) -> None:
    """The outputs are param, both averages and master_param, updated; rho in (0, 1)."""
    dtype = _check_param(param, grad)
    _check_state("avg_squared_grad", avg_squared_grad, param, dtype)
    _check_state("avg_squared_update", avg_squared_update, param, dtype)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_in_open_unit("rho", rho)
    _check_non_negative("epsilon", epsilon)
    _share((param_out, avg_squared_grad_out, avg_squared_update_out, master_param_out),
           (param, avg_squared_grad, avg_squared_update, master_param))


def rmsprop_infer_meta(param, mean_square, grad, moment, learning_rate, mean_grad, master_param,
                       epsilon, decay, momentum, centered, multi_precision, param_out, moment_out,
                       mean_square_out, mean_grad_out, master_param_out) -> None:
    """The outputs are param, moment, mean_square, mean_grad and master_param, updated;
    mean_grad is required when centered."""
    dtype = _check_param(param, grad)
    _check_state("mean_square", mean_square, param, dtype)
    _check_state("moment", moment, param, dtype)
    _check_scalar("learning_rate", learning_rate, dtype)
    if not isinstance(centered, bool):
        raise InvalidTypeError(f"argument 'centered' expected a bool, got {centered!r}")
    if mean_grad is None:
        if centered:
            raise InvalidArgumentError("argument 'mean_grad' is required with centered=True, got None")
    else:
        _check_state("mean_grad", mean_grad, param, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_non_negative("epsilon", epsilon)
    _check_in_open_unit("decay", decay)
    _check_non_negative("momentum", momentum)
    _share((param_out, moment_out, mean_square_out, mean_grad_out, master_param_out),
           (param, moment, mean_square, mean_grad, master_param))


def lamb_infer_meta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
                    weight_decay, beta1, beta2, epsilon, always_adapt, multi_precision, param_out,
                    moment1_out, moment2_out, beta1_pow_out, beta2_pow_out, master_param_out) -> None:
    """adam_infer_meta's checks, weight_decay >= 0 and always_adapt a bool."""
    adam_infer_meta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
                    beta1, beta2, epsilon, multi_precision, param_out, moment1_out, moment2_out,
                    beta1_pow_out, beta2_pow_out, master_param_out)
    _check_non_negative("weight_decay", weight_decay)
    if not isinstance(always_adapt, bool):
        raise InvalidTypeError(f"argument 'always_adapt' expected a bool, got {always_adapt!r}")


def nadam_infer_meta(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1,
                     moment2, master_param, beta1, beta2, epsilon, momentum_decay, multi_precision,
                     param_out, momentum_decay_pow_out, beta2_pow_out, mu_product_out, moment1_out,
                     moment2_out, master_param_out) -> None:
    """The outputs are param, the three one-element accumulators, both moments and
    master_param, updated; beta1, beta2 in [0, 1), epsilon and momentum_decay >= 0."""
    dtype = _check_param(param, grad)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_scalar("momentum_decay_pow", momentum_decay_pow, dtype)
    _check_scalar("beta2_pow", beta2_pow, dtype)
    _check_scalar("mu_product", mu_product, dtype)
    _check_state("moment1", moment1, param, dtype)
    _check_state("moment2", moment2, param, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_unit_interval("beta1", beta1)
    _check_unit_interval("beta2", beta2)
    _check_non_negative("epsilon", epsilon)
    _check_non_negative("momentum_decay", momentum_decay)
    _share((param_out, momentum_decay_pow_out, beta2_pow_out, mu_product_out, moment1_out, moment2_out,
            master_param_out),
           (param, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2, master_param))


def radam_infer_meta(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2, master_param,
                     beta1, beta2, epsilon, multi_precision, param_out, beta1_pow_out, beta2_pow_out,
                     rho_out, moment1_out, moment2_out, master_param_out) -> None:
    """The outputs are param, the three one-element accumulators, both moments and
    master_param, updated; beta1, beta2 in [0, 1), epsilon >= 0."""
    dtype = _check_param(param, grad)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_scalar("beta1_pow", beta1_pow, dtype)
    _check_scalar("beta2_pow", beta2_pow, dtype)
    _check_scalar("rho", rho, dtype)
    _check_state("moment1", moment1, param, dtype)
    _check_state("moment2", moment2, param, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    _check_unit_interval("beta1", beta1)
    _check_unit_interval("beta2", beta2)
    _check_non_negative("epsilon", epsilon)
    _share((param_out, beta1_pow_out, beta2_pow_out, rho_out, moment1_out, moment2_out, master_param_out),
           (param, beta1_pow, beta2_pow, rho, moment1, moment2, master_param))


def asgd_infer_meta(param, grad, learning_rate, d, ys, m, master_param, batch_num, multi_precision,
                    param_out, d_out, ys_out, m_out, master_param_out) -> None:
    """The outputs are param, d, ys (the ``batch_num`` stored gradients, shape
    [batch_num] + param's), m (the int64 step count, one element) and
    master_param, updated; batch_num a positive int."""
    dtype = _check_param(param, grad)
    _check_scalar("learning_rate", learning_rate, dtype)
    _check_state("d", d, param, dtype)
    if isinstance(batch_num, bool) or not isinstance(batch_num, int) or batch_num < 1:
        raise InvalidArgumentError(f"argument 'batch_num' expected a positive int, got {batch_num!r}")
    expected = (batch_num, *tuple(param.dims))
    if ys.dtype is not dtype or tuple(ys.dims) != expected:
        raise InvalidArgumentError(
            f"argument 'ys' expected {dtype}{list(expected)} ([batch_num] + param's shape, the state "
            f"dtype), got {_describe(ys)}")
    if m.dtype is not DataType.INT64 or tuple(m.dims) not in ((), (1,)):
        raise InvalidArgumentError(f"argument 'm' expected one int64 element (shape [] or [1]), got "
                                   f"{_describe(m)}")
    _check_master(param, master_param, multi_precision, dtype)
    _share((param_out, d_out, ys_out, m_out, master_param_out), (param, d, ys, m, master_param))


def rprop_infer_meta(param, grad, prev, learning_rate, master_param, learning_rate_range, etas,
                     multi_precision, param_out, prev_out, learning_rate_out, master_param_out) -> None:
    """The outputs are param, prev and learning_rate (per element: param's shape, the
    state dtype) and master_param, updated; learning_rate_range a pair
    0 < min <= max, etas a pair 0 < eta_minus < 1 < eta_plus."""
    dtype = _check_param(param, grad)
    _check_state("prev", prev, param, dtype)
    _check_state("learning_rate", learning_rate, param, dtype)
    _check_master(param, master_param, multi_precision, dtype)
    if not _pair_of_floats(learning_rate_range) or not 0 < learning_rate_range[0] <= learning_rate_range[1] \
            or not math.isfinite(learning_rate_range[1]):
        raise InvalidArgumentError(f"argument 'learning_rate_range' expected a pair (min, max) of finite "
                                   f"floats with 0 < min <= max, got {learning_rate_range!r}")
    if not _pair_of_floats(etas) or not 0 < etas[0] < 1 < etas[1] or not math.isfinite(etas[1]):
        raise InvalidArgumentError(f"argument 'etas' expected a pair (eta_minus, eta_plus) of finite "
                                   f"floats with 0 < eta_minus < 1 < eta_plus, got {etas!r}")
    _share((param_out, prev_out, learning_rate_out, master_param_out), (param, prev, learning_rate, master_param))


def _pair_of_floats(value) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(
        type(v) is float or (isinstance(v, int) and not isinstance(v, bool)) for v in value)
