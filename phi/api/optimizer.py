"""phi API of the fused optimizer ops: ``sgd_``, ``momentum_``, ``adam_``, ``adamw_``,
``adamax_``, ``adagrad_``, ``adadelta_``, ``rmsprop_``, ``lamb_``, ``lars_momentum_``,
``nadam_``, ``radam_``, ``asgd_``, ``rprop_``.

Paddle's ops of these names, with Paddle's argument order and semantics (the
arguments only Paddle's static graph reads, such as ``skip_update`` and
``use_global_beta_pow``, are left out). ``sgd_``, ``adam_`` and ``adamw_`` also
take a SelectedRows ``grad`` (an embedding's sparse gradient), which selects
their kernels of kind SELECTED_ROWS; Adam's ``lazy_mode`` applies to it.
They are written by hand in the shape of the generated API (InferMeta, then
the dispatch table's kernel, then the optional InferMeta check) because each
updates several tensors in place, which the generated API's one inplace
output does not express.

Each function checks every argument (InferMeta) and that every tensor lives
on param's device before anything is written (a call whose signature --
every tensor's type, dtype and shape, on a GPU its device too, every
attribute's type and value -- already passed those checks skips them, as the
generated API does; with ``FLAGS.check_infer_meta`` its result is still verified), runs the kernel on the existing
buffers, bumps the version of every buffer it changed (a graph that saved the
old parameter then refuses to run backward) and returns the updated tensors,
which are the tensors it was given.

>>> import numpy as np
>>> from phi import DenseTensor
>>> from phi.api import sgd_
>>> p = DenseTensor(np.ones(3))
>>> _ = sgd_(p, DenseTensor(np.array(0.5)), DenseTensor(np.full(3, 2.0)))
>>> p.array
array([0., 0., 0.])
"""
from __future__ import annotations

import contextlib

import numpy as np

from .. import infermeta as _im
from ..backends.gpu_context import import_cupy
from ..common.tensor_kind import TensorKind
from ..core import KERNELS, DenseTensor, MetaTensor, PhiError
from ..core.selected_rows import SelectedRows
from ..core.errors import InvalidArgumentError, describe_tensor
from .support import FLAGS, verify_infer_meta

_sgd_kernel = KERNELS.dispatch_table("sgd_")
_momentum_kernel = KERNELS.dispatch_table("momentum_")
_adam_kernel = KERNELS.dispatch_table("adam_")
_adamw_kernel = KERNELS.dispatch_table("adamw_")
# A SelectedRows gradient (an embedding's sparse gradient) selects these: only its rows update.
_sgd_rows_kernel = KERNELS.dispatch_table("sgd_", TensorKind.SELECTED_ROWS)
_adam_rows_kernel = KERNELS.dispatch_table("adam_", TensorKind.SELECTED_ROWS)
_adamw_rows_kernel = KERNELS.dispatch_table("adamw_", TensorKind.SELECTED_ROWS)


_sgd_seen = KERNELS.signature_cache("sgd_")
_momentum_seen = KERNELS.signature_cache("momentum_")
_adam_seen = KERNELS.signature_cache("adam_")
_adamw_seen = KERNELS.signature_cache("adamw_")


def _tensor_key(t):
    """What the checks read of one tensor: its type and its array's type, dtype
    and shape (raises AttributeError or PhiError for a tensor without an array)."""
    return None if t is None else (type(t), type(a := t.array), a.dtype, a.shape)


def _checked_metas(op: str, names: tuple, tensors: tuple, attrs: tuple, infer_meta, count: int,
                   rows_allowed: bool = False) -> tuple:
    """The ``count`` output metas of a call whose tensors passed the device check
    and ``infer_meta(*tensors, *attrs, *metas)``; a PhiError is raised naming
    ``op`` and its arguments.

    ``sgd_``, ``momentum_``, ``adam_``, ``adamw_`` and the ops of ``_run_fused``
    (adamax_, adagrad_, adadelta_, rmsprop_, lamb_) call this only for a call
    whose signature they do not remember: what the checks read, built inline
    as one flat tuple -- each tensor's type and its array's type, dtype and
    shape (None for a tensor not given), each attribute's type and value (1,
    1.0 and True compare equal), and for a call on a GPU every tensor's device
    (_device_ids), which the device check reads too -- and remembered (with the
    kernel and these metas) once the checks pass. A SelectedRows has no array
    and an unhashable attribute no hash, so those calls take every check."""
    metas = tuple(MetaTensor() for _ in range(count))
    try:
        _check_dense_on_device(op, names, tensors, rows_allowed=rows_allowed)
        infer_meta(*tensors, *attrs, *metas)
    except PhiError as error:
        raise error.in_op(op, **dict(zip(names, tensors))) from None
    return metas


