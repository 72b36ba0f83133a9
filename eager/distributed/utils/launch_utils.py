"""Paddle's ``paddle.distributed.utils.launch_utils``: what launcher scripts share."""
from __future__ import annotations

import argparse

__all__ = ["add_arguments"]

_TRUE = ("y", "yes", "t", "true", "on", "1")
_FALSE = ("n", "no", "f", "false", "off", "0")


def _str_to_bool(text: str) -> bool:
    """'yes'/'true'/'on'/'1' (any case) as True, 'no'/'false'/'off'/'0' as False."""
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean ({'/'.join(_TRUE)} or {'/'.join(_FALSE)}), got {text!r}")


def add_arguments(argname, type, default, help, argparser, **kwargs):  # noqa: A002 (Paddle's names)
    """Adds the option ``--argname`` to ``argparser`` with ``default`` and
    ``help`` (the default is appended to it). A ``bool`` option takes a word
    ('true', 'false', 'yes', '0', ...) rather than being a flag; ``kwargs``
    go to ``argparse.ArgumentParser.add_argument``.

    >>> parser = argparse.ArgumentParser()
    >>> add_arguments("use_gpu", bool, False, "Run on a GPU.", parser)
    >>> add_arguments("name", str, "ann", "User name.", parser)
    >>> args = parser.parse_args(["--use_gpu", "yes"])
    >>> args.use_gpu, args.name
    (True, 'ann')
    """
    if not isinstance(argname, str) or not argname:
        raise TypeError(f"add_arguments: argument 'argname' expected a non-empty str, got {argname!r}")
    if not isinstance(argparser, argparse.ArgumentParser):
        raise TypeError(f"add_arguments: argument 'argparser' expected an argparse.ArgumentParser, got "
                        f"{argparser.__class__.__name__}")
    if not callable(type):
        raise TypeError(f"add_arguments: argument 'type' expected a type or a converter, got {type!r}")
    converter = _str_to_bool if type is bool else type
    argparser.add_argument("--" + argname, default=default, type=converter,
                           help=f"{help} Default: %(default)s.", **kwargs)
