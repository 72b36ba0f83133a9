"""InferMeta of the loss ops beyond the spine's cross-entropy pair (issue #10)."""
from __future__ import annotations

from ..common.data_type import INTEGER_TYPES
from ..core.errors import InvalidArgumentError
from .backward import same_shape_grad_infer_meta

__all__ = ["bce_loss_grad_infer_meta", "bce_loss_infer_meta", "fused_mse_loss_grad_infer_meta",
           "fused_mse_loss_infer_meta", "fused_softmax_cross_entropy_grad_infer_meta",
           "fused_softmax_cross_entropy_infer_meta", "nll_loss_grad_infer_meta", "nll_loss_infer_meta",
           "warpctc_grad_infer_meta", "warpctc_infer_meta"]


def _floating(arg: str, x) -> None:
    if not x.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument '{arg}' expected a floating-point tensor, got {x.dtype}")


def _integer(arg: str, x, what: str) -> None:
    if x.dtype not in INTEGER_TYPES:
        raise InvalidArgumentError(f"argument '{arg}' expected an integer tensor ({what}), got {x.dtype}")


def bce_loss_infer_meta(input, label, out) -> None:
    """Elementwise: label shaped and typed like input (probabilities)."""
    _floating("input", input)
    if tuple(label.dims) != tuple(input.dims) or label.dtype is not input.dtype:
        raise InvalidArgumentError(f"argument 'label' expected {input.dtype}{list(input.dims)} like input, got "
                                   f"{label.dtype}{list(label.dims)}")
    out.dims, out.dtype, out.layout = tuple(input.dims), input.dtype, input.layout


def bce_loss_grad_infer_meta(input, label, out_grad, input_grad) -> None:
    same_shape_grad_infer_meta(input, out_grad, input_grad)


def _same_as_input(input, label, reduction) -> None:
    _floating("input", input)
    if tuple(label.dims) != tuple(input.dims) or label.dtype is not input.dtype:
        raise InvalidArgumentError(f"argument 'label' expected {input.dtype}{list(input.dims)} like input, got "
                                   f"{label.dtype}{list(label.dims)}")
    if reduction not in ("mean", "sum", "none"):
        raise InvalidArgumentError(f"argument 'reduction' expected 'mean', 'sum' or 'none', got {reduction!r}")


def fused_mse_loss_infer_meta(input, label, reduction, out) -> None:
    """label shaped and typed like input; out 0-d, or input's shape for reduction 'none'."""
    _same_as_input(input, label, reduction)
    out.dims = tuple(input.dims) if reduction == "none" else ()
    out.dtype, out.layout = input.dtype, input.layout


def fused_mse_loss_grad_infer_meta(input, label, out_grad, reduction, input_grad, label_grad) -> None:
    _same_as_input(input, label, reduction)
    expected = tuple(input.dims) if reduction == "none" else ()
    if tuple(out_grad.dims) != expected or out_grad.dtype is not input.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {input.dtype}{list(expected)}, got "
                                   f"{out_grad.dtype}{list(out_grad.dims)}")
    for grad in (input_grad, label_grad):
        grad.dims, grad.dtype, grad.layout = tuple(input.dims), input.dtype, input.layout


def nll_loss_infer_meta(input, label, weight, ignore_index, out) -> None:
    """input [N, C, d1, ...] (log-probabilities), label [N, d1, ...] class indices,
    weight [C]; out is shaped like label."""
    _floating("input", input)
    dims = tuple(input.dims)
    if len(dims) < 2:
        raise InvalidArgumentError(f"argument 'input' expected at least 2 dimensions [N, C, ...], got shape "
                                   f"{list(dims)}")
    _integer("label", label, "class indices")
    expected = dims[:1] + dims[2:]
    if tuple(label.dims) != expected:
        raise InvalidArgumentError(f"argument 'label' expected shape {list(expected)} (input's without the class "
                                   f"axis 1), got {list(label.dims)}")
    if weight is not None and (tuple(weight.dims) != (dims[1],) or weight.dtype is not input.dtype):
        raise InvalidArgumentError(f"argument 'weight' expected {input.dtype}[{dims[1]}] (one per class), got "
                                   f"{weight.dtype}{list(weight.dims)}")
    out.dims, out.dtype, out.layout = expected, input.dtype, input.layout