def _check_dense_on_device(op: str, names: tuple, tensors: tuple, rows_allowed: bool = False) -> None:
    """Every tensor is a DenseTensor on the first one's (param's) device; array
    types and device ids are compared instead of places, which are built on
    each read. With ``rows_allowed`` the gradient may be a SelectedRows (its
    value is checked)."""
    ref = tensors[0].array
    ref_type = type(ref)
    on_host = ref_type is np.ndarray
    for name, tensor in zip(names, tensors):
        if name == "grad" and type(tensor) is SelectedRows and rows_allowed:
            tensor = tensor.value
        if tensor is not None and (type(tensor) is not DenseTensor or type(tensor.array) is not ref_type
                                   or (not on_host and tensor.array.device != ref.device)):
            _raise_not_dense_on_device(op, names, tensors, rows_allowed)


def _raise_not_dense_on_device(op: str, names: tuple, tensors: tuple, rows_allowed: bool = False) -> None:
    param = tensors[0]
    for name, tensor in zip(names, tensors):
        if tensor is None or (rows_allowed and name == "grad" and type(tensor) is SelectedRows
                              and tensor.place == param.place):
            continue
        if type(tensor) is not DenseTensor:
            raise InvalidArgumentError(
                f"{op}: argument '{name}' expected a dense tensor, got a {tensor.kind} tensor "
                f"{describe_tensor(tensor)}; convert it first (phi.api.selected_rows_to_dense)")
        if tensor.place != param.place:
            raise InvalidArgumentError(
                f"{op}: argument '{name}' expected a tensor on {param.place} like 'param', got "
                f"one on {tensor.place}")


def _device_ids(tensors) -> tuple:
    """The device id of each tensor's array (None for a tensor not given or on
    the host): the part of a GPU call's signature that _check_dense_on_device
    reads, so that a remembered GPU call implies its tensors share a device.
    The host's signatures leave it out (their arrays have no device to tell)."""
    return tuple([None if t is None or type(a := t.array) is np.ndarray else a.device.id for t in tensors])


def _array(tensor):
    return None if tensor is None else tensor.array


def _grad_input(grad, dense_table, rows_table, p):
    """(kernel, what it takes for grad): the dense kernel and grad's array, or the
    SelectedRows kernel and the SelectedRows itself."""
    if type(grad) is DenseTensor:
        return dense_table[type(p), p.dtype], grad.array
    return rows_table[type(p), p.dtype], grad


_SGD_INPUTS = ("param", "learning_rate", "grad", "master_param")
_MOMENTUM_INPUTS = ("param", "grad", "velocity", "learning_rate", "master_param")
_ADAM_INPUTS = ("param", "grad", "learning_rate", "moment1", "moment2", "beta1_pow", "beta2_pow",
                "master_param")


def sgd_(param, learning_rate, grad, master_param=None, multi_precision: bool = False):
    """param -= learning_rate * grad, in place; returns (param, master_param).

    A SelectedRows grad updates only its rows (repeats add up). With
    ``master_param`` (the float32 copy of a float16 param) the update is made
    on it and rounded into param.
    """
    try:  # what the checks read (see _checked_metas); a remembered call passed them
        p, lr, g = param.array, learning_rate.array, grad.array
        signature = (type(param), type(p), p.dtype, p.shape, type(learning_rate), type(lr), lr.dtype, lr.shape,
                     type(grad), type(g), g.dtype, g.shape,
                     None if master_param is None else _tensor_key(master_param),
                     type(multi_precision), multi_precision)
        if type(p) is not np.ndarray:
            signature += _device_ids((param, learning_rate, grad, master_param))
        seen = _sgd_seen.get(signature)
    except (AttributeError, TypeError, PhiError):  # a SelectedRows' .array raises PhiError
        signature = seen = None
    if seen is not None:
        kernel, metas = seen
    else:
        metas = _checked_metas("sgd_", _SGD_INPUTS, (param, learning_rate, grad, master_param),
                               (multi_precision,), _im.sgd_infer_meta, 2, rows_allowed=True)
        p, lr = param.array, learning_rate.array
        kernel, g = _grad_input(grad, _sgd_kernel, _sgd_rows_kernel, p)
        if signature is not None:
            _sgd_seen.remember(signature, (kernel, metas))
    kernel(p, lr, g, None if master_param is None else master_param.array, multi_precision)
    if FLAGS.check_infer_meta:
        verify_infer_meta("sgd_", metas, [p, _array(master_param)])
    param.bump_version()
    if master_param is not None:
        master_param.bump_version()
    return param, master_param


