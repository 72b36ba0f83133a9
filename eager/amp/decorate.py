"""``decorate`` (also ``amp_decorate``): prepare models and optimizers for
pure float16 or bfloat16 training (level 'O2'), Paddle 2.x's ``paddle.amp.decorate``.

At 'O2' every floating parameter and buffer of the models becomes the amp
dtype (``dtype``: float16, or bfloat16) in place (optimizers holding them see the change), except in normalization layers
(BatchNorm*, SyncBatchNorm; with float16 also LayerNorm and InstanceNorm*, as in
Paddle 2.6: their statistics and affine parameters stay float32) and in
``excluded_layers``. The optimizers get float32 master weights
(``multi_precision``) unless ``master_weight=False``; ``save_dtype`` applies too,
and ``master_grad=True`` gives the parameters float32 gradients.
At 'O1' nothing changes (auto_cast does all the work; Paddle ignores
``master_weight`` and ``save_dtype`` there).

>>> model, opt = eager.amp.decorate(models=model, optimizers=opt, level="O2")
>>> with eager.amp.auto_cast(level="O2"):
...     loss = model(x).mean()
"""
from __future__ import annotations

from phi.common import DataType

from ..arguments import describe, to_bool
from ..autograd.grad_mode import no_grad
from ..distributed.parallel import DataParallel
from ..generated import forward_api as _F
from ..nn import Layer
from ..nn.norm import LayerNorm, _BatchNormBase, _InstanceNormBase
from ..optimizer.optimizer import Optimizer
from .auto_cast import MASTER_GRAD, check_amp_dtype

# Layers whose parameters and buffers O2 keeps in float32, per amp dtype (Paddle 2.6's
# need_keep_fp32: batch norms always, layer and instance norms only with float16).
_KEPT_FLOAT32 = {"float16": (_BatchNormBase, LayerNorm, _InstanceNormBase), "bfloat16": (_BatchNormBase,)}
_SAVE_DTYPES = {"float16": DataType.FLOAT16, "bfloat16": DataType.BFLOAT16, "float32": DataType.FLOAT32,
                "float64": DataType.FLOAT64}


def _as_list(who: str, arg: str, value, kind, kind_name: str) -> tuple:
    """(items, was_a_list) for a single object or a list/tuple of them."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]  # an empty list is taken, as Paddle's
    for item in items:
        if not isinstance(item, kind):
            raise TypeError(f"{who}: argument '{arg}' expected {kind_name} or a list of them, got {describe(item)}")
    return items, isinstance(value, (list, tuple))


def _excluded(who: str, dtype: str, excluded_layers) -> tuple:
    """The layer instances and classes O2 leaves in float32: the norm layers kept for
    ``dtype``, the excluded instances with all their sublayers, and the excluded classes."""
    if excluded_layers is None:
        given = []
    elif isinstance(excluded_layers, (list, tuple)):
        given = list(excluded_layers)
    else:
        given = [excluded_layers]
    kept = list(_KEPT_FLOAT32[dtype])
    for item in given:
        if isinstance(item, Layer):
            kept.extend(item.sublayers(include_self=True))
        elif isinstance(item, type) and issubclass(item, Layer):
            kept.append(item)
        else:
            raise TypeError(f"{who}: argument 'excluded_layers' expected a Layer, a Layer class or a list of "
                            f"them, got {describe(item)}")
    return tuple(kept)


class _SaveDtypeHook:
    """decorate's ``save_dtype``: a state-dict hook (on every layer of a model, as
    Paddle registers it) that gives the dict's floating tensors in that dtype, so
    ``eager.save(model.state_dict())`` writes them so; ``set_state_dict`` reads
    the layer without hooks, as Paddle's."""

    def __init__(self, dtype: DataType):
        self._dtype = dtype

    def __call__(self, state):
        with no_grad():
            for key, value in state.items():
                if value.impl.dtype.is_floating_point and value.impl.dtype is not self._dtype:
                    cast = _F.cast(value, self._dtype)
                    cast.name = value.name
                    state[key] = cast
        return None


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None, save_dtype=None,
             master_grad=False, excluded_layers=None):
    """Prepares ``models`` (a Layer or a list) and ``optimizers`` (an Optimizer,
    a list, or None) for AMP; see the module docstring. Returns ``models`` when
    ``optimizers`` is None, else ``(models, optimizers)``, each as given (one
    object or a list). ``save_dtype`` ('float16', 'bfloat16', 'float32', 'float64'
    or None) makes each model's ``state_dict()`` give its floating tensors in that dtype
    (at 'O2'; checked but ignored at 'O1', as in Paddle).
    ``master_grad=True`` (at 'O2', with ``optimizers``): the float16/bfloat16
    gradients of the models' parameters become float32 at the end of each
    backward pass that follows an ``auto_cast`` entry (later passes accumulate
    into them in float32), so the GradScaler, gradient clipping, weight decay
    and the optimizer's update all run on float32 gradients, as in Paddle."""
    who = "decorate"
    if level not in ("O1", "O2"):
        raise ValueError(f"{who}: argument 'level' expected 'O1' (AMP) or 'O2' (pure float16 or bfloat16), got {level!r}")
    dtype = check_amp_dtype(who, dtype)
    model_list, models_listed = _as_list(who, "models", models, Layer, "a Layer")
    opt_list, opts_listed = ([], False) if optimizers is None else _as_list(
        who, "optimizers", optimizers, Optimizer, "an eager.optimizer.Optimizer")
    if master_weight is not None:
        master_weight = to_bool(master_weight, who, "master_weight")
    master_grad = to_bool(master_grad, who, "master_grad")
    if save_dtype is not None and save_dtype not in _SAVE_DTYPES:
        raise ValueError(f"{who}: argument 'save_dtype' expected None, 'float16', 'bfloat16', 'float32' or "
                         f"'float64', got {save_dtype!r}")
    if save_dtype == "bfloat16":
        check_amp_dtype(who, save_dtype)  # ml_dtypes must be there
    kept = _excluded(who, dtype, excluded_layers)
    if level == "O2":
        wrapped = [model for model in model_list if isinstance(model, DataParallel)]
        if wrapped:  # the wrapper was set up for the float32 parameters (Paddle refuses it too)
            raise RuntimeError(f"{who}: argument 'models' holds a DataParallel; at level 'O2' decorate the "
                               f"model first, then wrap it: paddle.DataParallel(paddle.amp.decorate(model, ...))")
        for model in model_list:
            if dtype == "bfloat16":
                model.bfloat16(excluded_layers=list(kept))
            else:
                model.float16(excluded_layers=list(kept))
        for opt in opt_list:
            opt._multi_precision = master_weight is None or master_weight
        if master_grad and optimizers is not None:  # Paddle sets it up with the optimizers only
            for model in model_list:
                for param in model.parameters():
                    MASTER_GRAD.params[id(param)] = param
    if level == "O2" and save_dtype is not None:  # O1 leaves the models as they are (Paddle: save_dtype ignored)
        hook = _SaveDtypeHook(_SAVE_DTYPES[save_dtype])
        for model in model_list:
            for layer in model.sublayers(include_self=True):
                layer.register_state_dict_hook(hook)
    models_out = model_list if models_listed else model_list[0]
    if optimizers is None:
        return models_out
    return models_out, (opt_list if opts_listed else opt_list[0])


amp_decorate = decorate
