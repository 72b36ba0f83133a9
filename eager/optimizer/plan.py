"""Per-parameter step plans: what an optimizer works out once about a parameter's
update and reuses at every step while nothing it rests on has changed.

A step used to ask, for every parameter, which group it is in (three times),
its learning-rate factor, its regularizer, its master weight, its state and
each hyperparameter, then build the fused op's argument list: about 10 us of
Python per parameter around an update whose two ufunc calls take ~1.5 us on a
small parameter. A :class:`ParamPlan` keeps the answers:

- ``regularizer``: the decay added to the gradient (``Optimizer._regularizer_of``);
- ``run(grad, learning_rate)``: the fused phi op with every other argument bound
  (the parameter's DenseTensor, its accumulators, its master weight and the
  hyperparameters), made by the optimizer's ``_updater`` on the parameter's
  first update;
- ``multi``: the hyperparameter part of the parameter's multi-tensor key
  (``use_multi_tensor=True``; ``Optimizer._multi_hyper``), not kept when the
  key calls a callable (AdamW's ``lr_ratio``, ``apply_decay_param_fun``);
- ``lr_input``: the one-element learning-rate tensor for the rate ``lr`` times
  ``ratio`` (the optimizer's shared one for that dtype, device and ratio, see
  ``Optimizer._lr_input``).

What a plan rests on, and how each is checked:

- the parameter's DenseTensor and its array (``Layer.to``, ``cuda``, a dtype
  move or a multi-tensor group give it a new one; the array fixes dtype, device
  and shape): compared by identity at every step, a new plan when either moved;
- the parameter's own ``regularizer``: compared by identity at every step;
- the learning rate and the parameter's ratio (its group's ``learning_rate``,
  or ``optimize_attr["learning_rate"]`` read at every step, as Paddle): a
  different one refreshes ``lr_input`` only;
- the optimizer's settings (``multi_precision``, ``regularization``, its
  hyperparameters, the parameter groups' values; ``Optimizer._plan_reads``):
  read once per step into one tuple, and every plan is dropped when it differs
  from the last step's.

Callables the update calls per parameter (AdamW's ``lr_ratio`` and
``apply_decay_param_fun``, Lamb's ``exclude_from_weight_decay_fn``) are still
called at every step, from ``run``. A plan holds no reference to its optimizer.
"""
from __future__ import annotations


class ParamPlan:
    """One parameter's plan (see the module doc). ``impl``, ``array`` and ``own``
    are what it was made for; ``group_ratio`` is the group's learning-rate
    factor, or None when the parameter's ``optimize_attr`` gives it; ``lr``,
    ``ratio`` and ``lr_key`` are what ``lr_input`` was made for (``lr`` None:
    not yet); ``run`` is None until the first update; ``multi`` is the
    hyperparameter part of its multi-tensor key (False: it updates on its own),
    None until the multi-tensor update asks (Optimizer._update_many)."""

    __slots__ = ("impl", "array", "own", "group_ratio", "regularizer", "lr", "ratio", "lr_key",
                 "lr_input", "run", "multi")

    def __init__(self, impl, own, group_ratio, regularizer):
        self.impl = impl
        self.array = impl.array
        self.own = own
        self.group_ratio = group_ratio
        self.regularizer = regularizer
        self.lr = self.ratio = self.lr_key = self.lr_input = self.run = self.multi = None

    def holds(self, param, impl) -> bool:
        """Whether the plan is still param's (``impl``: param.impl, read by the caller)."""
        return (self.impl is impl and self.array is impl.array
                and self.own is getattr(param, "regularizer", None))


def lr_ratio(param, plan: ParamPlan) -> float:
    """param's factor on the learning rate this step: its group's, else its
    ParamAttr's ``optimize_attr["learning_rate"]`` (1.0 for a plain Tensor)."""
    ratio = plan.group_ratio
    if ratio is None:
        attr = getattr(param, "optimize_attr", None)
        ratio = 1.0 if attr is None else attr["learning_rate"]
    return ratio


__all__ = ["ParamPlan", "lr_ratio"]