def momentum_(param, grad, velocity, learning_rate, master_param=None, mu: float = 0.9,
              use_nesterov: bool = False, regularization_method: str = "",
              regularization_coeff: float = 0.0, multi_precision: bool = False,
              rescale_grad: float = 1.0):
    """Paddle's momentum update of param and velocity, in place; returns
    (param, velocity, master_param). See phi.kernels.optimizer.momentum_."""
    try:  # what the checks read (see _checked_metas); a remembered call passed them
        p, g, v, lr = param.array, grad.array, velocity.array, learning_rate.array
        signature = (type(param), type(p), p.dtype, p.shape, type(grad), type(g), g.dtype, g.shape,
                     type(velocity), type(v), v.dtype, v.shape, type(learning_rate), type(lr), lr.dtype,
                     lr.shape, None if master_param is None else _tensor_key(master_param), type(mu),
                     type(use_nesterov), type(regularization_method), type(regularization_coeff),
                     type(multi_precision), type(rescale_grad), mu, use_nesterov, regularization_method,
                     regularization_coeff, multi_precision, rescale_grad)
        if type(p) is not np.ndarray:
            signature += _device_ids((param, grad, velocity, learning_rate, master_param))
        seen = _momentum_seen.get(signature)
    except (AttributeError, TypeError, PhiError):
        signature = seen = None
    if seen is not None:
        kernel, metas = seen
    else:
        metas = _checked_metas("momentum_", _MOMENTUM_INPUTS, (param, grad, velocity, learning_rate, master_param),
                               (mu, use_nesterov, regularization_method, regularization_coeff, multi_precision,
                                rescale_grad), _im.momentum_infer_meta, 3)
        p, g, v, lr = param.array, grad.array, velocity.array, learning_rate.array
        kernel = _momentum_kernel[type(p), p.dtype]
        if signature is not None:
            _momentum_seen.remember(signature, (kernel, metas))
    master = None if master_param is None else master_param.array
    kernel(p, g, v, lr, master, mu, use_nesterov, regularization_method, regularization_coeff,
           multi_precision, rescale_grad)
    if FLAGS.check_infer_meta:
        verify_infer_meta("momentum_", metas, [p, v, master])
    param.bump_version()
    velocity.bump_version()
    if master_param is not None:
        master_param.bump_version()
    return param, velocity, master_param


def _bumped(outs) -> tuple:
    """``outs`` after bumping the version of each that is not None (the tensors an
    optimizer op wrote)."""
    for tensor in outs:
        if tensor is not None:
            tensor.bump_version()
    return outs


def _adam_signature(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param,
                    attrs: tuple):
    """The signature (see _checked_metas) of an adam_ or adamw_ call, built flat;
    raises for a tensor without an array and, at lookup, for an unhashable attribute."""
    p, g, lr, m1, m2, b1, b2 = (param.array, grad.array, learning_rate.array, moment1.array, moment2.array,
                                beta1_pow.array, beta2_pow.array)
    signature = (type(param), type(p), p.dtype, p.shape, type(grad), type(g), g.dtype, g.shape,
                 type(learning_rate), type(lr), lr.dtype, lr.shape, type(moment1), type(m1), m1.dtype, m1.shape,
                 type(moment2), type(m2), m2.dtype, m2.shape, type(beta1_pow), type(b1), b1.dtype, b1.shape,
                 type(beta2_pow), type(b2), b2.dtype, b2.shape,
                 None if master_param is None else _tensor_key(master_param), *map(type, attrs), *attrs)
    if type(p) is not np.ndarray:
        signature += _device_ids((param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                                  master_param))
    return signature


