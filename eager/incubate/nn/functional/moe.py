"""Paddle's ``fused_ec_moe``: an expert-choice mixture of experts layer, composed
of softmax, topk, gathers and batched matmuls (the mathematics of Paddle's
GPU-only CUTLASS kernel, here on every device and differentiable).

Each expert picks, in every sequence, the ``seq_len // 16`` tokens with the
highest gate probability (softmax of ``gate`` over the experts), runs them
through its feed-forward network ``act(t @ W0_e + b0_e) @ W1_e + b1_e``, and adds
the result, scaled by that probability, back to each picked token; the input is
added as a residual. A token no expert picks comes out unchanged.
"""
from __future__ import annotations

from ....composite._paddle_api import composed_in
from ....generated import forward_api as _F
from ....nn.functional import activation as _act
from . import _checks

_composed = composed_in(_checks.NAMESPACE)

# Paddle's kernel: each expert takes seq_len / 16 tokens of every sequence
_TOKENS_PER_EXPERT_DIVISOR = 16


def _check(fn: str, x, gate, bmm0_weight, bmm0_bias, bmm1_weight, bmm1_bias, act_type) -> None:
    _checks.floating(fn, "x", x)
    _checks.ndim(fn, "x", x, (3,))
    _checks.like(fn, "gate", gate, x, optional=False)
    _checks.ndim(fn, "gate", gate, (3,))
    if list(gate.shape[:2]) != list(x.shape[:2]):
        raise ValueError(f"{_checks.who(fn)}: argument 'gate' expected shape [{x.shape[0]}, {x.shape[1]}, "
                         f"num_experts] (x's batch and seq_len), got {gate.shape}")
    experts, hidden = gate.shape[2], x.shape[2]
    _checks.like(fn, "bmm0_weight", bmm0_weight, x, optional=False)
    if bmm0_weight.ndim != 3 or list(bmm0_weight.shape[:2]) != [experts, hidden]:
        raise ValueError(f"{_checks.who(fn)}: argument 'bmm0_weight' expected shape [{experts}, {hidden}, "
                         f"d_feedforward] (num_experts, d_model), got {bmm0_weight.shape}")
    inter = bmm0_weight.shape[2]
    _checks.like(fn, "bmm0_bias", bmm0_bias, x, shape=[experts, 1, inter])
    _checks.like(fn, "bmm1_weight", bmm1_weight, x, shape=[experts, inter, hidden], optional=False)
    _checks.like(fn, "bmm1_bias", bmm1_bias, x, shape=[experts, 1, hidden])
    if not (isinstance(act_type, str) and act_type in ("gelu", "relu")):
        raise ValueError(f"{_checks.who(fn)}: argument 'act_type' expected 'gelu' or 'relu', got {act_type!r}")


@_composed
def fused_ec_moe(x, gate, bmm0_weight, bmm0_bias, bmm1_weight, bmm1_bias, act_type):
    """Expert-choice MoE: x ``[batch, seq_len, d_model]``, gate ``[batch, seq_len,
    num_experts]`` (logits), bmm0_weight ``[num_experts, d_model, d_feedforward]``,
    bmm0_bias ``[num_experts, 1, d_feedforward]``, bmm1_weight ``[num_experts,
    d_feedforward, d_model]``, bmm1_bias ``[num_experts, 1, d_model]`` (a bias may
    be None: none added); act_type
    'gelu' (the tanh approximation, as the kernel's epilogue) or 'relu'. Each
    expert takes the ``seq_len // 16`` most probable tokens of each sequence (see
    the module docstring); the output has x's shape.

    >>> x = eager.ones([1, 16, 2])
    >>> gate = eager.to_tensor([[[1.0, 0.0]] * 15 + [[0.0, 1.0]]])
    >>> w0, b0 = eager.ones([2, 2, 3]), eager.zeros([2, 1, 3])
    >>> w1, b1 = eager.ones([2, 3, 2]), eager.zeros([2, 1, 2])
    >>> out = eager.incubate.nn.functional.fused_ec_moe(x, gate, w0, b0, w1, b1, "relu")
    >>> out.shape
    [1, 16, 2]
    """
    fn = "fused_ec_moe"
    _check(fn, x, gate, bmm0_weight, bmm0_bias, bmm1_weight, bmm1_bias, act_type)
    batch, seq_len, hidden = x.shape
    experts = gate.shape[2]
    capacity = seq_len // _TOKENS_PER_EXPERT_DIVISOR
    if capacity == 0:
        return _F.assign(x)
    probs = _F.transpose(_act.softmax(gate, axis=-1), [0, 2, 1])              # [batch, experts, seq_len]
    weight, picked = _F.topk(probs, capacity, -1, True, True)                # [batch, experts, capacity]
    tokens = _F.take_along_axis(_F.expand(_F.unsqueeze(x, [1]), [batch, experts, seq_len, hidden]),
                                _F.expand(_F.unsqueeze(picked, [3]), [batch, experts, capacity, hidden]), 2)
    rows = _F.reshape(_F.transpose(tokens, [1, 0, 2, 3]), [experts, batch * capacity, hidden])
    inner = _F.matmul(rows, bmm0_weight, False, False)
    if bmm0_bias is not None:
        inner = _F.add(inner, bmm0_bias)
    inner = _act.gelu(inner, approximate=True) if act_type == "gelu" else _act.relu(inner)
    outer = _F.matmul(inner, bmm1_weight, False, False)                      # [experts, batch * capacity, hidden]
    if bmm1_bias is not None:
        outer = _F.add(outer, bmm1_bias)
    outer = _F.transpose(_F.reshape(outer, [experts, batch, capacity, hidden]), [1, 0, 2, 3])
    outer = _F.multiply(outer, _F.unsqueeze(weight, [3]))
    # scatter the experts' rows back onto their tokens: a one-hot [batch, experts * capacity, seq_len] matmul
    onehot = _F.cast(_F.one_hot(_F.reshape(picked, [batch, experts * capacity]), seq_len), x.dtype)
    routed = _F.matmul(onehot, _F.reshape(outer, [batch, experts * capacity, hidden]), True, False)
    return _F.add(x, routed)


__all__ = ["fused_ec_moe"]