def nll_loss_grad_infer_meta(input, label, weight, out_grad, ignore_index, input_grad) -> None:
    if tuple(out_grad.dims) != tuple(label.dims) or out_grad.dtype is not input.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {input.dtype}{list(label.dims)}, got "
                                   f"{out_grad.dtype}{list(out_grad.dims)}")
    input_grad.dims, input_grad.dtype, input_grad.layout = tuple(input.dims), input.dtype, input.layout


def warpctc_infer_meta(logits, label, logits_length, labels_length, blank, norm_by_times, loss) -> None:
    """logits [T, N, C] (unnormalised), label [N, L] padded class indices, the two
    lengths [N]; blank in [0, C). loss is [N]."""
    _floating("logits", logits)
    dims = tuple(logits.dims)
    if len(dims) != 3:
        raise InvalidArgumentError(f"argument 'logits' expected a 3-d tensor [max_logit_length, batch_size, "
                                   f"num_classes + 1], got shape {list(dims)}")
    steps, batch, classes = dims
    _integer("label", label, "padded label sequences")
    if len(label.dims) != 2 or label.dims[0] != batch:
        raise InvalidArgumentError(f"argument 'label' expected shape [{batch}, max_label_length], got "
                                   f"{list(label.dims)}")
    for arg, lengths in (("logits_length", logits_length), ("labels_length", labels_length)):
        _integer(arg, lengths, "sequence lengths")
        if tuple(lengths.dims) != (batch,):
            raise InvalidArgumentError(f"argument '{arg}' expected shape [{batch}], got {list(lengths.dims)}")
    if steps < 1:
        raise InvalidArgumentError(f"argument 'logits' expected at least one time step, got shape {list(dims)}")
    if not 0 <= blank < classes:
        raise InvalidArgumentError(f"argument 'blank' expected an index in [0, {classes}), got {blank}")
    loss.dims, loss.dtype, loss.layout = (batch,), logits.dtype, logits.layout


def warpctc_grad_infer_meta(logits, label, logits_length, labels_length, loss_grad, blank, norm_by_times,
                            logits_grad) -> None:
    batch = logits.dims[1] if len(logits.dims) == 3 else None
    if tuple(loss_grad.dims) != (batch,) or loss_grad.dtype is not logits.dtype:
        raise InvalidArgumentError(f"argument 'loss_grad' expected {logits.dtype}[{batch}], got "
                                   f"{loss_grad.dtype}{list(loss_grad.dims)}")
    logits_grad.dims, logits_grad.dtype, logits_grad.layout = tuple(logits.dims), logits.dtype, logits.layout


def _hard_labels(logits, label, reduction) -> tuple:
    dims = tuple(logits.dims)
    if not dims or dims[-1] < 1:
        raise InvalidArgumentError(f"argument 'logits' expected shape [..., num_classes] with at least one "
                                   f"class, got {list(dims)}")
    _integer("label", label, "class indices")
    if tuple(label.dims) not in (dims[:-1], dims[:-1] + (1,)):
        raise InvalidArgumentError(f"argument 'label' expected shape {list(dims[:-1])} or {list(dims[:-1]) + [1]} "
                                   f"(the logits' without the class axis), got {list(label.dims)}")
    if reduction not in ("mean", "sum"):
        raise InvalidArgumentError(f"argument 'reduction' expected 'mean' or 'sum', got {reduction!r}")
    return dims


def fused_softmax_cross_entropy_infer_meta(logits, label, ignore_index, reduction, softmax, loss) -> None:
    """logits [..., C] (classes last), label [...] or [..., 1] integer class indices;
    softmax is shaped like the logits, loss is 0-d."""
    _floating("logits", logits)
    dims = _hard_labels(logits, label, reduction)
    softmax.dims, softmax.dtype, softmax.layout = dims, logits.dtype, logits.layout
    loss.dims, loss.dtype, loss.layout = (), logits.dtype, logits.layout


def fused_softmax_cross_entropy_grad_infer_meta(label, softmax, softmax_grad, loss_grad, ignore_index, reduction,
                                                logits_grad) -> None:
    _floating("softmax", softmax)
    _hard_labels(softmax, label, reduction)
    if tuple(loss_grad.dims) != () or loss_grad.dtype is not softmax.dtype:
        raise InvalidArgumentError(f"argument 'loss_grad' expected a 0-d {softmax.dtype} tensor, got "
                                   f"{loss_grad.dtype}{list(loss_grad.dims)}")
    if softmax_grad is not None:
        same_shape_grad_infer_meta(softmax, softmax_grad, logits_grad)
    logits_grad.dims, logits_grad.dtype, logits_grad.layout = tuple(softmax.dims), softmax.dtype, softmax.layout