def _adam_family(op, seen_cache, dense_kernel, rows_kernel, infer_meta, tensors, attrs, lazy_mode):
    """adam_'s and adamw_'s call: the remembered signature or the full checks,
    the kernel, the InferMeta check under the flag and the outputs' version bumps.
    ``attrs`` are the op's attributes after master_param, in its order; lazy_mode is
    read only for a SelectedRows gradient."""
    param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param = tensors
    try:  # a remembered call passed the checks
        signature = _adam_signature(*tensors, attrs)
        seen = seen_cache.get(signature)
    except (AttributeError, TypeError, PhiError):
        signature = seen = None
    lazy = {}
    if seen is not None:
        kernel, metas = seen
        g = grad.array
    else:
        metas = _checked_metas(op, _ADAM_INPUTS, tensors, attrs, infer_meta, 6, rows_allowed=True)
        p = param.array
        kernel, g = _grad_input(grad, dense_kernel, rows_kernel, p)
        if g is grad:
            lazy["lazy_mode"] = bool(lazy_mode)
        elif signature is not None:
            seen_cache.remember(signature, (kernel, metas))
    kernel(param.array, g, learning_rate.array, moment1.array, moment2.array, beta1_pow.array,
           beta2_pow.array, _array(master_param), *attrs, **lazy)
    outs = (param, moment1, moment2, beta1_pow, beta2_pow, master_param)
    if FLAGS.check_infer_meta:
        verify_infer_meta(op, metas, [_array(t) for t in outs])
    return _bumped(outs)


def adam_(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param=None,
          beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
          multi_precision: bool = False, lazy_mode: bool = False):
    """Paddle's Adam update of param, both moments and both beta powers, in place;
    returns them and master_param. See phi.kernels.optimizer._adam_update. A
    SelectedRows grad with ``lazy_mode`` moves only its rows (their moments
    too); without, it updates as its dense form would."""
    return _adam_family("adam_", _adam_seen, _adam_kernel, _adam_rows_kernel, _im.adam_infer_meta,
                        (param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param),
                        (beta1, beta2, epsilon, multi_precision), lazy_mode)


def adamw_(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param=None,
           beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8, lr_ratio: float = 1.0,
           coeff: float = 0.01, with_decay: bool = False, multi_precision: bool = False,
           lazy_mode: bool = False):
    """Paddle's AdamW: adam_ after param *= 1 - learning_rate * lr_ratio * coeff
    (when with_decay), the step taken with learning_rate * lr_ratio. A
    SelectedRows grad with ``lazy_mode`` decays and moves only its rows."""
    return _adam_family("adamw_", _adamw_seen, _adamw_kernel, _adamw_rows_kernel, _im.adamw_infer_meta,
                        (param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param),
                        (beta1, beta2, epsilon, lr_ratio, coeff, with_decay, multi_precision), lazy_mode)


# -- multi-tensor storage ------------------------------------------------------------

def _device(tensor):
    """A context with the device of ``tensor``'s array current (nothing on the host)."""
    if type(tensor.array) is np.ndarray:
        return contextlib.nullcontext()
    return import_cupy().cuda.Device(tensor.place.device_id)


def flat_compatible(members) -> bool:
    """Whether ``members`` (phi tensors) are dense, C-contiguous and of one array
    type, dtype and device: what :class:`FlatBuffer` takes."""
    first = members[0]
    if type(first) is not DenseTensor:
        return False
    array = first.array
    array_type, dtype, on_host = type(array), array.dtype, type(array) is np.ndarray
    for member in members:
        if type(member) is not DenseTensor:
            return False
        other = member.array
        if type(other) is not array_type or other.dtype != dtype or not other.flags.c_contiguous:
            return False
        if not on_host and other.device != array.device:
            return False
    return True


def same_layout(x, like) -> bool:
    """Whether ``x`` is a dense tensor of ``like``'s array type, dtype and shape."""
    if type(x) is not DenseTensor:
        return False
    a, b = x.array, like.array
    return type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape


class FlatBuffer:
    """Dense tensors whose arrays are views of one flat buffer, ``flat``: the
    storage of a multi-tensor optimizer update (eager.optimizer's
    ``use_multi_tensor``), which updates them all with one call on ``flat``
    (every update rule is elementwise, so the values are those of one call per
    tensor, bit for bit).

    Made from ``members`` (see :func:`flat_compatible`): their values are copied
    into consecutive slices of a new buffer on their device and each member's
    array becomes the C-contiguous view of its slice, in its shape; values and
    versions are unchanged, the DenseTensor objects stay the same.

    >>> a, b = DenseTensor(np.ones((2, 2))), DenseTensor(np.zeros(3))
    >>> buffer = FlatBuffer([a, b])
    >>> buffer.flat.array
    array([1., 1., 1., 1., 0., 0., 0.])
    >>> a.array.base is buffer.flat.array
    True
    """

    __slots__ = ("flat", "members", "views")

    def __init__(self, members):
        members = tuple(members)
        if not members or not flat_compatible(members):
            raise InvalidArgumentError(
                "FlatBuffer: argument 'members' expected dense, C-contiguous tensors of one array "
                "type, dtype and device, got " + ", ".join(describe_tensor(m) for m in members))
        first = members[0].array
        xp = np if type(first) is np.ndarray else import_cupy()
        sizes = [m.array.size for m in members]
        views = []
        with _device(members[0]):
            flat = xp.empty(sum(sizes), first.dtype)
            start = 0
            for member, size in zip(members, sizes):
                view = flat[start:start + size].reshape(member.array.shape)
                view[...] = member.array
                member.array = view
                views.append(view)
                start += size
        self.flat = DenseTensor(flat)
        self.members = members
        self.views = tuple(views)

    def intact(self, members) -> bool:
        """Whether ``members`` are these tensors, in this order, each still viewing
        its slice (nothing gave one of them another buffer since)."""
        if len(members) != len(self.members):
            return False
        for member, mine, view in zip(members, self.members, self.views):
            if member is not mine or member.array is not view:
                return False
        return True

    def copy_in(self, index: int, x, adopt: bool = False) -> None:
        """Slice ``index`` gets ``x``'s values (x: see :func:`same_layout`) unless
        x already views it; with ``adopt``, x's array becomes the view of that
        slice (x is a buffer its owner lets go of: a ``.grad`` accumulation owns)."""
        view = self.views[index]
        if x.array is view:
            return
        with _device(x):
            view[...] = x.array
        if adopt:
            x.array = view

    def bump_versions(self) -> None:
        """Moves the version of every member: the update wrote them through ``flat``."""
        for member in self.members:
            member.bump_version()


def share_equal_(members) -> bool:
    """Makes every one of ``members`` (one-element dense tensors: the beta powers
    of a multi-tensor group) view the first one's array when all hold the same
    value (read once, on the host); returns whether they do."""
    first = members[0].array
    for member in members[1:]:
        if not same_layout(member, members[0]) or bool(member.array != first):
            return False
    for member in members[1:]:
        member.array = first
    return True


def unshare_(members) -> None:
    """Gives each of ``members`` an array of its own again (a copy of its values)."""
    for member in members:
        with _device(member):
            member.array = member.array.copy()


__all__ = ["FlatBuffer", "adam_", "adamw_", "flat_compatible", "momentum_", "same_layout", "sgd_",
           "share_equal_", "unshare_"]


# -- adamax_, adagrad_, adadelta_, rmsprop_, lamb_: dense gradients ------------------
# One shared driver: check devices and InferMeta, run the kernel on the buffers,
# verify, bump the version of every tensor written.

from ..infermeta import optimizer as _imo  # noqa: E402


_FUSED_SEEN = {op: KERNELS.signature_cache(op) for op in ("adamax_", "adagrad_", "adadelta_", "rmsprop_",
                                                             "lamb_", "lars_momentum_", "nadam_", "radam_",
                                                             "asgd_", "rprop_")}


def _run_fused(op: str, names: tuple, tensors: tuple, attrs: tuple, outs: tuple, infer_meta):
    """Checks (unless the call's signature is remembered, see _checked_metas),
    runs ``op``'s kernel on the tensors' arrays, verifies and bumps the outputs."""
    cache = _FUSED_SEEN[op]
    try:  # what the checks read, flat; a remembered call passed them
        signature = []
        for t in tensors:
            if t is None:
                signature.append(None)
            else:
                a = t.array
                signature += (type(t), type(a), a.dtype, a.shape)
        signature = (*signature, *map(type, attrs), *attrs)
        if type(tensors[0].array) is not np.ndarray:
            signature += _device_ids(tensors)
        seen = cache.get(signature)
    except (AttributeError, TypeError, PhiError):
        signature = seen = None
    if seen is not None:
        kernel, metas = seen
    else:
        metas = _checked_metas(op, names, tensors, attrs, infer_meta, len(outs))
        p = tensors[0].array
        kernel = KERNELS.dispatch_table(op)[type(p), p.dtype]
        if signature is not None:
            cache.remember(signature, (kernel, metas))
    kernel(*[None if t is None else t.array for t in tensors], *attrs)
    if FLAGS.check_infer_meta:
        verify_infer_meta(op, metas, [_array(t) for t in outs])
    return _bumped(outs)


