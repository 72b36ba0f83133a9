"""The multi-tensor update (``use_multi_tensor=True``, as Paddle's Momentum and
Adam take it): the parameters of an optimizer that share everything their
update reads -- array type, device and dtype, learning rate and
hyperparameters -- form a :class:`FlatGroup` and are updated by one call of the
fused phi op on flat buffers, instead of one call (and one round of Python
checks and lookups) per parameter.

Storage: on the group's first step the parameters' values, and their
accumulators' (velocity, moments), move into one flat buffer each
(``phi.api.optimizer.FlatBuffer``): every parameter keeps its Tensor, its
DenseTensor, its values, its version and its shape, and its array becomes a
view of its slice. The beta powers of Adam, one element per parameter, become
one shared array (the parameters of a group have stepped together, so they hold
the same value). The gradients must be in a flat buffer too: when every
gradient is the parameter's own ``.grad`` and those ``.grad`` tensors stay from
step to step (``clear_grad()`` zeroing them in place, Paddle's default), the
group is made on the second step, their buffers move into a flat buffer too
and the backward writes into it from then on (accumulation's leaf writers).
Otherwise (``clear_grad(set_to_zero=False)``, gradient clipping or decay, which
make new gradients every step) the parameters are updated one by one, and a
group whose gradients stop being its flat buffer's is dropped: copying the
gradients into a flat buffer costs a pass over them, more than the calls it
would save (measured: the SGD step of benchmarks/run.py's B3 at batch 64
took 202 us so against 112 us one by one). Every update rule is elementwise,
so the result is the per-parameter update's, bit for bit.

A group checks at each step that it still holds: the same parameters with
gradients, each parameter, accumulator and gradient still viewing its slice
(``Layer.to`` or ``cuda`` give a parameter a new buffer; then the group is
dropped, and made again once the gradients have stayed for a step), and
``set_state_dict`` drops the groups before it writes. A parameter that
cannot join (a float16 one, one with a master weight, a SelectedRows gradient,
a gradient of another shape or dtype, which the fused op reports) is updated on
its own as before.

Views of a parameter taken before its group's first step, and the arrays
``numpy()`` returned before it (they share the buffer on the CPU), keep the
old buffer; everything the optimizer and Layer APIs do is unaffected.
"""
from __future__ import annotations

from phi.api.optimizer import FlatBuffer, flat_compatible, same_layout, share_equal_, unshare_

from ..autograd.meta import is_owned_grad


def stable_grads(params, grads) -> bool:
    """Whether each gradient is its parameter's own ``.grad``, a dense buffer
    accumulation owns, of the parameter's array type, dtype and shape: what a
    group moves into its flat gradient buffer."""
    for param, grad in zip(params, grads):
        if grad is not param.grad or not is_owned_grad(grad) or not same_layout(grad.impl, param.impl):
            return False
    return True


class FlatGroup:
    """Parameters updated by one call on flat buffers (see the module doc).

    ``params``: the Tensors, in order; ``states``: for each, its accumulators'
    DenseTensors (the optimizer's ``_state``), of which those at ``scalar``
    positions are one-element (beta powers), shared while the group lives.
    Raises nothing: :meth:`make` returns None when the tensors cannot share
    buffers.
    """

    __slots__ = ("params", "param_buffer", "state_buffers", "shared", "scalar", "grad_buffer")

    @classmethod
    def make(cls, params, states, scalar, grads):
        """The group of ``params``, their ``states`` and their ``grads`` (their own
        ``.grad`` Tensors), or None when these cannot share buffers."""
        impls = [p.impl for p in params]
        grad_impls = [g.impl for g in grads]
        if not flat_compatible(impls) or not stable_grads(params, grads) or not flat_compatible(grad_impls):
            return None
        columns = [[state[k] for state in states] for k in range(len(scalar))]
        for k, column in enumerate(columns):
            if not scalar[k] and not (flat_compatible(column) and all(
                    same_layout(s, p) for s, p in zip(column, impls))):
                return None
        shared = []  # checked (and shared) before anything moves
        for k, column in enumerate(columns):
            if scalar[k]:
                if not share_equal_(column):
                    for done in shared:
                        unshare_(done[1:])
                    return None
                shared.append(column)
        group = cls()
        group.params = tuple(params)
        group.scalar = tuple(scalar)
        group.param_buffer = FlatBuffer(impls)
        group.state_buffers = [None if scalar[k] else FlatBuffer(column) for k, column in enumerate(columns)]
        group.shared = [column if scalar[k] else None for k, column in enumerate(columns)]
        group.grad_buffer = FlatBuffer(grad_impls)  # values, versions and .grad tensors unchanged
        return group

    def holds(self, params, states) -> bool:
        """Whether the group is still valid for ``params`` (in this order) and their states."""
        if len(params) != len(self.params) or any(p is not q for p, q in zip(params, self.params)):
            return False
        if not self.param_buffer.intact([p.impl for p in params]):
            return False
        for k, buffer in enumerate(self.state_buffers):
            column = [state[k] for state in states]
            if buffer is not None:
                if not buffer.intact(column):
                    return False
            else:
                first = self.shared[k][0].array
                if any(a is not b or a.array is not first for a, b in zip(column, self.shared[k])):
                    return False
        return True

    def flat_grad(self, grads):
        """The gradients as one flat DenseTensor when they are still the ``.grad``
        buffers the group moved in, else None (the group is then dropped)."""
        if self.grad_buffer.intact([g.impl for g in grads]):
            return self.grad_buffer.flat
        return None

    def state(self, k):
        """The flat DenseTensor of accumulator ``k``, or the shared one-element one."""
        buffer = self.state_buffers[k]
        return self.shared[k][0] if buffer is None else buffer.flat

    def wrote(self) -> None:
        """Moves the versions of every parameter and accumulator the update wrote."""
        self.param_buffer.bump_versions()
        for k, buffer in enumerate(self.state_buffers):
            if buffer is not None:
                buffer.bump_versions()
            else:
                for member in self.shared[k][1:]:
                    member.bump_version()  # the first one's moved in the op

    def release(self) -> None:
        """Gives the shared beta powers arrays of their own again (a one-by-one
        update advances each, set_state_dict may write different values into
        them); parameters, accumulators and gradients keep their views, which are
        ordinary buffers to every per-parameter update."""
        for column in self.shared:
            if column is not None:
                unshare_(column[1:])


__all__ = ["FlatGroup", "stable_grads"]
