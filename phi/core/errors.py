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


class NotFoundError(PhiError, LookupError):
    """No kernel, op or InferMeta function by that name or key."""


class PreconditionNotMetError(PhiError, RuntimeError):
    """The call is valid but the state it needs is not there."""


class UnimplementedError(PhiError, NotImplementedError):
    """The operation is not implemented for these arguments."""


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
