"""Paddle's ``paddle.create_parameter``: a Parameter made outside any Layer."""
from __future__ import annotations

import functools
import numbers

from phi.common import DataType, convert_dtype

from .nn import initializer as _init
from .nn.layer import Parameter, ParamAttr
from .utils import unique_name


def create_parameter(shape, dtype, name=None, attr=None, is_bias: bool = False,
                     default_initializer=None) -> Parameter | None:
    """A new trainable Parameter of ``shape`` and ``dtype`` (floating, complex, integer
    or bool, as Paddle allows), as a Layer's ``create_parameter`` makes it:
    initialized by ``attr.initializer``, else the global one
    (set_global_initializer), else ``default_initializer``, else Constant(0) for
    a bias or an integer or bool parameter, and XavierUniform for a weight (a complex
    parameter needs an initializer, as in Paddle 2.6, which has no default for it). An
    integer parameter reports ``stop_gradient=False`` but never gets a gradient
    (see Tensor.stop_gradient). ``name`` is used when ``attr`` is None; without either the
    parameter is named as in Paddle, ``create_parameter_<n>.w_0`` (``.b_0`` for
    a bias). ``attr=False`` gives None (no parameter), as in Paddle. Under ``LazyGuard`` the
    parameter holds no values until ``initialize()`` (see :class:`eager.LazyGuard`).

    >>> import eager
    >>> w = eager.create_parameter([2, 3], "float32")
    >>> w.shape, w.stop_gradient
    ([2, 3], False)
    """
    if isinstance(shape, numbers.Integral) or not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise TypeError(f"create_parameter: argument 'shape' expected a list of non-negative ints, got {shape!r}")
    try:
        resolved = convert_dtype(dtype)
    except (TypeError, ValueError) as error:
        raise TypeError(f"create_parameter: argument 'dtype' expected a floating, complex, integer or bool "
                        f"dtype, got {dtype!r}") from error
    if not (resolved.is_floating_point or resolved.is_complex or resolved.is_integer or resolved is DataType.BOOL):
        raise TypeError(f"create_parameter: argument 'dtype' expected a floating, complex, integer or bool "
                        f"dtype, got {resolved}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"create_parameter: argument 'name' expected a str or None, got {name!r}")
    if default_initializer is not None and not isinstance(default_initializer, _init.Initializer):
        raise TypeError(f"create_parameter: argument 'default_initializer' expected an initializer, got "
                        f"{type(default_initializer).__name__}")
    attr = ParamAttr(name=name) if attr is None else ParamAttr.from_argument(attr, "create_parameter", "attr")
    if attr is False:  # no parameter, as Layer.create_parameter (and Paddle 2.6.2's create_parameter)
        return None
    init = attr.initializer or _init.global_initializer(is_bias) or default_initializer
    if init is None:
        if resolved.is_complex:
            raise TypeError(f"create_parameter: a {resolved} parameter has no default initializer; pass "
                            f"default_initializer (or attr's initializer), e.g. paddle.nn.initializer.Constant")
        init = _init.default_initializer(resolved, is_bias)
    dims = [int(d) for d in shape]
    draw = functools.partial(init, dims, resolved)
    value = None if _init.lazy_init_active() else draw()  # under LazyGuard: shape and dtype only, as Layer's
    param_name = attr.name or unique_name.generate(
        f"{unique_name.generate('create_parameter')}.{'b' if is_bias else 'w'}")
    return Parameter._from_attr(attr, param_name, dims, resolved, value, draw)
