"""Errors raised by phi, each a subclass of the Python exception a user would expect.

InferMeta raises these without knowing which op called it; the generated API
adds the op name and a line listing every input's dtype and shape (as Chainer
does), via :meth:`PhiError.in_op`, so the message a user reads names the op,
the argument, what was expected and what came.
"""
from __future__ import annotations


class PhiError(Exception):
    """Base class of phi errors."""

    def in_op(self, op: str, **inputs) -> "PhiError":
        """A copy of this error whose message starts with the op and lists its inputs."""
        lines = [f"{op}: {self.args[0] if self.args else ''}"]
        described = [f"{name}={describe_tensor(value)}" for name, value in inputs.items()]
        if described:
            lines.append("  inputs: " + ", ".join(described))
        return type(self)("\n".join(lines))


class InvalidArgumentError(PhiError, ValueError):
    """An argument has the wrong shape, dtype or value."""


class InvalidTypeError(PhiError, TypeError):
    """An argument has the wrong Python type."""


class ArgumentKindError(InvalidTypeError, ValueError):
    """An argument of the wrong kind where Paddle raises ValueError: a float or a
    string given for an int, bool or int-list attribute (Paddle's dygraph argument
    parser says "(InvalidArgument) randint(): argument (position 3) must be list of
    int, but got float"), ``paddle.save``'s ``protocol=2.0``. A TypeError by eager's
    rule for wrong kinds, and a ValueError so a ported ``except ValueError`` still
    catches it."""


class TensorArgumentError(ArgumentKindError):
    """Something other than a Tensor (a NumPy array, a list, a number, None) where an
    op takes a Tensor. Paddle's dygraph argument parser raises ValueError for it
    ("add(): argument 'x' (position 0) must be Tensor, but got numpy.ndarray"), its
    static-mode checks TypeError: this is both, as ArgumentKindError."""


class NegativeCountError(InvalidArgumentError, TypeError):
    """A negative count where Paddle's own check calls it the wrong kind of argument
    (eye's "num_rows should be a non-negative int" is a TypeError): both, so code
    written against either Paddle's type or eager's ValueError catches it."""


class OutOfRangeError(PhiError, IndexError):
    """An index is outside the tensor (an IndexError, so iteration stops on it)."""


class AxisError(InvalidArgumentError, IndexError):
    """An axis outside the tensor's dimensions. Paddle raises ValueError for most
    axis checks (sum, flip, squeeze) and IndexError for its OutOfRange ones (diagonal,
    trace, cumsum, diag_embed): this is both, as numpy.exceptions.AxisError is."""


class ClassIndexOutOfRangeError(InvalidArgumentError, OutOfRangeError):
    """A class label outside [0, classes): both a ValueError, as the other bad
    label values, and an IndexError, as Paddle's cross_entropy kernel raises it
    (NumPy's AxisError is both in the same way)."""


class ElementIndexError(InvalidArgumentError, OutOfRangeError):
    """An element index outside the tensor where Paddle's own check raises
    ValueError (``Tensor.item(i)``'s InvalidArgument, an index array of ``x[index]``
    past its axis): both, so code written against Paddle's type or Python's
    IndexError catches it."""


class ProbabilityOutOfRangeError(InvalidArgumentError, OutOfRangeError):
    """A probability outside [0, 1] (bernoulli's x): a ValueError as eager's other
    value checks, and the IndexError Paddle's bernoulli kernel raises for its
    OutOfRange check ("The probability should be <= 1, but got 2")."""


class AssertedArgumentError(InvalidArgumentError, AssertionError):
    """A bad argument that Paddle's Python code rejects with ``assert``: a malformed
    einsum equation (a stray '.', a second '->', terms that do not match the
    operands), tensordot axes of a negative count or of different sizes. A
    ValueError as eager's other argument checks, and the AssertionError Paddle
    raises (its test_einsum_v2 and test_tensordot expect that type)."""


class ResourceExhaustedError(PhiError, MemoryError):
    """The device has not enough memory for a result."""


class NotFoundError(PhiError, LookupError):
    """No kernel, op or InferMeta function by that name or key."""


class UnsupportedDtypeError(NotFoundError, TypeError, RuntimeError):
    """No kernel of the op takes the input's dtype: a wrong kind of tensor, so a
    TypeError as Paddle's dtype checks raise, a NotFoundError as every other
    kernel-registry miss, and a RuntimeError as Paddle's dynamic mode raises its
    "(NotFound) kernel ... is not registered"."""


class InvalidDtypeError(InvalidArgumentError, TypeError):
    """A tensor of a dtype the op refuses where Paddle's own check raises TypeError
    (bincount of floats: its test_bincount_op expects TypeError): a ValueError as
    eager's other argument checks, and that TypeError."""


class AssertedDtypeError(AssertedArgumentError, InvalidDtypeError):
    """A tensor of a dtype the op refuses where Paddle's Python code ``assert``s it
    (istft's complex window without return_complex): the TypeError of a wrong kind
    of tensor, and the AssertionError Paddle raises (its test_signal expects it)."""


class UnsupportedDtypeArgumentError(InvalidDtypeError, RuntimeError):
    """A ``dtype`` argument that no kernel of the op produces (randint's float32,
    arange's int8, uniform's int32): a ValueError as eager's other argument checks,
    the TypeError Paddle's static-graph dtype check raises (its test_randint_op,
    test_arange and test_linspace expect it), and the RuntimeError of Paddle's
    dynamic mode, whose kernel lookup fails ("(NotFound) The kernel ... is not
    registered")."""


class UnsupportedInputDtypeError(InvalidArgumentError, RuntimeError):
    """An InferMeta's dtype check that stands in for a kernel lookup (an integer x
    given to digamma): a ValueError as eager's other argument checks, and the
    RuntimeError Paddle's dynamic mode raises when no kernel takes the dtype (its
    test_digamma_op expects RuntimeError for a bool x)."""


class PreconditionNotMetError(PhiError, RuntimeError):
    """The call is valid but the state it needs is not there."""


class NoDataError(PreconditionNotMetError, TypeError):
    """An op given a tensor that holds no data (shape and dtype only: a placeholder of
    create_tensor, a parameter made under LazyGuard before ``initialize()``): the
    RuntimeError Paddle raises there (its test_lazy_init expects it), and a TypeError
    as eager raised it before."""


class UnimplementedError(PhiError, NotImplementedError):
    """The operation is not implemented for these arguments."""


class ZeroDivisorError(InvalidArgumentError, ZeroDivisionError):
    """A zero argument the op would divide by: a ValueError, as the other bad
    argument values, and a ZeroDivisionError, as Paddle's celu raises it."""


def describe_value(value) -> str:
    """What came, for an error message: ``Tensor of float32[2, 3]`` for anything
    with a dtype and a shape, else the type and a short repr (``list [1, 2]``)."""
    shape = getattr(value, "dims", None)
    if shape is None:
        shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{type(value).__name__} of {dtype}{list(shape)}"
    if shape is not None:
        return f"{type(value).__name__} of shape {list(shape)}"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) < 60 else text[:57] + '...'}"


def describe_tensor(value) -> str:
    """``float32[64, 10]`` for anything with dtype and dims/shape; repr for the rest."""
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(describe_tensor(v) for v in value) + "]"
    dims = getattr(value, "dims", None)
    if dims is None:
        dims = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if dims is None or dtype is None:
        return repr(value)
    return f"{dtype}{list(dims)}"