def adamax_(param, grad, learning_rate, moment, inf_norm, beta1_pow, master_param=None,
            beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
            multi_precision: bool = False):
    """Paddle's Adamax update of param, moment, inf_norm and beta1_pow, in place;
    returns (param, moment, inf_norm, beta1_pow, master_param). See
    phi.kernels.optimizer.adamax_."""
    tensors = (param, grad, learning_rate, moment, inf_norm, beta1_pow, master_param)
    return _run_fused("adamax_", ("param", "grad", "learning_rate", "moment", "inf_norm", "beta1_pow",
                                  "master_param"), tensors, (beta1, beta2, epsilon, multi_precision),
                      (param, moment, inf_norm, beta1_pow, master_param), _imo.adamax_infer_meta)


def adagrad_(param, grad, moment, learning_rate, master_param=None, epsilon: float = 1e-6,
             multi_precision: bool = False):
    """Paddle's Adagrad update of param and moment, in place; returns (param, moment,
    master_param). See phi.kernels.optimizer.adagrad_."""
    tensors = (param, grad, moment, learning_rate, master_param)
    return _run_fused("adagrad_", ("param", "grad", "moment", "learning_rate", "master_param"), tensors,
                      (epsilon, multi_precision), (param, moment, master_param),
                      _imo.adagrad_infer_meta)


def adadelta_(param, grad, avg_squared_grad, avg_squared_update, learning_rate, master_param=None,
              rho: float = 0.95, epsilon: float = 1e-6, multi_precision: bool = False):
    """Paddle's Adadelta update of param and both running averages, in place; returns
    them and master_param. See phi.kernels.optimizer.adadelta_."""
    tensors = (param, grad, avg_squared_grad, avg_squared_update, learning_rate, master_param)
    return _run_fused("adadelta_", ("param", "grad", "avg_squared_grad", "avg_squared_update",
                                    "learning_rate", "master_param"), tensors,
                      (rho, epsilon, multi_precision),
                      (param, avg_squared_grad, avg_squared_update, master_param),
                      _imo.adadelta_infer_meta)


def rmsprop_(param, mean_square, grad, moment, learning_rate, mean_grad=None, master_param=None,
             epsilon: float = 1e-10, decay: float = 0.9, momentum: float = 0.0,
             centered: bool = False, multi_precision: bool = False):
    """Paddle's RMSProp update of param, moment, mean_square (and mean_grad when
    centered), in place; returns (param, moment, mean_square, mean_grad,
    master_param). See phi.kernels.optimizer.rmsprop_."""
    tensors = (param, mean_square, grad, moment, learning_rate, mean_grad, master_param)
    return _run_fused("rmsprop_", ("param", "mean_square", "grad", "moment", "learning_rate",
                                   "mean_grad", "master_param"), tensors,
                      (epsilon, decay, momentum, centered, multi_precision),
                      (param, moment, mean_square, mean_grad, master_param), _imo.rmsprop_infer_meta)


def lamb_(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param=None,
          weight_decay: float = 0.01, beta1: float = 0.9, beta2: float = 0.999,
          epsilon: float = 1e-6, always_adapt: bool = False, multi_precision: bool = False):
    """Paddle's Lamb update (one trust ratio for the whole param) of param, both
    moments and both beta powers, in place; returns them and master_param. The
    trust ratio applies when weight_decay > 0 or always_adapt, as Paddle's op.
    See phi.kernels.optimizer.lamb_."""
    tensors = (param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow, master_param)
    return _run_fused("lamb_", _ADAM_INPUTS, tensors,
                      (weight_decay, beta1, beta2, epsilon, always_adapt, multi_precision),
                      (param, moment1, moment2, beta1_pow, beta2_pow, master_param),
                      _imo.lamb_infer_meta)


def lars_momentum_(param, grad, velocity, learning_rate, master_param=None, mu: float = 0.9,
                   lars_coeff: float = 0.001, lars_weight_decay: float = 0.0005, epsilon: float = 0.0,
                   multi_precision: bool = False, rescale_grad: float = 1.0):
    """Paddle's LARS momentum update (one local learning rate per parameter) of
    param and velocity, in place; returns (param, velocity, master_param). Paddle's
    op takes lists of parameters; this one takes one. See
    phi.kernels.optimizer.lars_momentum_."""
    tensors = (param, grad, velocity, learning_rate, master_param)
    return _run_fused("lars_momentum_", _MOMENTUM_INPUTS, tensors,
                      (mu, lars_coeff, lars_weight_decay, epsilon, multi_precision, rescale_grad),
                      (param, velocity, master_param), _imo.lars_momentum_infer_meta)


__all__ += ["adadelta_", "adagrad_", "adamax_", "lamb_", "lars_momentum_", "rmsprop_"]


# -- nadam_, radam_, asgd_, rprop_: dense gradients, through _run_fused ------------------

def nadam_(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2,
           master_param=None, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
           momentum_decay: float = 0.004, multi_precision: bool = False):
    """Paddle's NAdam update of param, its three one-element accumulators
    (momentum_decay_pow = 0.96^t, beta2_pow, mu_product) and both moments, in place;
    returns them and master_param. See phi.kernels.optimizer.nadam_."""
    tensors = (param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2,
               master_param)
    return _run_fused("nadam_", ("param", "grad", "learning_rate", "momentum_decay_pow", "beta2_pow",
                                 "mu_product", "moment1", "moment2", "master_param"), tensors,
                      (beta1, beta2, epsilon, momentum_decay, multi_precision),
                      (param, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2, master_param),
                      _imo.nadam_infer_meta)


def radam_(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2, master_param=None,
           beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8, multi_precision: bool = False):
    """Paddle's RAdam update of param, its three one-element accumulators (beta1_pow,
    beta2_pow, rho) and both moments, in place; returns them and master_param. See
    phi.kernels.optimizer.radam_."""
    tensors = (param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2, master_param)
    return _run_fused("radam_", ("param", "grad", "learning_rate", "beta1_pow", "beta2_pow", "rho", "moment1",
                                 "moment2", "master_param"), tensors, (beta1, beta2, epsilon, multi_precision),
                      (param, beta1_pow, beta2_pow, rho, moment1, moment2, master_param), _imo.radam_infer_meta)


def asgd_(param, grad, learning_rate, d, ys, m, master_param=None, batch_num: int = 1,
          multi_precision: bool = False):
    """Paddle's ASGD update of param, d, the stored gradients ``ys`` ([batch_num] +
    param's shape) and the int64 step count ``m``, in place; returns them and
    master_param. Paddle's op takes the one slot of ys and n = min(m, batch_num)
    worked out by its optimizer; this one picks them itself. See
    phi.kernels.optimizer.asgd_."""
    tensors = (param, grad, learning_rate, d, ys, m, master_param)
    return _run_fused("asgd_", ("param", "grad", "learning_rate", "d", "ys", "m", "master_param"), tensors,
                      (batch_num, multi_precision), (param, d, ys, m, master_param), _imo.asgd_infer_meta)


def rprop_(param, grad, prev, learning_rate, master_param=None, learning_rate_range=(1e-5, 50.0),
           etas=(0.5, 1.2), multi_precision: bool = False):
    """Paddle's Rprop update of param, prev (the last gradient used) and the
    per-element ``learning_rate``, in place; returns them and master_param.
    ``learning_rate_range`` and ``etas`` are (min, max) and (eta_minus, eta_plus)
    tuples of floats (Paddle passes them as tensors). See phi.kernels.optimizer.rprop_."""
    tensors = (param, grad, prev, learning_rate, master_param)
    return _run_fused("rprop_", ("param", "grad", "prev", "learning_rate", "master_param"), tensors,
                      (learning_rate_range, etas, multi_precision), (param, prev, learning_rate, master_param),
                      _imo.rprop_infer_meta)


__all__ += ["asgd_", "nadam_", "radam_", "rprop_"]
