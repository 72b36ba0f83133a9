"""Fused optimizer updates: Paddle's ``sgd_``, ``momentum_``, ``adam_``, ``adamw_``,
``adamax_``, ``adagrad_``, ``adadelta_``, ``rmsprop_``, ``lamb_``, ``lars_momentum_``,
``nadam_``, ``radam_``, ``asgd_`` and ``rprop_``.

Each kernel writes the new parameter and its state into the existing buffers
(the outputs *are* the inputs, as Paddle's ``inplace: (param -> param_out)``)
and never modifies the gradient, unless the caller donates it: SGD's
``donated=("grad",)`` says the caller never reads the gradient again (an
``eager.jit`` replay whose gradient dies with the update), so the host scales it
in place, as a hand-written step does, instead of into scratch. On the host a large parameter is updated
block by block with block-sized scratch (``_update_blockwise``): no update
allocates a parameter-sized temporary there, except the float32 copy a
float16 gradient or parameter needs per block, and Lamb and LARS, whose ratios
need whole-parameter norms first. The host's scratch arrays come from a workspace
reused from call to call (``_host_scratch``: per thread and dtype, as large as
the largest request, at most two blocks or SGD's four), so a host update of any
size allocates nothing at all after the first. On a GPU each update is a fused
kernel (below), whose temporaries live in registers; Lamb, LARS, the SelectedRows
updates and a learning rate or beta power of another dtype than the state's
run the rule once on the whole arrays, with scratch from CuPy's memory pool.
``learning_rate`` and the beta powers are one-element arrays read on
the device (no host round trip on a GPU); the beta powers advance in place.

The update computes in the state dtype: on ``master_param`` (the float32 copy
of a float16 parameter, ``multi_precision``) and then rounds it into param;
on a float32 copy of a float16 param without a master weight; on param itself
otherwise.

With a SelectedRows gradient (kind SELECTED_ROWS, below) SGD and lazy Adam
read and write only the rows the gradient holds.

On a GPU, SGD, Momentum, Adam, AdamW, Adamax, Adagrad, Adadelta and RMSProp run
as fused kernels (phi/kernels/fusion.py): one CuPy call per update (Adam, AdamW
and Adamax: a second one advances the beta powers) instead of one per
elementwise step, as the host pays 8-30 us per call whatever the size.
NAdam, RAdam, ASGD and Rprop have no fused body (none has been checked on a
real GPU): on a GPU their rule runs as plain CuPy calls on the whole arrays. Each
fused body does the same operations in the same order as the host's rule; the
GPU compiler may contract a multiply and an add into one rounding (FMA). The
first fused Adam, Adamax, Adadelta and RMSProp moved updates by ~1e-4 relative
on a real H200 (CuPy 14.2; reverted in 5177711): cupy.fuse computed ``1.0 - beta1``
of a Python float argument in float16 (see fusion.py's rules; the stand-in now
refuses that). Their bodies now take ``1 - beta1`` and the like computed on the
host and every hyperparameter as a NumPy scalar of the state dtype, the values
of the host's constants (see _state_scalars); they await a run on a real GPU.
"""
import functools
import threading

import numpy as np

from ..common.tensor_kind import TensorKind
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS
from .funcs import scatter_add
from .fusion import fused

# Elements per block of a host update (see _update_blockwise): 256 KiB of float32,
# so a block of each array the update reads stays in a core's L2 cache.
_BLOCK = 1 << 16

# Per thread: ``arrays``, numpy dtype -> the flat host array _host_scratch hands out
# views of; ``views``, (dtype, shape, count) -> the views it handed out for that
# request, valid while ``arrays`` keeps those buffers.
_WORKSPACE = threading.local()

# Requests whose views a thread remembers (beyond that it forgets them all and
# starts again), so a workload whose shapes keep changing holds a bounded amount.
_VIEWS_KEPT = 256


def _host_scratch(dtype, shape, count: int = 1) -> tuple:
    """``count`` host arrays of ``shape`` and ``dtype`` for an update's scratch,
    views of one workspace array per thread and dtype that grows to the largest
    request and is reused by every later call (a kernel runs its rule to the end
    before another runs in the same thread, and never hands scratch out). Callers
    ask for at most a few blocks (``_BLOCK``), so the workspace stays that small.
    A repeated request (the same dtype, shape and count) gets the views made for
    the first one: one dict lookup."""
    try:
        return _WORKSPACE.views[dtype, shape, count]
    except (AttributeError, KeyError):
        return _new_scratch(dtype, shape, count)


def _new_scratch(dtype, shape, count: int) -> tuple:
    """_host_scratch's miss: the views of a request not seen since the workspace
    last grew (growing it forgets every view of the old buffer)."""
    size = 1
    for n in shape:
        size *= n
    arrays = getattr(_WORKSPACE, "arrays", None)
    if arrays is None:
        arrays = _WORKSPACE.arrays = {}
    views = getattr(_WORKSPACE, "views", None)
    if views is None or len(views) >= _VIEWS_KEPT:
        views = _WORKSPACE.views = {}
    key = (dtype, shape, count)
    dtype = np.dtype(dtype)
    buffer = arrays.get(dtype)
    if buffer is None or buffer.size < size * count:
        buffer = arrays[dtype] = np.empty(size * count, dtype)
        views.clear()
    hit = views[key] = tuple(buffer[i * size:(i + 1) * size].reshape(shape) for i in range(count))
    return hit


def _scalar(array):
    """The one element of ``array`` (shape [] or [1]) for arithmetic with arrays:
    a NumPy scalar on the host, a 0-d array on a GPU (so nothing waits for the
    device)."""
    return array[(0,) * array.ndim]


# (dtype, values) -> those values as read-only 0-d host arrays of dtype (_host_constants).
_CONSTANTS: dict = {}
_CONSTANTS_KEPT = 256


def _host_constants(dtype, *values) -> tuple:
    """``values`` (Python floats) as 0-d host arrays of ``dtype``, made once per
    (dtype, values) and reused. A ufunc takes a 0-d array operand about three
    times faster than a Python or NumPy scalar (which it converts to one on
    every call: ~0.7 us of a small update's ~1 us per ufunc), and the values
    are the same: a Python float meets arrays of ``dtype`` in the rules, which
    convert it to ``dtype`` exactly as ``np.array(value, dtype)`` does."""
    key = (dtype, values)
    found = _CONSTANTS.get(key)
    if found is None:
        if len(_CONSTANTS) >= _CONSTANTS_KEPT:  # hyperparameters that keep changing: bounded
            _CONSTANTS.clear()
        arrays = []
        for value in values:
            array = np.array(value, dtype)
            array.flags.writeable = False
            arrays.append(array)
        found = _CONSTANTS[key] = tuple(arrays)
    return found


