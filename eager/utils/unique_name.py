"""Unique names for layers and parameters (Paddle's ``paddle.utils.unique_name``).

Names are ``<key>_<n>`` with one counter per key: ``linear_0``, ``linear_1``, ...
A :func:`guard` block counts afresh (and can prefix every name), so two models
built in two guards get the same names, which is what loading a checkpoint by
parameter name needs.

>>> from eager.utils import unique_name
>>> with unique_name.guard():
...     unique_name.generate("fc"), unique_name.generate("fc")
('fc_0', 'fc_1')
>>> with unique_name.guard("net/"):
...     unique_name.generate("fc")
'net/fc_0'
"""
from __future__ import annotations

import collections
import contextlib
import threading

__all__ = ["UniqueNameGenerator", "generate", "switch", "guard"]


class UniqueNameGenerator:
    """Counts names per key; ``prefix`` goes in front of every name it makes."""

    def __init__(self, prefix: str | None = None):
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError(f"UniqueNameGenerator: argument 'prefix' expected a str or None, "
                            f"got {type(prefix).__name__}")
        self.prefix = prefix or ""
        self.ids = collections.Counter()
        self._lock = threading.Lock()

    def __call__(self, key: str) -> str:
        with self._lock:
            index = self.ids[key]
            self.ids[key] += 1
        return f"{self.prefix}{key}_{index}"


class DygraphParameterNameChecker:
    """The set of parameter names taken (Paddle's): ``checker(name)`` is True when
    ``name`` was seen before, else records it and returns False. :func:`switch`
    swaps it together with the generator."""

    def __init__(self):
        self._name_set = set()

    def __call__(self, name: str) -> bool:
        if name in self._name_set:
            return True
        self._name_set.add(name)
        return False


_current = [UniqueNameGenerator()]
_checker = [DygraphParameterNameChecker()]


def _check_key(function: str, key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"unique_name.{function}: argument 'key' expected a str, got "
                        f"{type(key).__name__} {key!r}")
    return key


def generate(key: str) -> str:
    """The next unique name for ``key``: ``key_0``, then ``key_1``, ...

    >>> generate("my_layer")  # doctest: +SKIP
    'my_layer_0'
    """
    return _current[0](_check_key("generate", key))


def switch(new_generator: UniqueNameGenerator | None = None,
           new_para_name_checker: DygraphParameterNameChecker | None = None) -> tuple:
    """Makes ``new_generator`` (a fresh one when None) the generator :func:`generate`
    uses and ``new_para_name_checker`` (a fresh one when None) the parameter-name
    checker; returns, as Paddle's, the pair they replace, so ``switch(*old)`` switches back.

    >>> old = switch()
    >>> generate("fc")
    'fc_0'
    >>> _ = switch(*old)
    """
    if new_generator is None:
        new_generator = UniqueNameGenerator()
    elif not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(f"unique_name.switch: argument 'new_generator' expected a "
                        f"UniqueNameGenerator or None, got {type(new_generator).__name__}")
    if new_para_name_checker is None:
        new_para_name_checker = DygraphParameterNameChecker()
    elif not isinstance(new_para_name_checker, DygraphParameterNameChecker):
        raise TypeError(f"unique_name.switch: argument 'new_para_name_checker' expected a "
                        f"DygraphParameterNameChecker or None, got {type(new_para_name_checker).__name__}")
    old = (_current[0], _checker[0])
    _current[0], _checker[0] = new_generator, new_para_name_checker
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Inside the block names count from 0 again; ``new_generator`` may be a str
    (a prefix for every name), a UniqueNameGenerator, or None. The previous
    generator, and its counts, come back afterwards."""
    if isinstance(new_generator, (str, bytes)):
        prefix = new_generator.decode() if isinstance(new_generator, bytes) else new_generator
        new_generator = UniqueNameGenerator(prefix)
    elif new_generator is not None and not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(f"unique_name.guard: argument 'new_generator' expected a str, a "
                        f"UniqueNameGenerator or None, got {type(new_generator).__name__}")
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(*old)
