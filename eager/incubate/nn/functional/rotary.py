"""Paddle's ``fused_rotary_position_embedding`` (RoPE), composed of strided
slices, stack/concat, multiply and add.

Paddle's names are kept with Paddle's meaning: ``use_neox_rotary_style=True``
rotates each pair of ADJACENT features ``(x[2i], x[2i+1])``; ``False`` rotates
feature ``i`` with feature ``i + head_dim/2`` (the two halves)."""
from __future__ import annotations

import numpy as np

from ....composite._paddle_api import composed_in
from ....creation import to_tensor
from ....generated import forward_api as _F
from ....tensor import Tensor
from . import _checks

_composed = composed_in(_checks.NAMESPACE)


def _default_tables(positions, dim: int, interleaved: bool, base: float, like) -> tuple:
    """(sin, cos) of ``positions`` (a tensor of any shape) x ``base**(-2j/dim)``,
    j the pair feature i belongs to: shape ``positions.shape + [dim]``, computed
    on the device in float64 and cast to ``like``'s dtype."""
    inv_freq = base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    pair = np.arange(dim) // 2 if interleaved else np.arange(dim) % (dim // 2)
    freq = to_tensor(inv_freq[pair], dtype="float64", place=like.place)
    angle = _F.multiply(_F.unsqueeze(_F.cast(positions, "float64"), [-1]), freq)
    return _F.cast(_F.sin(angle), like.dtype), _F.cast(_F.cos(angle), like.dtype)


def _table(fn: str, arg: str, value, x: Tensor, dim: int, rows) -> Tensor:
    _checks.like(fn, arg, value, x, optional=False, of="q")
    shape = value.shape
    if len(shape) == 4 and shape[0] == 1 and shape[2] == 1:
        value = _F.reshape(value, [shape[1], shape[3]])
    elif len(shape) != 2:
        raise ValueError(f"{_checks.who(fn)}: argument '{arg}' expected shape [seq_len, head_dim] or [1, seq_len, "
                         f"1, head_dim], got {shape}")
    if value.shape[1] != dim or (rows is not None and value.shape[0] != rows):
        wanted = f"[{rows if rows is not None else 'max_position'}, {dim}]"
        raise ValueError(f"{_checks.who(fn)}: argument '{arg}' expected {wanted} (q's sequence length and "
                         f"head_dim), got {shape}")
    return value


def _rotate(x, interleaved: bool):
    if interleaved:
        even = _F.strided_slice(x, [x.ndim - 1], [0], [x.shape[-1]], [2])
        odd = _F.strided_slice(x, [x.ndim - 1], [1], [x.shape[-1]], [2])
        return _F.reshape(_F.stack([_F.scale(odd, -1.0), even], -1), x.shape)
    first, second = _F.split(x, 2, -1)
    return _F.concat([_F.scale(second, -1.0), first], -1)


@_composed
def fused_rotary_position_embedding(q, k=None, v=None, sin=None, cos=None, position_ids=None,
                                    use_neox_rotary_style=True, time_major=False, rotary_emb_base=10000.0):
    """Rotary position embedding of q (and k, v when given): ``x * cos + rotate(x)
    * sin``, per position and feature. q, k, v are ``[batch, seq_len, num_heads,
    head_dim]`` (``[seq_len, batch, ...]`` with ``time_major=True``); sin and cos
    ``[seq_len, head_dim]`` or ``[1, seq_len, 1, head_dim]``, or both None for
    the standard tables (angle ``pos * rotary_emb_base**(-2j/head_dim)``, j the
    feature's pair). ``position_ids`` (int ``[batch, seq_len]``) picks each
    token's row of the tables. Returns ``(out_q, out_k, out_v)``, None for a
    missing input.

    >>> q = eager.ones([1, 2, 1, 2])
    >>> out_q, _, _ = eager.incubate.nn.functional.fused_rotary_position_embedding(q)
    >>> out_q.numpy()[0, :, 0].round(4)
    array([[ 1.    ,  1.    ],
           [-0.3012,  1.3818]], dtype=float32)
    """
    fn = "fused_rotary_position_embedding"
    _checks.floating(fn, "q", q)
    _checks.ndim(fn, "q", q, (4,))
    interleaved = _checks.flag(fn, "use_neox_rotary_style", use_neox_rotary_style)
    _checks.flag(fn, "time_major", time_major)
    base = _checks.positive(fn, "rotary_emb_base", rotary_emb_base)
    seq, batch = (q.shape[0], q.shape[1]) if time_major else (q.shape[1], q.shape[0])
    dim = q.shape[3]
    if dim % 2:
        raise ValueError(f"{_checks.who(fn)}: argument 'q' expected an even head_dim, got shape {q.shape}")
    for arg, value in (("k", k), ("v", v)):
        if value is not None:
            _checks.like(fn, arg, value, q, optional=False, of="q")
            if value.ndim != 4 or value.shape[:2] != q.shape[:2] or value.shape[3] != dim:
                raise ValueError(f"{_checks.who(fn)}: argument '{arg}' expected shape {q.shape[:2] + ['*', dim]} "
                                 f"(q's, any number of heads), got {value.shape}")
    if position_ids is not None:
        if not isinstance(position_ids, Tensor) or not position_ids.dtype.is_integer:
            raise TypeError(f"{_checks.who(fn)}: argument 'position_ids' expected an integer Tensor, got "
                            f"{getattr(position_ids, 'dtype', type(position_ids).__name__)}")
        if position_ids.shape != [batch, seq]:
            raise ValueError(f"{_checks.who(fn)}: argument 'position_ids' expected shape [{batch}, {seq}], got "
                             f"{position_ids.shape}")
    if (sin is None) != (cos is None):
        raise ValueError(f"{_checks.who(fn)}: arguments 'sin' and 'cos' expected both Tensors or both None, got "
                         f"{'sin' if cos is None else 'cos'} alone")
    if sin is None:
        if position_ids is None:
            sin, cos = _default_tables(_F.arange(0, seq, 1, "int64", q.place), dim, interleaved, base, q)
            shape = [seq, 1, 1, dim] if time_major else [1, seq, 1, dim]
            sin, cos = _F.reshape(sin, shape), _F.reshape(cos, shape)
        else:
            sin, cos = _default_tables(_F.unsqueeze(position_ids, [-1]), dim, interleaved, base, q)  # [b, s, 1, d]
    else:
        rows = None if position_ids is not None else seq
        sin = _table(fn, "sin", sin, q, dim, rows)
        cos = _table(fn, "cos", cos, q, dim, rows)
        if position_ids is None:
            shape = [seq, 1, 1, dim] if time_major else [1, seq, 1, dim]
            sin, cos = _F.reshape(sin, shape), _F.reshape(cos, shape)
        else:
            flat = _F.reshape(position_ids, [batch * seq])
            sin = _F.reshape(_F.gather(sin, flat, 0), [batch, seq, 1, dim])
            cos = _F.reshape(_F.gather(cos, flat, 0), [batch, seq, 1, dim])
    if position_ids is not None and time_major:
        sin, cos = _F.transpose(sin, [1, 0, 2, 3]), _F.transpose(cos, [1, 0, 2, 3])
    return tuple(None if x is None else _F.add(_F.multiply(x, cos), _F.multiply(_rotate(x, interleaved), sin))
                 for x in (q, k, v))


__all__ = ["fused_rotary_position_embedding"]