@functools.lru_cache(maxsize=256)
def _complement(dtype, value: float) -> float:
    """1 - value as Paddle's kernels compute it: in their compute type (float64
    for float64 state, else float32, float16/bfloat16 included), from value
    rounded to it (float32: 1 - 0.999 is 0.0009999871, where the Python float's
    0.001 rounds to 0.0010000000475). Adam's bias correction sqrt(1 - beta2_pow)
    is computed the same way, so at step 1 Paddle's m2 / (1 - beta2_pow) is g * g
    exactly; a float64 (1 - beta2) left a 6.6e-6 relative error in every float32
    step. Returned as the Python float of that exact value."""
    kind = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    return float(kind(1) - kind(value))


def _rule_constants(xp, dtype, *values) -> tuple:
    """``values`` as a rule's scalar operands: 0-d host arrays of ``dtype`` on the
    host (_host_constants), the Python floats themselves on a GPU."""
    return _host_constants(dtype, *values) if xp is np else values


def _host_operand(array):
    """A one-element host array (shape [] or [1]) as a 0-d array: the operand a
    ufunc takes fastest (see _host_constants), with the value and dtype of the
    NumPy scalar _scalar gives (both are strongly typed for NumPy's promotion)."""
    return array if array.ndim == 0 else array.reshape(())


def _compute_array(param, master_param, state_dtype):
    """The array the update computes on (see the module doc)."""
    if master_param is not None:
        return master_param
    if param.dtype == state_dtype:
        return param
    return param.astype(state_dtype)


def _write_back(xp, param, computed) -> None:
    """Rounds the updated value into param when the update ran on another array."""
    if computed is not param:
        xp.copyto(param, computed, casting="same_kind")


def _in_dtype(grad, dtype):
    """grad in the state dtype: itself, or a copy for a float16 gradient (so that
    squares and sums cannot overflow float16)."""
    return grad if grad.dtype == dtype else grad.astype(dtype)


def _update_blockwise(xp, rule, param, master_param, dtype, grad, states=(), scratch=1, block=None) -> None:
    """Runs ``rule(p, g, *states, *scratch)`` over the parameter, where ``p`` is
    the array the update computes on (see the module doc), ``g`` the gradient
    in ``dtype``, ``states`` the accumulators and ``scratch`` arrays of
    ``dtype`` the rule may overwrite; the rule writes ``p`` and the states in
    place with elementwise ops only.

    On the host, a parameter larger than ``block`` elements (``_BLOCK`` by
    default; every array C-contiguous) is updated one block at a time with
    block-sized scratch, so the update allocates no parameter-sized temporary
    and each block's passes stay in cache; the result is the same bit for bit,
    as every op is elementwise. Elsewhere (a GPU, whose memory pool makes a temporary cheap
    and where each block would be a kernel launch) the rule runs once on the
    whole arrays.
    """
    block = _BLOCK if block is None else block
    size = param.size
    if xp is np and size <= block and master_param is None and param.dtype == dtype == grad.dtype:
        # The common small host case: the rule on param and grad themselves, in fewest calls.
        rule(param, grad, *states, *_host_scratch(dtype, param.shape, scratch))
        return
    arrays = (param, grad, *states) if master_param is None else (param, grad, master_param, *states)
    if xp is not np or size <= block or not all(a.flags.c_contiguous for a in arrays):
        p = _compute_array(param, master_param, dtype)
        if xp is np and size <= block:
            spares = _host_scratch(dtype, param.shape, scratch)
        else:
            spares = [xp.empty(param.shape, dtype) for _ in range(scratch)]
        rule(p, _in_dtype(grad, dtype), *states, *spares)
        _write_back(xp, param, p)
        return
    flat_param, flat_grad = param.reshape(-1), grad.reshape(-1)
    flat_master = None if master_param is None else master_param.reshape(-1)
    flat_states = [s.reshape(-1) for s in states]
    blocks = _host_scratch(dtype, (block,), scratch)
    for start in range(0, size, block):
        stop = min(start + block, size)
        part = param_part = flat_param[start:stop]
        if flat_master is not None:
            part = flat_master[start:stop]
        elif part.dtype != dtype:
            part = part.astype(dtype)
        rule(part, _in_dtype(flat_grad[start:stop], dtype), *(s[start:stop] for s in flat_states),
             *(b[:stop - start] for b in blocks))
        _write_back(xp, param_part, part)


# -- fused GPU updates ------------------------------------------------------------
# The bodies below run in one kernel on a GPU (see fusion.py): operands only,
# no shapes or indexing. ``master`` is None (a trace-time constant) or the float32
# master weight.

def _computed(param, master, dtype):
    """Inside a fused body: the array the update computes on (see the module doc)."""
    if master is not None:
        return master
    return param if param.dtype == dtype else param.astype(dtype)


def _round_into(param, p) -> None:
    """Inside a fused body: the updated value into param when it ran on another array."""
    if p is not param:
        param[...] = p


def _operand(array, param):
    """A one-element state (learning rate, beta power) as a fused operand of
    param's update: a shape-[1] one is made 0-d for a 0-d param (a fused kernel
    cannot write a 0-d array with a 1-d result)."""
    return array.reshape(()) if array.ndim > param.ndim else array


@fused
def sgd_step(xp, param, master, grad, lr):
    """param -= lr * grad, computed in lr's dtype."""
    p = _computed(param, master, lr.dtype)
    p -= grad.astype(lr.dtype, copy=False) * lr
    _round_into(param, p)


@fused
def momentum_step(xp, param, master, grad, velocity, lr, mu, rescale_grad, coeff, *, rescale, decay,
                  nesterov):
    """momentum_'s rule (see there) on whole arrays."""
    dtype = velocity.dtype
    p = _computed(param, master, dtype)
    g = grad.astype(dtype, copy=False)
    if rescale:
        g = g * rescale_grad
    if decay:
        g = p * coeff + g
    velocity *= mu
    velocity += g
    p -= (velocity * mu + g) * lr if nesterov else velocity * lr
    _round_into(param, p)


@fused
def adagrad_step(xp, param, master, grad, moment, lr, epsilon):
    """adagrad_'s rule (see there) on whole arrays."""
    dtype = moment.dtype
    p = _computed(param, master, dtype)
    g = grad.astype(dtype, copy=False)
    moment += g * g
    p -= g / (xp.sqrt(moment) + epsilon) * lr
    _round_into(param, p)


# Adam, AdamW, Adamax, Adadelta and RMSProp: every hyperparameter reaches the body as a
# NumPy scalar of the state dtype (_state_scalars), never a Python float, and any
# coefficient that is arithmetic on hyperparameters alone (1 - beta1, ...) is computed
# on the host before the call: cupy.fuse does scalar-only arithmetic on a Python float
# argument in the smallest dtype that holds it (float16 for 0.9, see fusion.py), which
# moved the first fused versions of these updates by ~1e-4 on an H200. The host's rule
# holds the same constants as 0-d arrays of the state dtype (_host_constants), so each
# operation below meets operands of the same dtypes and values as the host's. Scalar
# maths left in a body is on the device's one-element operands (learning rate, beta
# powers): array arithmetic, as the host does it on NumPy scalars of the same dtype.

