"""Paddle's ``paddle.utils.deprecated``: marks a function deprecated."""
from __future__ import annotations

import functools
import warnings

__all__ = ["deprecated"]


def deprecated(update_to: str = "", since: str = "", reason: str = "", level: int = 0):
    """A decorator marking a function deprecated, as Paddle's: the message (which
    names ``since``, ``update_to`` and ``reason`` when given) goes at the head of
    its docstring; ``level`` 0 does only that, 1 also warns (DeprecationWarning)
    on every call, 2 makes every call raise RuntimeError.

    >>> @eager.utils.deprecated(update_to="new_api", since="2.0", level=1)
    ... def old_api():
    ...     return 1
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = old_api()
    >>> value, caught[0].category.__name__
    (1, 'DeprecationWarning')
    """
    for arg, value in (("update_to", update_to), ("since", since), ("reason", reason)):
        if not isinstance(value, str):
            raise TypeError(f"deprecated: argument '{arg}' expected a str, got {type(value).__name__}")
    if level not in (0, 1, 2) or isinstance(level, bool):
        raise ValueError(f"deprecated: argument 'level' expected 0, 1 or 2, got {level!r}")

    def decorator(func):
        name = f"{func.__module__}.{func.__name__}"
        message = f'API "{name}" is deprecated'
        message += f" since {since}" if since else ""
        message += ", and will be removed in future versions."
        if update_to:
            message += f' Please use "{update_to}" instead.'
        if reason:
            message += f"\n    Reason: {reason}"
        func.__doc__ = f"\n\nWarning: {message}\n" + (func.__doc__ or "")
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{name}" has been deprecated.' + (f' Use "{update_to}".'
                                                                           if update_to else ""))
            warnings.warn(message, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator
