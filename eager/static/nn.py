"""``paddle.static.nn``'s control flow as Paddle's dygraph mode runs it: ``cond``,
``case``, ``switch_case`` and ``while_loop`` read their one-element predicates
with ``item()`` and run the chosen Python callables, so the ops the callables run
are recorded as usual and gradients flow through them. ``batch_norm``,
``group_norm``, ``instance_norm``, ``spectral_norm``, ``bilinear_tensor_product`` and ``row_conv``
(eager.static.nn_layers) run with parameters made anew at each call, as Paddle's
dygraph mode runs them.

>>> i = eager.to_tensor(0.0)
>>> eager.static.nn.while_loop(lambda i: i < 3, lambda i: [i + 1], [i])[0].item()
3.0
"""
from __future__ import annotations

import numbers

from ..errors import static_graph_missing as missing
from ..tensor import Tensor
from .nn_layers import batch_norm, bilinear_tensor_product, group_norm, instance_norm, row_conv, spectral_norm

__all__ = ["batch_norm", "bilinear_tensor_product", "case", "cond", "group_norm", "instance_norm", "row_conv",
           "spectral_norm", "switch_case", "while_loop"]

# Paddle 2.6.2's paddle.static.nn layers, which build static-graph parameters: asking
# for one says so (eager.nn has the dygraph layers: Linear for fc, PReLU, ...)
_STATIC_ONLY = frozenset({
    "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose",
    "data_norm", "deform_conv2d", "embedding", "fc", "layer_norm", "multi_box_head",
    "nce", "prelu", "py_func", "sequence_concat", "sequence_conv", "sequence_enumerate",
    "sequence_expand", "sequence_expand_as", "sequence_first_step", "sequence_last_step", "sequence_pad",
    "sequence_pool", "sequence_reshape", "sequence_reverse", "sequence_scatter", "sequence_slice",
    "sequence_softmax", "sequence_unpad", "sparse_embedding", "static_pylayer"})


def __getattr__(name):
    raise missing(__name__, name, _STATIC_ONLY)


def _predicate(fn: str, arg: str, pred) -> bool:
    """The truth of a one-element Tensor (shape [] or [1]), or a clear error."""
    if not isinstance(pred, Tensor):
        raise TypeError(f"{fn}: argument '{arg}' expected a one-element bool Tensor, got {type(pred).__name__}")
    if pred.size != 1:
        raise ValueError(f"{fn}: argument '{arg}' expected a one-element Tensor (shape [] or [1]), got shape "
                         f"{pred.shape}")
    return bool(pred.item())


def _callable(fn: str, arg: str, value, optional: bool = False) -> None:
    if not (callable(value) or optional and value is None):
        raise TypeError(f"{fn}: argument '{arg}' expected a callable{' or None' if optional else ''}, got "
                        f"{type(value).__name__}")


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """``true_fn()`` when the one-element Tensor ``pred`` is True, else ``false_fn()``;
    None when the chosen function is None.

    >>> x = eager.to_tensor(2.0)
    >>> eager.static.nn.cond(x > 1, lambda: x * 2, lambda: x - 1).item()
    4.0
    """
    _callable("static.nn.cond", "true_fn", true_fn, optional=True)
    _callable("static.nn.cond", "false_fn", false_fn, optional=True)
    chosen = true_fn if _predicate("static.nn.cond", "pred", pred) else false_fn
    return None if chosen is None else chosen()


def case(pred_fn_pairs, default=None, name=None):
    """An if-elif-else chain: the result of the fn of the first (pred, fn) pair whose
    pred is True; else ``default()``, or, without a default, the last pair's fn.

    >>> x = eager.to_tensor(0.3)
    >>> eager.static.nn.case([(x < 0.1, lambda: x * 0), (x < 0.5, lambda: x * 10)], lambda: x).item()
    3.0
    """
    fn = "static.nn.case"
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise TypeError(f"{fn}: argument 'pred_fn_pairs' expected a non-empty list or tuple of (pred, fn) pairs, "
                        f"got {pred_fn_pairs!r}")
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"{fn}: argument 'pred_fn_pairs' expected (pred, fn) 2-tuples, got {pair!r}")
        if not isinstance(pair[0], Tensor):
            raise TypeError(f"{fn}: argument 'pred_fn_pairs' expected a bool Tensor as each pred, got "
                            f"{type(pair[0]).__name__}")
        _callable(fn, "pred_fn_pairs", pair[1])
    if default is None:  # Paddle: the last pair is the default
        pred_fn_pairs, default = pred_fn_pairs[:-1], pred_fn_pairs[-1][1]
    _callable(fn, "default", default)
    for pred, branch in pred_fn_pairs:
        if _predicate(fn, "pred_fn_pairs", pred):
            return branch()
    return default()


def switch_case(branch_index, branch_fns, default=None, name=None):
    """The result of the branch whose int key equals the one-element integer Tensor
    ``branch_index``; ``branch_fns`` is a list of callables (keyed by position), a
    list of (int, callable) pairs or a dict. Without a match: ``default()``, or,
    without a default, the branch of the largest key.

    >>> eager.static.nn.switch_case(eager.to_tensor(1), [lambda: 10, lambda: 20])
    20
    """
    fn = "static.nn.switch_case"
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"{fn}: argument 'branch_index' expected a one-element integer Tensor, got "
                        f"{type(branch_index).__name__}")
    if branch_index.size != 1:
        raise ValueError(f"{fn}: argument 'branch_index' expected a one-element Tensor, got shape "
                         f"{branch_index.shape}")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError(f"{fn}: argument 'branch_fns' expected a list, tuple or dict, got "
                        f"{type(branch_fns).__name__}")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(f) for f in pairs):
        pairs = list(enumerate(pairs))
    keys = set()
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"{fn}: argument 'branch_fns' expected callables or (int, callable) 2-tuples, got "
                            f"{pair!r}")
        key, branch = pair
        if not isinstance(key, numbers.Integral) or isinstance(key, bool):
            raise TypeError(f"{fn}: argument 'branch_fns' expected int keys, got {key!r}")
        if key in keys:
            raise ValueError(f"{fn}: argument 'branch_fns' has the key {key} more than once")
        keys.add(key)
        _callable(fn, f"branch_fns[{key}]", branch)
    if default is None:
        pairs = sorted(pairs, key=lambda pair: pair[0])
        pairs, default = pairs[:-1], pairs[-1][1]
    _callable(fn, "default", default)
    index = int(branch_index.item())  # a float index is truncated, as Paddle casts it to int64
    for key, branch in pairs:
        if key == index:
            return branch()
    return default()


def while_loop(cond, body, loop_vars, is_test=False, name=None):  # noqa: A002  (Paddle's names)
    """Runs ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` (a one-element
    bool Tensor) is True and returns the last loop_vars (a list). The ops of every
    step are recorded, so the results are differentiable in the first loop_vars.
    Paddle 2.6.2 also writes each step's values into the tensors passed as
    ``loop_vars`` (``assign``) and returns those; eager returns new tensors and
    leaves the ones passed unchanged (docs/jit.md).

    >>> i, x = eager.to_tensor(1.0), eager.to_tensor(0.0)
    >>> [v.item() for v in eager.static.nn.while_loop(lambda i, x: i < 4, lambda i, x: [i + 1, x + i], [i, x])]
    [4.0, 6.0]
    """
    fn = "static.nn.while_loop"
    _callable(fn, "cond", cond)
    _callable(fn, "body", body)
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError(f"{fn}: argument 'loop_vars' expected a list or tuple, got {type(loop_vars).__name__}")
    if not loop_vars:
        raise ValueError(f"{fn}: argument 'loop_vars' expected at least one variable, got none")
    loop_vars = list(loop_vars)
    while _predicate(fn, "cond", cond(*loop_vars)):
        outputs = body(*loop_vars)
        if not isinstance(outputs, (list, tuple)):
            outputs = [outputs]
        if len(outputs) != len(loop_vars):
            raise ValueError(f"{fn}: body returned {len(outputs)} values for {len(loop_vars)} loop_vars (it must "
                             f"return the same number)")
        loop_vars = list(outputs)
    return loop_vars