def _state_scalars(dtype, *values) -> tuple:
    """``values`` (Python floats) as a fused body's operands: NumPy scalars of the
    state dtype, typed as such by cupy.fuse (a float32 one stays float32 with a
    float32 array, a float64 one float64), and rounded from the same Python float
    as the host's 0-d constant, ``np.array(value, dtype)``: the same value."""
    kind = np.dtype(dtype).type
    return tuple([kind(value) for value in values])


def _fusable(dtype, *scalars) -> bool:
    """Whether the one-element operands (learning rate, beta powers) are of the state
    dtype, as the optimizers make them: the fused bodies match the host's rule bit
    for bit only then (the host rounds each step into a state-dtype buffer, where a
    wider scalar would widen a fused expression). Otherwise the host's rule runs."""
    return all(scalar.dtype == dtype for scalar in scalars)


@fused
def adam_step(xp, param, master, grad, moment1, moment2, lr, b1p, b2p, c1, b1, c2, b2, epsilon, lr_ratio,
              coeff, *, ratio, decay):
    """_adam_update's rule (see there) on whole arrays, the beta powers read only;
    c1, c2 = 1 - beta1, 1 - beta2 and the other hyperparameters as _state_scalars."""
    dtype = moment1.dtype
    p = _computed(param, master, dtype)
    g = grad.astype(dtype, copy=False)
    if ratio:
        lr = lr * lr_ratio
    correction2 = xp.sqrt(1.0 - b2p)
    lr_t = lr * correction2 / (1.0 - b1p)
    eps_t = correction2 * epsilon
    if decay:
        p *= 1.0 - lr * coeff
    moment1 *= b1
    moment1 += g * c1
    moment2 *= b2
    moment2 += g * g * c2
    p -= moment1 / (xp.sqrt(moment2) + eps_t) * lr_t
    _round_into(param, p)


@fused
def adamax_step(xp, param, master, grad, moment, inf_norm, lr, beta1_pow, c1, b1, b2, epsilon):
    """adamax_'s rule (see there) on whole arrays, beta1_pow read only; c1 = 1 - beta1."""
    dtype = moment.dtype
    p = _computed(param, master, dtype)
    g = grad.astype(dtype, copy=False)
    lr_t = lr / (1.0 - beta1_pow)
    moment *= b1
    moment += g * c1
    inf_norm *= b2
    inf_norm += epsilon
    xp.maximum(inf_norm, xp.abs(g), out=inf_norm)
    p -= moment / inf_norm * lr_t
    _round_into(param, p)


@fused
def adadelta_step(xp, param, master, grad, avg_squared_grad, avg_squared_update, lr, c, rho, epsilon):
    """adadelta_'s rule (see there) on whole arrays; c = 1 - rho."""
    dtype = avg_squared_grad.dtype
    p = _computed(param, master, dtype)
    g = grad.astype(dtype, copy=False)
    avg_squared_grad *= rho
    avg_squared_grad += g * g * c
    update = xp.sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * g
    avg_squared_update *= rho
    avg_squared_update += update * update * c
    p -= update * lr
    _round_into(param, p)


@fused
def rmsprop_step(xp, param, master, grad, mean_square, moment, mean_grad, lr, c, rho, epsilon, momentum, *,
                 centered):
    """rmsprop_'s rule (see there) on whole arrays; c = 1 - rho (rho: rmsprop_'s decay)."""
    dtype = mean_square.dtype
    p = _computed(param, master, dtype)
    g = grad.astype(dtype, copy=False)
    mean_square *= rho
    mean_square += g * g * c
    if centered:
        mean_grad *= rho
        mean_grad += g * c
        denom = mean_square - mean_grad * mean_grad + epsilon
    else:
        denom = mean_square + epsilon
    moment *= momentum
    moment += g / xp.sqrt(denom) * lr
    p -= moment
    _round_into(param, p)


@fused
def advance_pow(xp, beta_pow, beta):
    """beta_pow *= beta (after the step that read it); beta a _state_scalars one."""
    beta_pow *= beta


@fused
def advance_pows(xp, beta1_pow, beta2_pow, beta1, beta2):
    """beta1_pow *= beta1; beta2_pow *= beta2 (after the step that read them)."""
    beta1_pow *= beta1
    beta2_pow *= beta2


@register_kernel("sgd_", ALL_BACKENDS, FLOATS)
def sgd_(ctx, param, learning_rate, grad, master_param, multi_precision, *, donated=()):
    """param -= learning_rate * grad. ``donated``: the names of arguments the
    caller will never read again (see the module doc); with "grad" the host
    writes learning_rate * grad into grad itself. Same bits either way."""
    xp = ctx.xp
    if xp is not np:
        sgd_step(xp, param, master_param, grad, _operand(learning_rate, param))
        return param, master_param
    lr = _host_operand(learning_rate)
    # Two passes: blocks save memory but little time, and cost calls, so only
    # parameters of more than four blocks (1 MiB of float32) are split.
    block = 4 * _BLOCK
    dtype = grad.dtype
    if master_param is None and param.dtype == dtype == lr.dtype:
        grad_donated = "grad" in donated
        if grad_donated or param.size <= block:
            # The common case, in fewest calls: lr * grad into the donated gradient
            # (the scratch, cold after the backward's large matmuls, costs its own
            # reads and write-backs) or else into the host workspace (no
            # parameter-sized temporary), then param -= it.
            scaled = grad if grad_donated else _host_scratch(dtype, grad.shape)[0]
            xp.subtract(param, xp.multiply(grad, lr, out=scaled), out=param)
            return param, master_param

    def rule(p, g, scratch):
        xp.multiply(g, lr, out=scratch)
        xp.subtract(p, scratch, out=p)

    _update_blockwise(xp, rule, param, master_param, learning_rate.dtype, grad, block=block)
    return param, master_param


@register_kernel("momentum_", ALL_BACKENDS, FLOATS)
def momentum_(ctx, param, grad, velocity, learning_rate, master_param, mu, use_nesterov,
              regularization_method, regularization_coeff, multi_precision, rescale_grad):
    """Paddle's momentum, with g = rescale_grad * grad (+ regularization_coeff * param
    for "l2_decay"):

        velocity = mu * velocity + g
        param -= lr * velocity                  (use_nesterov=False)
        param -= lr * (g + mu * velocity)       (use_nesterov=True)
    """
    xp = ctx.xp
    decay = regularization_method == "l2_decay" and regularization_coeff
    if xp is not np:
        momentum_step(xp, param, master_param, grad, velocity, _operand(learning_rate, param), mu,
                      rescale_grad, regularization_coeff, rescale=rescale_grad != 1.0, decay=bool(decay),
                      nesterov=bool(use_nesterov))
        return param, velocity, master_param
    lr = _host_operand(learning_rate)
    rescale, coeff, mu_ = _host_constants(velocity.dtype, rescale_grad, regularization_coeff, mu)

    def rule(p, g, velocity, scratch, spare):
        if rescale_grad != 1.0:
            g = xp.multiply(g, rescale, out=scratch)
        if decay:
            xp.multiply(p, coeff, out=spare)
            g = xp.add(spare, g, out=spare)
        xp.multiply(velocity, mu_, out=velocity)
        xp.add(velocity, g, out=velocity)
        if use_nesterov:
            step = spare if g is scratch else scratch
            xp.multiply(velocity, mu_, out=step)
            xp.add(step, g, out=step)
            xp.multiply(step, lr, out=step)
        else:
            step = xp.multiply(velocity, lr, out=scratch)
        xp.subtract(p, step, out=p)

    _update_blockwise(xp, rule, param, master_param, velocity.dtype, grad, (velocity,), scratch=2)
    return param, velocity, master_param


def _adam_update(xp, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 master_param, beta1, beta2, epsilon, lr_ratio, coeff):
    """The Adam step shared by adam_ and adamw_ (coeff 0: no decoupled decay), in
    Paddle's form, with lr = learning_rate * lr_ratio:

        param *= 1 - lr * coeff
        m1 = beta1 * m1 + (1 - beta1) * g;  m2 = beta2 * m2 + (1 - beta2) * g * g
        param -= lr * sqrt(1 - beta2_pow) / (1 - beta1_pow)
                 * m1 / (sqrt(m2) + epsilon * sqrt(1 - beta2_pow))
        beta1_pow *= beta1;  beta2_pow *= beta2
    """
    if xp is not np and _fusable(moment1.dtype, learning_rate, beta1_pow, beta2_pow):
        # One fused call for the step, one for the beta powers (they advance after
        # every element has read them, so not in the step's kernel).
        state = moment1.dtype
        c1, b1, c2, b2, eps, ratio, decay = _state_scalars(state, _complement(state, beta1), beta1,
                                                           _complement(state, beta2), beta2, epsilon, lr_ratio, coeff)
        adam_step(xp, param, master_param, grad, moment1, moment2, _operand(learning_rate, param),
                  _operand(beta1_pow, param), _operand(beta2_pow, param), c1, b1, c2, b2, eps, ratio, decay,
                  ratio=lr_ratio != 1.0, decay=bool(coeff))
        if beta1_pow.shape == beta2_pow.shape:
            advance_pows(xp, beta1_pow, beta2_pow, b1, b2)
        else:  # one fused kernel writes arrays of one shape
            advance_pow(xp, beta1_pow, b1)
            advance_pow(xp, beta2_pow, b2)
        return
    lr = _scalar(learning_rate)
    if lr_ratio != 1.0:
        lr = lr * lr_ratio
    b1p, b2p = _scalar(beta1_pow), _scalar(beta2_pow)
    correction2 = xp.sqrt(1.0 - b2p)
    lr_t = lr * correction2 / (1.0 - b1p)
    eps_t = epsilon * correction2
    shrink = 1.0 - lr * coeff if coeff else None
    state = moment1.dtype
    c1, b1, c2, b2 = _rule_constants(xp, state, _complement(state, beta1), beta1, _complement(state, beta2), beta2)
    if xp is np:  # 0-d operands (see _host_constants): the scalars above keep their dtype
        lr_t, eps_t = np.asarray(lr_t), np.asarray(eps_t)
        if shrink is not None:
            shrink = np.asarray(shrink)

    def rule(p, g, moment1, moment2, scratch):
        if shrink is not None:
            xp.multiply(p, shrink, out=p)
        xp.multiply(g, c1, out=scratch)
        xp.multiply(moment1, b1, out=moment1)
        xp.add(moment1, scratch, out=moment1)
        xp.multiply(g, g, out=scratch)
        xp.multiply(scratch, c2, out=scratch)
        xp.multiply(moment2, b2, out=moment2)
        xp.add(moment2, scratch, out=moment2)
        xp.sqrt(moment2, out=scratch)
        xp.add(scratch, eps_t, out=scratch)
        xp.divide(moment1, scratch, out=scratch)
        xp.multiply(scratch, lr_t, out=scratch)
        xp.subtract(p, scratch, out=p)

    _update_blockwise(xp, rule, param, master_param, moment1.dtype, grad, (moment1, moment2))
    beta1_pow[(0,) * beta1_pow.ndim] = b1p * beta1
    beta2_pow[(0,) * beta2_pow.ndim] = b2p * beta2


@register_kernel("adam_", ALL_BACKENDS, FLOATS)
def adam_(ctx, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
          beta1, beta2, epsilon, multi_precision):
    """Adam with Paddle's epsilon (scaled by the bias correction); see _adam_update."""
    _adam_update(ctx.xp, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 master_param, beta1, beta2, epsilon, 1.0, 0.0)
    return param, moment1, moment2, beta1_pow, beta2_pow, master_param


@register_kernel("adamw_", ALL_BACKENDS, FLOATS)
def adamw_(ctx, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
           beta1, beta2, epsilon, lr_ratio, coeff, with_decay, multi_precision):
    """Adam with decoupled weight decay: param *= 1 - lr * lr_ratio * coeff first
    (when with_decay), and the step taken with lr * lr_ratio."""
    _adam_update(ctx.xp, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 master_param, beta1, beta2, epsilon, lr_ratio, coeff if with_decay else 0.0)
    return param, moment1, moment2, beta1_pow, beta2_pow, master_param


# -- SelectedRows gradients (an embedding's sparse gradient) ---------------------------
# Registered under the same names with kind=SELECTED_ROWS (Paddle's sgd_sr and the
# SelectedRows adam kernels): the gradient is a SelectedRows, everything else dense.
# Repeated rows are merged first (their blocks add up), so each touched row is
# read and written once.

SR = TensorKind.SELECTED_ROWS


def _merged_rows(xp, grad, dtype):
    """(unique rows, their summed blocks in dtype) of a SelectedRows gradient."""
    rows, inverse = xp.unique(grad.rows, return_inverse=True)
    value = grad.value.array
    merged = xp.zeros((len(rows),) + tuple(value.shape[1:]), dtype=dtype)
    scatter_add(xp, merged, inverse.reshape(-1), value.astype(dtype, copy=False))
    return rows, merged


def _write_rows(param, master_param, rows, block) -> None:
    """The updated rows into master_param (if any) and param, each in its dtype."""
    if master_param is not None:
        master_param[rows] = block
    param[rows] = block.astype(param.dtype, copy=False)


@register_kernel("sgd_", ALL_BACKENDS, FLOATS, kind=SR)
def sgd_selected_rows_(ctx, param, learning_rate, grad, master_param, multi_precision):
    """param[rows] -= learning_rate * grad's blocks: only the rows in grad change."""
    xp = ctx.xp
    rows, g = _merged_rows(xp, grad, learning_rate.dtype)
    source = param if master_param is None else master_param
    block = source[rows].astype(g.dtype, copy=False)
    block = block - g * _scalar(learning_rate)
    _write_rows(param, master_param, rows, block)
    return param, master_param


def _adam_selected_rows(xp, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                        master_param, beta1, beta2, epsilon, lr_ratio, coeff, lazy_mode):
    """Adam with a SelectedRows gradient. lazy_mode: only the rows in grad move
    (their moments, their decay and their step; Paddle's lazy_mode). Otherwise
    the dense rule with zero rows elsewhere: every moment decays, every row steps."""
    state = moment1.dtype
    rows, g = _merged_rows(xp, grad, state)
    if not lazy_mode:
        dense = xp.zeros(param.shape, dtype=state)
        dense[rows] = g
        _adam_update(xp, param, dense, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                     master_param, beta1, beta2, epsilon, lr_ratio, coeff)
        return
    lr = _scalar(learning_rate)
    if lr_ratio != 1.0:
        lr = lr * lr_ratio
    source = param if master_param is None else master_param
    p = source[rows].astype(state, copy=True)
    if coeff:
        p *= 1.0 - lr * coeff
    m1 = moment1[rows] * beta1 + g * _complement(state, beta1)
    m2 = moment2[rows] * beta2 + g * g * _complement(state, beta2)
    b1p, b2p = _scalar(beta1_pow), _scalar(beta2_pow)
    correction2 = xp.sqrt(1.0 - b2p)
    p -= (lr * correction2 / (1.0 - b1p)) * m1 / (xp.sqrt(m2) + epsilon * correction2)
    moment1[rows] = m1
    moment2[rows] = m2
    beta1_pow[(0,) * beta1_pow.ndim] = b1p * beta1
    beta2_pow[(0,) * beta2_pow.ndim] = b2p * beta2
    _write_rows(param, master_param, rows, p)


@register_kernel("adam_", ALL_BACKENDS, FLOATS, kind=SR)
def adam_selected_rows_(ctx, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                        master_param, beta1, beta2, epsilon, multi_precision, lazy_mode):
    """adam_ for a SelectedRows gradient; see _adam_selected_rows."""
    _adam_selected_rows(ctx.xp, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                        master_param, beta1, beta2, epsilon, 1.0, 0.0, lazy_mode)
    return param, moment1, moment2, beta1_pow, beta2_pow, master_param


@register_kernel("adamw_", ALL_BACKENDS, FLOATS, kind=SR)
def adamw_selected_rows_(ctx, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                         master_param, beta1, beta2, epsilon, lr_ratio, coeff, with_decay,
                         multi_precision, lazy_mode):
    """adamw_ for a SelectedRows gradient; with lazy_mode the decay too touches only grad's rows."""
    _adam_selected_rows(ctx.xp, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                        master_param, beta1, beta2, epsilon, lr_ratio, coeff if with_decay else 0.0,
                        lazy_mode)
    return param, moment1, moment2, beta1_pow, beta2_pow, master_param


# -- Adamax, Adagrad, Adadelta, RMSProp, Lamb (dense gradients) ----------------------
# Same design as above: the state is updated in place, the update computes on the
# master weight (or param itself), block by block on the host (_update_blockwise),
# with one scratch array (two for Adadelta, whose rule needs them). Lamb's trust
# ratio needs the norm of the whole update before any of it is applied, so it runs
# on whole arrays with two parameter-sized scratch arrays.


def _advance_pow(pow_acc, beta) -> None:
    """beta_pow *= beta, in place (the bias correction of the next step)."""
    index = (0,) * pow_acc.ndim
    pow_acc[index] = pow_acc[index] * beta


@register_kernel("adamax_", ALL_BACKENDS, FLOATS)
def adamax_(ctx, param, grad, learning_rate, moment, inf_norm, beta1_pow, master_param,
            beta1, beta2, epsilon, multi_precision):
    """Paddle's Adamax:

        moment = beta1 * moment + (1 - beta1) * g
        inf_norm = max(beta2 * inf_norm + epsilon, |g|)
        param -= lr / (1 - beta1_pow) * moment / inf_norm
        beta1_pow *= beta1
    """
    xp = ctx.xp
    if xp is not np and _fusable(moment.dtype, learning_rate, beta1_pow):
        c1, b1, b2, eps = _state_scalars(moment.dtype, _complement(moment.dtype, beta1), beta1, beta2, epsilon)
        adamax_step(xp, param, master_param, grad, moment, inf_norm, _operand(learning_rate, param),
                    _operand(beta1_pow, param), c1, b1, b2, eps)
        advance_pow(xp, beta1_pow, b1)
        return param, moment, inf_norm, beta1_pow, master_param
    lr_t = _scalar(learning_rate) / (1.0 - _scalar(beta1_pow))
    c1, b1, b2, eps = _rule_constants(xp, moment.dtype, _complement(moment.dtype, beta1), beta1, beta2, epsilon)
    if xp is np:  # a 0-d operand (see _host_constants), the same value
        lr_t = np.asarray(lr_t)

    def rule(p, g, moment, inf_norm, scratch):
        xp.multiply(g, c1, out=scratch)
        xp.multiply(moment, b1, out=moment)
        xp.add(moment, scratch, out=moment)
        xp.multiply(inf_norm, b2, out=inf_norm)
        xp.add(inf_norm, eps, out=inf_norm)
        xp.abs(g, out=scratch)
        xp.maximum(inf_norm, scratch, out=inf_norm)
        xp.divide(moment, inf_norm, out=scratch)
        xp.multiply(scratch, lr_t, out=scratch)
        xp.subtract(p, scratch, out=p)

    _update_blockwise(xp, rule, param, master_param, moment.dtype, grad, (moment, inf_norm))
    _advance_pow(beta1_pow, beta1)
    return param, moment, inf_norm, beta1_pow, master_param


@register_kernel("adagrad_", ALL_BACKENDS, FLOATS)
def adagrad_(ctx, param, grad, moment, learning_rate, master_param, epsilon, multi_precision):
    """Paddle's Adagrad: moment += g * g;  param -= lr * g / (sqrt(moment) + epsilon)."""
    xp = ctx.xp
    if xp is not np:
        adagrad_step(xp, param, master_param, grad, moment, _operand(learning_rate, param), epsilon)
        return param, moment, master_param
    lr = _host_operand(learning_rate)  # 0-d operands (see _host_constants), the same values
    eps, = _host_constants(moment.dtype, epsilon)

    def rule(p, g, moment, scratch):
        xp.multiply(g, g, out=scratch)
        xp.add(moment, scratch, out=moment)
        xp.sqrt(moment, out=scratch)
        xp.add(scratch, eps, out=scratch)
        xp.divide(g, scratch, out=scratch)
        xp.multiply(scratch, lr, out=scratch)
        xp.subtract(p, scratch, out=p)

    _update_blockwise(xp, rule, param, master_param, moment.dtype, grad, (moment,))
    return param, moment, master_param


