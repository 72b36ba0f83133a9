"""Paddle's nest helpers ``paddle.utils.flatten``, ``pack_sequence_as`` and
``map_structure``: a nested structure of lists, tuples (namedtuples too) and dicts
taken apart into its leaves and put back together.

A dict's values are visited in sorted key order (so two dicts with the same keys
line up whatever their insertion order), as Paddle's (and TensorFlow's nest) do;
the rebuilt dict keeps the structure's own key order. Strings are leaves.

>>> eager.utils.flatten({"b": [1, 2], "a": (3,)})
[3, 1, 2]
>>> eager.utils.map_structure(lambda v: v * 10, {"b": [1, 2], "a": (3,)})
{'b': [10, 20], 'a': (30,)}
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["assert_same_structure", "convert_to_list", "flatten", "is_sequence", "map_structure",
           "pack_sequence_as", "padding_to_same_structure", "to_sequence"]


def is_sequence(seq) -> bool:
    """Whether ``seq`` is a structure that nests (a dict, or a Sequence other than a str)."""
    if isinstance(seq, dict):
        return True
    return isinstance(seq, Sequence) and not isinstance(seq, str)


def _sorted_keys(op: str, mapping: dict) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError(f"{op}: a dict in the structure has keys that cannot be sorted "
                        f"({sorted({type(k).__name__ for k in mapping})}); nest needs sortable keys") from None


def _values(op: str, structure):
    if isinstance(structure, dict):
        return [structure[key] for key in _sorted_keys(op, structure)]
    return list(structure)


def _flatten(op: str, structure, out: list) -> list:
    for value in _values(op, structure):
        if is_sequence(value):
            _flatten(op, value, out)
        else:
            out.append(value)
    return out


def _sequence_like(op: str, instance, values: list):
    if isinstance(instance, dict):
        by_key = dict(zip(_sorted_keys(op, instance), values))
        return type(instance)((key, by_key[key]) for key in instance)
    if isinstance(instance, tuple) and isinstance(getattr(instance, "_fields", None), Sequence):
        return type(instance)(*values)  # a namedtuple takes its fields positionally
    return type(instance)(values)


def flatten(nest) -> list:
    """The leaves of ``nest`` in order (a dict's in sorted key order); ``[nest]`` for a leaf.

    >>> eager.utils.flatten([1, (2, [3]), {"x": 4}])
    [1, 2, 3, 4]
    """
    if is_sequence(nest):
        return _flatten("flatten", nest, [])
    return [nest]


def _pack(structure, flat, index: int):
    packed = []
    for value in _values("pack_sequence_as", structure):
        if is_sequence(value):
            index, child = _pack(value, flat, index)
            packed.append(_sequence_like("pack_sequence_as", value, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence`` put into the shape of ``structure`` (the inverse of :func:`flatten`).

    >>> eager.utils.pack_sequence_as([0, (0, 0)], ["a", "b", "c"])
    ['a', ('b', 'c')]
    """
    if not is_sequence(flat_sequence):
        raise TypeError(f"pack_sequence_as: argument 'flat_sequence' expected a sequence (list or tuple), "
                        f"got {type(flat_sequence).__name__}")
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"pack_sequence_as: the structure is a single value, but 'flat_sequence' has "
                             f"{len(flat_sequence)} elements")
        return flat_sequence[0]
    leaves = len(_flatten("pack_sequence_as", structure, []))
    if leaves != len(flat_sequence):
        raise ValueError(f"pack_sequence_as: the structure has {leaves} elements, but 'flat_sequence' has "
                         f"{len(flat_sequence)}")
    _, packed = _pack(structure, flat_sequence, 0)
    return _sequence_like("pack_sequence_as", structure, packed)


def map_structure(func, *structure):
    """``func`` applied to the leaves of ``structure`` (several structures: to their leaves
    side by side), in the shape of the first one.

    >>> eager.utils.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)])
    [11, (22,)]
    """
    if not callable(func):
        raise TypeError(f"map_structure: argument 'func' expected a callable, got {type(func).__name__}")
    if not structure:
        raise TypeError("map_structure: at least one structure is needed")
    flat = [flatten(s) for s in structure]
    if len({len(f) for f in flat}) > 1:
        raise ValueError(f"map_structure: the structures have different numbers of elements "
                         f"({', '.join(str(len(f)) for f in flat)})")
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flat)])


def to_sequence(nest):
    """``nest`` itself if it nests (:func:`is_sequence`), else ``[nest]``."""
    return nest if is_sequence(nest) else [nest]


def _assert_same(nest1, nest2, check_types: bool) -> None:
    if is_sequence(nest1) != is_sequence(nest2):
        raise ValueError(f"assert_same_structure: the two structures do not nest alike: {nest1!r} and {nest2!r}")
    if not is_sequence(nest1):
        return
    if check_types:
        if type(nest1) is not type(nest2):
            raise TypeError(f"assert_same_structure: the two structures have different sequence types: "
                            f"{type(nest1).__name__} and {type(nest2).__name__}")
        if isinstance(nest1, dict) and set(nest1) != set(nest2):
            raise ValueError(f"assert_same_structure: the two dicts have different keys: {sorted(map(str, nest1))} "
                             f"and {sorted(map(str, nest2))}")
    for a, b in zip(_values("assert_same_structure", nest1), _values("assert_same_structure", nest2)):
        _assert_same(a, b, check_types)


def assert_same_structure(nest1, nest2, check_types: bool = True) -> None:
    """Raises ValueError unless ``nest1`` and ``nest2`` nest alike with as many leaves
    (and, with ``check_types``, TypeError unless their sequences are of the same types).

    >>> eager.utils.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    """
    n1 = len(flatten(nest1)) if is_sequence(nest1) else 1
    n2 = len(flatten(nest2)) if is_sequence(nest2) else 1
    if n1 != n2:
        raise ValueError(f"assert_same_structure: the two structures have {n1} and {n2} elements: "
                         f"{nest1!r} and {nest2!r}")
    _assert_same(nest1, nest2, check_types)


def padding_to_same_structure(nest1, nest2, obj=None):
    """Both structures with every None leaf replaced by ``obj``."""
    def fill(value):
        if is_sequence(value):
            return pack_sequence_as(value, [obj if item is None else item for item in flatten(value)])
        return obj if value is None else value

    return fill(nest1), fill(nest2)


def convert_to_list(value, n, name, dtype=int) -> list:
    """``[value] * n`` for a single ``dtype`` value, else ``value`` (an iterable of ``n``
    values convertible by ``dtype``) as a list; a ValueError naming ``name`` otherwise
    (Paddle's helper for kernel_size/stride/padding arguments).

    >>> eager.utils.convert_to_list(3, 2, "kernel_size")
    [3, 3]
    """
    if isinstance(value, dtype):
        return [value] * n
    try:
        values = list(value)
    except TypeError:
        raise ValueError(f"convert_to_list: argument '{name}' expected a {dtype.__name__} or a list/tuple of "
                         f"{n}, got {value!r}") from None
    if len(values) != n:
        raise ValueError(f"convert_to_list: argument '{name}' expected {n} values, got {value!r}")
    for item in values:
        if hasattr(item, "numpy") and not isinstance(item, np.generic):
            raise ValueError(f"convert_to_list: argument '{name}' expected numbers, got a Tensor")
        try:
            dtype(item)
        except (ValueError, TypeError):
            raise ValueError(f"convert_to_list: argument '{name}' expected {dtype.__name__} values, "
                             f"got {value!r}") from None
    return values