@register_kernel("adadelta_", ALL_BACKENDS, FLOATS)
def adadelta_(ctx, param, grad, avg_squared_grad, avg_squared_update, learning_rate, master_param,
              rho, epsilon, multi_precision):
    """Paddle's Adadelta (with the learning rate, as Paddle >= 2.5 and torch):

        avg_squared_grad = rho * avg_squared_grad + (1 - rho) * g * g
        update = sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * g
        avg_squared_update = rho * avg_squared_update + (1 - rho) * update * update
        param -= lr * update
    """
    xp = ctx.xp
    if xp is not np and _fusable(avg_squared_grad.dtype, learning_rate):
        adadelta_step(xp, param, master_param, grad, avg_squared_grad, avg_squared_update,
                      _operand(learning_rate, param),
                      *_state_scalars(avg_squared_grad.dtype, _complement(avg_squared_grad.dtype, rho), rho, epsilon))
        return param, avg_squared_grad, avg_squared_update, master_param
    lr = _host_operand(learning_rate) if xp is np else _scalar(learning_rate)
    state = avg_squared_grad.dtype
    c, r, eps = _rule_constants(xp, state, _complement(state, rho), rho, epsilon)

    def rule(p, g, avg_squared_grad, avg_squared_update, scratch, denom):
        xp.multiply(g, g, out=scratch)
        xp.multiply(scratch, c, out=scratch)
        xp.multiply(avg_squared_grad, r, out=avg_squared_grad)
        xp.add(avg_squared_grad, scratch, out=avg_squared_grad)
        xp.add(avg_squared_grad, eps, out=denom)
        xp.add(avg_squared_update, eps, out=scratch)
        xp.divide(scratch, denom, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.multiply(scratch, g, out=scratch)          # update
        xp.multiply(scratch, scratch, out=denom)
        xp.multiply(denom, c, out=denom)
        xp.multiply(avg_squared_update, r, out=avg_squared_update)
        xp.add(avg_squared_update, denom, out=avg_squared_update)
        xp.multiply(scratch, lr, out=scratch)
        xp.subtract(p, scratch, out=p)

    _update_blockwise(xp, rule, param, master_param, avg_squared_grad.dtype, grad,
                      (avg_squared_grad, avg_squared_update), scratch=2)
    return param, avg_squared_grad, avg_squared_update, master_param


@register_kernel("rmsprop_", ALL_BACKENDS, FLOATS)
def rmsprop_(ctx, param, mean_square, grad, moment, learning_rate, mean_grad, master_param,
             epsilon, decay, momentum, centered, multi_precision):
    """Paddle's RMSProp (epsilon inside the square root, the learning rate inside
    the momentum buffer), with rho = ``decay``:

        mean_square = rho * mean_square + (1 - rho) * g * g
        mean_grad = rho * mean_grad + (1 - rho) * g                 (centered)
        moment = momentum * moment + lr * g / sqrt(mean_square - mean_grad^2 + epsilon)
                                          (sqrt(mean_square + epsilon) when not centered)
        param -= moment
    """
    xp = ctx.xp
    if xp is not np and _fusable(mean_square.dtype, learning_rate):
        rmsprop_step(xp, param, master_param, grad, mean_square, moment, mean_grad if centered else None,
                     _operand(learning_rate, param), *_state_scalars(mean_square.dtype, _complement(
                         mean_square.dtype, decay), decay, epsilon, momentum),
                     centered=bool(centered))
        return param, moment, mean_square, mean_grad, master_param
    lr = _host_operand(learning_rate) if xp is np else _scalar(learning_rate)
    state = mean_square.dtype
    c, rho, eps, mu = _rule_constants(xp, state, _complement(state, decay), decay, epsilon, momentum)

    def rule(p, g, mean_square, moment, mean_grad, scratch):
        xp.multiply(g, g, out=scratch)
        xp.multiply(scratch, c, out=scratch)
        xp.multiply(mean_square, rho, out=mean_square)
        xp.add(mean_square, scratch, out=mean_square)
        if centered:
            xp.multiply(g, c, out=scratch)
            xp.multiply(mean_grad, rho, out=mean_grad)
            xp.add(mean_grad, scratch, out=mean_grad)
            xp.multiply(mean_grad, mean_grad, out=scratch)
            xp.subtract(mean_square, scratch, out=scratch)
            xp.add(scratch, eps, out=scratch)
        else:
            xp.add(mean_square, eps, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.divide(g, scratch, out=scratch)
        xp.multiply(scratch, lr, out=scratch)
        xp.multiply(moment, mu, out=moment)
        xp.add(moment, scratch, out=moment)
        xp.subtract(p, moment, out=p)

    _update_blockwise(xp, rule, param, master_param, mean_square.dtype, grad,
                      (mean_square, moment, mean_grad))
    return param, moment, mean_square, mean_grad, master_param


@register_kernel("lamb_", ALL_BACKENDS, FLOATS)
def lamb_(ctx, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
          weight_decay, beta1, beta2, epsilon, always_adapt, multi_precision):
    """Paddle's Lamb, one trust ratio per parameter:

        m1 = beta1 * m1 + (1 - beta1) * g;  m2 = beta2 * m2 + (1 - beta2) * g * g
        r = (m1 / (1 - beta1_pow)) / (sqrt(m2 / (1 - beta2_pow)) + epsilon) + weight_decay * param
        trust = ||param|| / ||r||  (1 when either norm is 0, and, as Paddle, when
                                    weight_decay is 0 unless always_adapt)
        param -= lr * trust * r;  beta1_pow *= beta1;  beta2_pow *= beta2
    """
    xp = ctx.xp
    p = _compute_array(param, master_param, moment1.dtype)
    g = _in_dtype(grad, p.dtype)
    b1p, b2p = _scalar(beta1_pow), _scalar(beta2_pow)
    state = moment1.dtype
    c1, b1, c2, b2, eps = _rule_constants(xp, state, _complement(state, beta1), beta1, _complement(state, beta2), beta2,
                                          epsilon)
    d1, d2 = 1.0 - b1p, 1.0 - b2p
    if xp is np:  # 0-d operands (see _host_constants), the same values
        d1, d2 = np.asarray(d1), np.asarray(d2)
    scratch = xp.multiply(g, c1, out=xp.empty_like(g))  # an array for a 0-d param too
    xp.multiply(moment1, b1, out=moment1)
    xp.add(moment1, scratch, out=moment1)
    xp.multiply(g, g, out=scratch)
    xp.multiply(scratch, c2, out=scratch)
    xp.multiply(moment2, b2, out=moment2)
    xp.add(moment2, scratch, out=moment2)
    xp.divide(moment2, d2, out=scratch)
    xp.sqrt(scratch, out=scratch)
    xp.add(scratch, eps, out=scratch)
    xp.divide(moment1, scratch, out=scratch)
    xp.divide(scratch, d1, out=scratch)
    if weight_decay:
        decay = xp.multiply(p, weight_decay)
        xp.add(scratch, decay, out=scratch)
        del decay
    if weight_decay > 0 or always_adapt:  # Paddle adapts only then (always_adapt=False by default)
        flat_p, flat_r = p.reshape(-1), scratch.reshape(-1)
        p_norm = xp.sqrt(xp.dot(flat_p, flat_p))
        r_norm = xp.sqrt(xp.dot(flat_r, flat_r))
        ok = (p_norm > 0) & (r_norm > 0)
        trust = xp.where(ok, p_norm / xp.where(ok, r_norm, 1.0), 1.0).astype(p.dtype)
        xp.multiply(scratch, _scalar(learning_rate) * trust, out=scratch)
    else:
        xp.multiply(scratch, _scalar(learning_rate), out=scratch)
    xp.subtract(p, scratch, out=p)
    _advance_pow(beta1_pow, beta1)
    _advance_pow(beta2_pow, beta2)
    _write_back(xp, param, p)
    return param, moment1, moment2, beta1_pow, beta2_pow, master_param


@register_kernel("lars_momentum_", ALL_BACKENDS, FLOATS)
def lars_momentum_(ctx, param, grad, velocity, learning_rate, master_param, mu, lars_coeff,
                   lars_weight_decay, epsilon, multi_precision, rescale_grad):
    """Paddle's LARS momentum, one local learning rate per parameter, with
    g = rescale_grad * grad and wd = lars_weight_decay:

        local_lr = lr * lars_coeff * ||param|| / (||g|| + wd * ||param|| + epsilon)
                   (lr itself when wd is 0 or either norm is 0, as Paddle)
        velocity = mu * velocity + local_lr * (g + wd * param);  param -= velocity

    The norms stay on the device (0-d arrays), so a GPU update never waits for it.
    """
    xp = ctx.xp
    dtype = velocity.dtype
    p = _compute_array(param, master_param, dtype)
    mu_, coeff, decay, eps, rescale = _rule_constants(xp, dtype, mu, lars_coeff, lars_weight_decay, epsilon,
                                                      rescale_grad)
    # A new array (the gradient is never written), also for a 0-d param.
    g = xp.multiply(_in_dtype(grad, dtype), rescale, out=xp.empty(p.shape, dtype))
    lr = learning_rate.reshape(()).astype(dtype, copy=False)
    if lars_weight_decay > 0:
        flat_p, flat_g = p.reshape(-1), g.reshape(-1)
        p_norm = xp.sqrt(xp.dot(flat_p, flat_p))
        g_norm = xp.sqrt(xp.dot(flat_g, flat_g))
        ok = (p_norm > 0) & (g_norm > 0)
        denom = g_norm + decay * p_norm + eps
        local_lr = xp.where(ok, lr * coeff * p_norm / xp.where(ok, denom, 1.0), lr).astype(dtype)
        step = xp.multiply(p, decay, out=xp.empty(p.shape, dtype))
        xp.add(step, g, out=step)
    else:
        local_lr, step = lr, g
    xp.multiply(step, local_lr, out=step)
    xp.multiply(velocity, mu_, out=velocity)
    xp.add(velocity, step, out=velocity)
    xp.subtract(p, velocity, out=p)
    _write_back(xp, param, p)
    return param, velocity, master_param


# -- nadam_, radam_, asgd_, rprop_ ----------------------------------------------------
# Plain ufunc calls over ``ctx.xp`` (no fused bodies): on the host block by block with
# reused scratch (_update_blockwise), on a GPU once on the whole arrays. Their
# one-element state (learning rate, powers, products) is read on the device: on a GPU
# the per-step scalars are 0-d device arrays, so nothing waits for the device.

def _scalar_operand(xp, value):
    """A per-step scalar computed from one-element state, as a rule's operand: a 0-d
    host array on the host (see _host_constants), the 0-d device array on a GPU."""
    return np.asarray(value) if xp is np else value


@register_kernel("nadam_", ALL_BACKENDS, FLOATS)
def nadam_(ctx, param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2,
           master_param, beta1, beta2, epsilon, momentum_decay, multi_precision):
    """Paddle's NAdam, with psi = ``momentum_decay``:

        momentum_decay_pow *= 0.96;  beta2_pow *= beta2           (0.96^t, beta2^t)
        mu_t = beta1 * (1 - 0.5 * momentum_decay_pow^psi)
        mu_next = beta1 * (1 - 0.5 * momentum_decay_pow^psi * 0.96^psi)
        mu_product *= mu_t                                        (prod of mu_1..mu_t)
        m1 = beta1 * m1 + (1 - beta1) * g;  m2 = beta2 * m2 + (1 - beta2) * g * g
        m1_hat = mu_next * m1 / (1 - mu_product * mu_next) + (1 - mu_t) * g / (1 - mu_product)
        param -= lr * m1_hat / (sqrt(m2 / (1 - beta2_pow)) + epsilon)
    """
    xp = ctx.xp
    dtype = moment1.dtype
    index = (0,) * momentum_decay_pow.ndim
    momentum_decay_pow[index] = momentum_decay_pow[index] * dtype.type(0.96)
    _advance_pow(beta2_pow, dtype.type(beta2))
    decay_pow, b2p = _scalar(momentum_decay_pow), _scalar(beta2_pow)
    b1, psi = dtype.type(beta1), dtype.type(momentum_decay)
    half_pow = dtype.type(0.5) * decay_pow ** psi
    mu_t = b1 * (dtype.type(1) - half_pow)
    mu_next = b1 * (dtype.type(1) - half_pow * dtype.type(0.96) ** psi)
    index = (0,) * mu_product.ndim
    mu_product[index] = mu_product[index] * mu_t
    product = _scalar(mu_product)
    one = dtype.type(1)
    a = _scalar_operand(xp, mu_next / (one - product * mu_next))
    b = _scalar_operand(xp, (one - mu_t) / (one - product))
    c = _scalar_operand(xp, one / (one - b2p))
    lr = _host_operand(learning_rate) if xp is np else _scalar(learning_rate)
    c1, cb1, c2, cb2, eps = _rule_constants(xp, dtype, _complement(dtype, beta1), beta1, _complement(dtype, beta2),
                                            beta2, epsilon)

    def rule(p, g, moment1, moment2, s1, s2):
        xp.multiply(g, c1, out=s1)
        xp.multiply(moment1, cb1, out=moment1)
        xp.add(moment1, s1, out=moment1)
        xp.multiply(g, g, out=s1)
        xp.multiply(s1, c2, out=s1)
        xp.multiply(moment2, cb2, out=moment2)
        xp.add(moment2, s1, out=moment2)
        xp.multiply(moment1, a, out=s2)
        xp.multiply(g, b, out=s1)
        xp.add(s2, s1, out=s2)                         # m1_hat
        xp.multiply(moment2, c, out=s1)
        xp.sqrt(s1, out=s1)
        xp.add(s1, eps, out=s1)
        xp.divide(s2, s1, out=s2)
        xp.multiply(s2, lr, out=s2)
        xp.subtract(p, s2, out=p)

    _update_blockwise(xp, rule, param, master_param, dtype, grad, (moment1, moment2), scratch=2)
    return param, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2, master_param


@register_kernel("radam_", ALL_BACKENDS, FLOATS)
def radam_(ctx, param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2, master_param,
           beta1, beta2, epsilon, multi_precision):
    """Paddle's RAdam (rectified Adam); ``rho`` holds t * beta2^t / (1 - beta2^t):

        beta1_pow *= beta1;  beta2_pow *= beta2
        rho = (rho * (beta2 - beta2_pow) + beta2_pow) / (1 - beta2_pow)
        m1 = beta1 * m1 + (1 - beta1) * g;  m2 = beta2 * m2 + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 * rho
        rho_t > 5: r = sqrt((rho_t - 4) (rho_t - 2) rho_inf / ((rho_inf - 4) (rho_inf - 2) rho_t))
                   param -= lr * m1 / (1 - beta1_pow) * r * sqrt(1 - beta2_pow) / (sqrt(m2) + epsilon)
        otherwise: param -= lr * m1 / (1 - beta1_pow)
    """
    xp = ctx.xp
    dtype = moment1.dtype
    one, two = dtype.type(1), dtype.type(2)
    b2 = dtype.type(beta2)
    _advance_pow(beta1_pow, dtype.type(beta1))
    _advance_pow(beta2_pow, b2)
    b1p, b2p = _scalar(beta1_pow), _scalar(beta2_pow)
    index = (0,) * rho.ndim
    rho[index] = (rho[index] * (b2 - b2p) + b2p) / (one - b2p)
    rho_inf = two / (one - b2) - one
    rho_t = rho_inf - two * _scalar(rho)
    # The step divides by (sqrt(m2) + epsilon) * scale + shift: (1/(r sqrt(1 - beta2_pow)), epsilon
    # times that) when rectified, (0, 1) otherwise. rho_t <= rho_inf, so beta2 with rho_inf <= 5
    # never rectifies (and its r would divide by zero).
    if rho_inf > 5:
        ratio = (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
        if xp is np:
            rectified = bool(rho_t > 5)
            scale = one / (np.sqrt(ratio) * np.sqrt(one - b2p)) if rectified else dtype.type(0)
        else:  # chosen on the device: no host read
            rectified = rho_t > 5
            root = xp.sqrt(xp.where(rectified, ratio, one) * (one - b2p))
            scale = xp.where(rectified, one / root, dtype.type(0))
    else:
        scale = dtype.type(0) if xp is np else xp.zeros((), dtype)
    eps = dtype.type(epsilon)
    shift = (scale * eps if scale > 0 else one) if xp is np else xp.where(scale > 0, scale * eps, one)
    scale, shift = _scalar_operand(xp, scale), _scalar_operand(xp, shift)
    step = _scalar_operand(xp, _scalar(learning_rate) / (one - b1p))
    c1, cb1, c2, cb2 = _rule_constants(xp, dtype, _complement(dtype, beta1), beta1, _complement(dtype, beta2), beta2)

    def rule(p, g, moment1, moment2, s):
        xp.multiply(g, c1, out=s)
        xp.multiply(moment1, cb1, out=moment1)
        xp.add(moment1, s, out=moment1)
        xp.multiply(g, g, out=s)
        xp.multiply(s, c2, out=s)
        xp.multiply(moment2, cb2, out=moment2)
        xp.add(moment2, s, out=moment2)
        xp.sqrt(moment2, out=s)
        xp.multiply(s, scale, out=s)
        xp.add(s, shift, out=s)
        xp.divide(moment1, s, out=s)
        xp.multiply(s, step, out=s)
        xp.subtract(p, s, out=p)

    _update_blockwise(xp, rule, param, master_param, dtype, grad, (moment1, moment2))
    return param, beta1_pow, beta2_pow, rho, moment1, moment2, master_param


@register_kernel("asgd_", ALL_BACKENDS, FLOATS)
def asgd_(ctx, param, grad, learning_rate, d, ys, m, master_param, batch_num, multi_precision):
    """Paddle's ASGD (stochastic average gradient over ``batch_num`` slots): with
    k = m (the steps taken so far), y = ys[k % batch_num] and n = min(k + 1, batch_num),

        d = d - y + g;  y = g;  param -= lr / n * d;  m = k + 1

    The slot index is read from m on the host (on a GPU one small read per
    update, as Paddle's ``.item()``)."""
    xp = ctx.xp
    dtype = d.dtype
    k = int(m[(0,) * m.ndim])
    y = ys[k % batch_num, ...]  # a view, also of a 0-d param's slot
    n = dtype.type(min(k + 1, batch_num))
    factor = _scalar_operand(xp, _scalar(learning_rate) / n)

    def rule(p, g, d, y, s):
        xp.subtract(d, y, out=d)
        xp.add(d, g, out=d)
        xp.copyto(y, g)
        xp.multiply(d, factor, out=s)
        xp.subtract(p, s, out=p)

    _update_blockwise(xp, rule, param, master_param, dtype, grad, (d, y))
    m[(0,) * m.ndim] = k + 1
    return param, d, ys, m, master_param


@register_kernel("rprop_", ALL_BACKENDS, FLOATS)
def rprop_(ctx, param, grad, prev, learning_rate, master_param, learning_rate_range, etas, multi_precision):
    """Paddle's Rprop, element by element, with ``learning_rate`` a per-element step size:

        g * prev > 0: eta = eta_plus;  g * prev < 0: eta = eta_minus, g = 0;  else eta = 1
        learning_rate = clip(learning_rate * eta, *learning_rate_range)
        param -= sign(g) * learning_rate;  prev = g
    """
    xp = ctx.xp
    dtype = prev.dtype
    lo, hi, eta_minus, eta_plus, one, zero = _rule_constants(
        xp, dtype, float(learning_rate_range[0]), float(learning_rate_range[1]), float(etas[0]),
        float(etas[1]), 1.0, 0.0)

    def rule(p, g, prev, rates, product, eta):
        mask = _host_scratch(np.bool_, p.shape)[0] if xp is np else xp.empty(p.shape, np.bool_)
        xp.multiply(g, prev, out=product)
        xp.copyto(eta, one)
        xp.greater(product, 0, out=mask)
        xp.copyto(eta, eta_plus, where=mask)
        xp.less(product, 0, out=mask)
        xp.copyto(eta, eta_minus, where=mask)
        xp.copyto(prev, g)
        xp.copyto(prev, zero, where=mask)
        xp.multiply(rates, eta, out=rates)
        xp.minimum(rates, hi, out=rates)
        xp.maximum(rates, lo, out=rates)
        xp.sign(prev, out=product)
        xp.multiply(product, rates, out=product)
        xp.subtract(p, product, out=p)

    _update_blockwise(xp, rule, param, master_param, dtype, grad, (prev, learning_rate), scratch=2)
    return param, prev, learning_rate, master_param
