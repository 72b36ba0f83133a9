"""``PipelineParallel``: training a :class:`PipelineLayer` over the pipeline
stages (Paddle's ``fleet.meta_parallel.PipelineParallel``), what
``fleet.distributed_model`` returns with ``pp_degree`` > 1.

``train_batch([inputs, labels], optimizer)`` cuts the batch into
``accumulate_steps`` micro-batches of ``micro_batch_size`` rows (the first
stage reads ``inputs``, the last ``labels``) and runs them through the stages
with the 1F1B schedule (``pipeline_configs['schedule_mode'] = 'FThenB'``: all
forwards, then all backwards). Between neighbouring stages the activations
travel forward and their gradients backward with point-to-point sends over the
pipeline group, each preceded by a small header (count, dtype, shape,
stop_gradient of each tensor) so the receiver allocates the right buffers. The
last stage's loss of each micro-batch is divided by ``accumulate_steps`` before
its backward, so the gradients summed over the micro-batches are those of the
batch's mean loss. Then the shared layers' gradients are summed over their
stages, the optimizer (a ``HybridParallelOptimizer`` from
``fleet.distributed_optimizer``, which averages over the data-parallel group)
steps and clears the gradients, and the batch's mean loss, broadcast from the
last stage, is returned on every stage. With tensor parallelism too, each
pipeline group holds the ranks of one model-parallel index, so each shard goes
to its counterpart in the next stage.
"""
from __future__ import annotations

from phi.common import DataType

from ....amp.grad_scaler import GradScaler
from ....autograd import no_grad
from ....autograd.backward_api import backward
from ....autograd.grad_mode import is_grad_enabled
from ....creation import to_tensor
from ....generated import forward_api as _F
from ....tensor import Tensor
from ...collective import ReduceOp, all_reduce, broadcast, broadcast_object_list, isend, recv
from ..hybrid_parallel_optimizer import HybridParallelOptimizer
from .parallel_layers.pp_layers import PipelineLayer
from .meta_parallel_base import MetaParallelBase, sync_params_buffers

_DTYPES = list(DataType)


def _as_tensors(value, what: str) -> tuple:
    """``value`` (a Tensor or a tuple/list of Tensors) as a tuple; TypeError otherwise."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not values or not all(isinstance(v, Tensor) for v in values):
        raise TypeError(f"PipelineParallel: {what} must be a Tensor or a tuple of Tensors to travel between "
                        f"stages, got {type(value).__name__}"
                        + (f" of {', '.join(type(v).__name__ for v in values)}" if values else ""))
    return values


class _P2P:
    """Sends and receives activations (forward) and their gradients (backward)
    between this stage and its neighbours over the pipeline group."""

    def __init__(self, hcg):
        self.group = hcg.get_pipe_parallel_group()
        self.next_rank = hcg._get_p2p_next_rank()
        self.prev_rank = hcg._get_p2p_prev_rank()

    # A forward message: the header's length, the header (the count, then per tensor its dtype,
    # stop_gradient, rank and shape), then each tensor's data. A backward one: the data only
    # (the receiver knows the shapes: those of the outputs it sent).
    def _post_tensors(self, tensors, dst, with_header: bool) -> list:
        """Starts the sends; returns (task, buffer) pairs, the buffer kept alive until the task is waited for."""
        buffers = []
        if with_header:
            header = [len(tensors)]
            for tensor in tensors:
                header += [_DTYPES.index(tensor.dtype), int(tensor.stop_gradient), len(tensor.shape), *tensor.shape]
            header = to_tensor(header, dtype="int64")
            buffers += [to_tensor([header.shape[0]], dtype="int64"), header]
        buffers += [tensor.detach() for tensor in tensors]
        return [(isend(buffer, dst, group=self.group), buffer) for buffer in buffers]

    @staticmethod
    def _finish(pending) -> None:
        for task, _ in pending:
            task.wait()

    def _receive_activations(self, src):
        size = _F.zeros([1], DataType.INT64)
        recv(size, src=src, group=self.group)
        header = _F.zeros([int(size.numpy()[0])], DataType.INT64)
        recv(header, src=src, group=self.group)
        fields, received, at = [int(v) for v in header.numpy()], [], 1
        for _ in range(fields[0]):
            dtype, stop, ndim = _DTYPES[fields[at]], bool(fields[at + 1]), fields[at + 2]
            shape = fields[at + 3:at + 3 + ndim]
            at += 3 + ndim
            tensor = _F.zeros(shape, dtype)
            recv(tensor, src=src, group=self.group)
            tensor.stop_gradient = stop
            received.append(tensor)
        return received[0] if len(received) == 1 else tuple(received)

    def _receive_grads(self, outputs, src):
        grads = []
        for output in _trainable(outputs):
            grad = _F.zeros(list(output.shape), output.dtype)
            recv(grad, src=src, group=self.group)
            grads.append(grad)
        return grads

    def recv_forward(self, is_first_stage: bool):
        """The previous stage's output (None on the first stage)."""
        return None if is_first_stage else self._receive_activations(self.prev_rank)

    def send_forward(self, output, is_last_stage: bool) -> None:
        """Sends this stage's output to the next stage (nothing on the last)."""
        if not is_last_stage:
            self._finish(self._post_tensors(_as_tensors(output, "a stage's output"), self.next_rank, True))

    def recv_backward(self, output, is_last_stage: bool):
        """The gradients of ``output``'s trainable tensors from the next stage (None on the last)."""
        return None if is_last_stage else self._receive_grads(output, self.next_rank)

    def send_backward(self, input_grads, is_first_stage: bool) -> None:
        """Sends the gradients of this stage's inputs to the previous stage (nothing on the first)."""
        if not is_first_stage:
            self._finish(self._post_tensors(input_grads, self.prev_rank, False))

    def send_forward_recv_backward(self, output, is_last_stage: bool):
        """Both at once (the sends posted first, so neighbours sending to each other cannot block)."""
        if is_last_stage:
            return None
        tasks = self._post_tensors(_as_tensors(output, "a stage's output"), self.next_rank, True)
        grads = self._receive_grads(output, self.next_rank)
        self._finish(tasks)
        return grads

    def send_backward_recv_forward(self, input_grads, is_first_stage: bool):
        """Both at once: the input gradients to the previous stage, its next output from it."""
        if is_first_stage:
            return None
        tasks = self._post_tensors(input_grads, self.prev_rank, False)
        received = self._receive_activations(self.prev_rank)
        self._finish(tasks)
        return received


def _trainable(value) -> list:
    values = value if isinstance(value, tuple) else (value,)
    return [v for v in values if isinstance(v, Tensor) and not v.stop_gradient]


class _MicroBatches:
    """Micro-batch i of the first stage's inputs and the last stage's labels."""

    def __init__(self, data, micro_batch_size: int, accumulate_steps: int, is_first: bool, is_last: bool,
                 who: str):
        self.size, self.steps, self.who = micro_batch_size, accumulate_steps, who
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            raise TypeError(f"{who}: argument 'data' expected [inputs, labels] (a list or tuple of two), got "
                            f"{type(data).__name__}" + (f" of {len(data)}" if isinstance(data, (list, tuple))
                                                         else ""))
        self.inputs = self._check(data[0], "inputs") if is_first else None
        self.labels = self._check(data[1], "labels") if is_last else None

    def _check(self, value, what: str):
        if isinstance(value, tuple):
            return tuple(self._check(v, what) for v in value)
        if value is None:
            return None
        if isinstance(value, list):
            if len(value) != self.steps or not all(isinstance(v, Tensor) or v is None for v in value):
                raise ValueError(f"{self.who}: data's {what} as a list holds one Tensor per micro-batch, so "
                                 f"accumulate_steps = {self.steps} of them; got {len(value)} items")
            return value
        if not isinstance(value, Tensor):
            raise TypeError(f"{self.who}: data's {what} expected a Tensor, a tuple of Tensors or a list of "
                            f"micro-batches, got {type(value).__name__}")
        rows = value.shape[0] if value.shape else None
        if rows != self.size * self.steps:
            raise ValueError(f"{self.who}: the batch of data's {what} has {rows} rows, but micro_batch_size "
                             f"{self.size} * accumulate_steps {self.steps} = {self.size * self.steps}; the batch "
                             f"size must equal micro_batch_size * accumulate_steps")
        return value

    def _slice(self, value, step: int):
        if isinstance(value, tuple):
            return tuple(self._slice(v, step) for v in value)
        if value is None:
            return None
        if isinstance(value, list):
            return None if value[step] is None else value[step].detach()
        return value[step * self.size:(step + 1) * self.size].detach()

    def inputs_of(self, step: int):
        return self._slice(self.inputs, step)

    def labels_of(self, step: int):
        return self._slice(self.labels, step)


class PipelineParallel(MetaParallelBase):
    """``layers`` (a :class:`PipelineLayer`) trained over ``hcg``'s pipeline
    stages; see the module's description. Calling it runs this stage's layers.

    >>> model = fleet.distributed_model(pipeline_layer)          # pp_degree > 1
    >>> optimizer = fleet.distributed_optimizer(eager.optimizer.SGD(0.1, parameters=model.parameters()))
    >>> loss = model.train_batch([inputs, labels], optimizer)    # the batch's mean loss, on every stage
    """

    def __init__(self, layers, hcg, strategy):
        if not isinstance(layers, PipelineLayer):
            raise TypeError(f"PipelineParallel: argument 'layers' expected a fleet.meta_parallel.PipelineLayer, "
                            f"got {type(layers).__name__}")
        stages = hcg.get_pipe_parallel_world_size()
        if layers._num_stages != stages:
            raise ValueError(f"PipelineParallel: the PipelineLayer has num_stages {layers._num_stages}, but "
                             f"hybrid_configs['pp_degree'] is {stages}; they must agree")
        if layers._stage_id != hcg.get_stage_id():
            raise ValueError(f"PipelineParallel: the PipelineLayer built stage {layers._stage_id} on rank "
                             f"{hcg.get_global_rank()}, whose pipeline stage is {hcg.get_stage_id()} (build it "
                             f"with topology=hcg.topology())")
        super().__init__(layers, hcg, strategy)
        configs = strategy.pipeline_configs
        self.micro_batch_size = configs["micro_batch_size"]
        self.accumulate_steps = configs["accumulate_steps"]
        self.schedule_mode = configs["schedule_mode"]
        self.num_stages = stages
        self.stage_id = hcg.get_stage_id()
        self.global_rank = hcg.get_global_rank()
        self.pp_group = hcg.get_pipe_parallel_group()
        self.dp_group = hcg.get_data_parallel_group()
        self.use_data_parallel = hcg.get_data_parallel_world_size() > 1
        self._p2p = _P2P(hcg)
        self.total_loss = None
        self._compute_loss = True
        self.scaler = None
        if hcg.get_model_parallel_world_size() > 1:      # what is not a shard: equal across the mp group
            sync_params_buffers(layers, hcg.get_model_parallel_group(), hcg.get_model_parallel_group_src_rank(),
                                True)
        if self.use_data_parallel:
            sync_params_buffers(layers, self.dp_group, hcg.get_data_parallel_group_src_rank(), False)

    def is_pipeline_first_stage(self, ignore_virtual: bool = False) -> bool:
        """Whether this rank runs the first stage."""
        return self.stage_id == 0

    def is_pipeline_last_stage(self, ignore_virtual: bool = False) -> bool:
        """Whether this rank runs the last stage (the loss)."""
        return self.stage_id == self.num_stages - 1

    # -- one micro-batch -------------------------------------------------------------
    def _forward_step(self, input_tensor, batches: _MicroBatches, step: int):
        if self.is_pipeline_first_stage():
            input_tensor = batches.inputs_of(step)
        output = self._layers.forward(input_tensor)
        if self.is_pipeline_last_stage() and self._compute_loss:
            if self._layers._loss_fn is None:
                raise ValueError("PipelineParallel: the PipelineLayer has no loss_fn; the last stage needs one to "
                                 "compute the loss (PipelineLayer(..., loss_fn=...))")
            output = self._layers._loss_fn(output, batches.labels_of(step))
            if not isinstance(output, Tensor):
                raise TypeError(f"PipelineParallel: loss_fn returned a {type(output).__name__}, expected a "
                                f"Tensor")
            if self.accumulate_steps > 1:
                output = output / self.accumulate_steps
            detached = output.detach()
            self.total_loss = detached if self.total_loss is None else self.total_loss + detached
        return output

    def _backward_step(self, input_tensor, output, output_grads):
        if self.is_pipeline_last_stage():
            backward([output if self.scaler is None else self.scaler.scale(output)])
        else:
            outputs = _trainable(output)
            if len(outputs) != len(output_grads):
                raise RuntimeError(f"PipelineParallel: stage {self.stage_id} has {len(outputs)} trainable outputs "
                                   f"but received {len(output_grads)} gradients")
            if outputs:
                backward(outputs, output_grads)
        if input_tensor is None:
            return None
        grads = []
        for tensor in _trainable(input_tensor):
            grads.append(tensor.grad if tensor.grad is not None else _F.zeros(list(tensor.shape), tensor.dtype))
        return grads

    # -- schedules ----------------------------------------------------------------------
    def _one_f_one_b(self, batches) -> None:
        first, last, p2p = self.is_pipeline_first_stage(), self.is_pipeline_last_stage(), self._p2p
        startup = min(self.num_stages - self.stage_id - 1, self.accumulate_steps)
        steady = self.accumulate_steps - startup
        inputs, outputs = [], []
        step = 0
        for _ in range(startup):
            input_tensor = p2p.recv_forward(first)
            output = self._forward_step(input_tensor, batches, step)
            step += 1
            p2p.send_forward(output, last)
            inputs.append(input_tensor)
            outputs.append(output)
        input_tensor = p2p.recv_forward(first) if steady > 0 else None
        for i in range(steady):
            output = self._forward_step(input_tensor, batches, step)
            step += 1
            output_grads = p2p.send_forward_recv_backward(output, last)
            inputs.append(input_tensor)
            outputs.append(output)
            input_grads = self._backward_step(inputs.pop(0), outputs.pop(0), output_grads)
            if i == steady - 1:
                p2p.send_backward(input_grads, first)
            else:
                input_tensor = p2p.send_backward_recv_forward(input_grads, first)
        for _ in range(startup):
            output = outputs.pop(0)
            output_grads = p2p.recv_backward(output, last)
            p2p.send_backward(self._backward_step(inputs.pop(0), output, output_grads), first)

    def _forward_then_backward(self, batches) -> None:
        first, last, p2p = self.is_pipeline_first_stage(), self.is_pipeline_last_stage(), self._p2p
        inputs, outputs = [], []
        for step in range(self.accumulate_steps):
            input_tensor = p2p.recv_forward(first)
            output = self._forward_step(input_tensor, batches, step)
            p2p.send_forward(output, last)
            inputs.append(input_tensor)
            outputs.append(output)
        for _ in range(self.accumulate_steps):
            output = outputs.pop(0)
            output_grads = p2p.recv_backward(output, last)
            p2p.send_backward(self._backward_step(inputs.pop(0), output, output_grads), first)

    def _broadcast_final_loss(self):
        src = self._hcg.get_rank_from_stage(self.num_stages - 1)
        last = self.is_pipeline_last_stage()
        meta = [(list(self.total_loss.shape), _DTYPES.index(self.total_loss.dtype)) if last else None]
        broadcast_object_list(meta, src=src, group=self.pp_group)   # the loss's shape and dtype
        loss = self.total_loss.detach() if last else _F.zeros(meta[0][0], _DTYPES[meta[0][1]])
        with no_grad():
            broadcast(loss, src=src, group=self.pp_group)
        return loss

    def _prepare(self, data, who: str) -> _MicroBatches:
        first, last = self.is_pipeline_first_stage(), self.is_pipeline_last_stage()
        if (first or last) and data is None:
            raise ValueError(f"{who}: argument 'data' is None, but the first and the last stage need "
                             f"[inputs, labels]")
        return _MicroBatches(data if (first or last) else [None, None], self.micro_batch_size,
                             self.accumulate_steps, first, last, who)

    # -- the API -----------------------------------------------------------------------------
    def train_batch(self, data, optimizer, lr_scheduler=None, scaler=None):
        """Trains one batch: ``data`` is ``[inputs, labels]`` (each a Tensor of
        ``micro_batch_size * accumulate_steps`` rows, a tuple of them, or a list
        of one Tensor per micro-batch; only the first stage reads ``inputs``, only
        the last ``labels``). Runs the schedule, sums the shared layers'
        gradients, steps ``optimizer`` (from ``fleet.distributed_optimizer``),
        clears the gradients and steps ``lr_scheduler`` if given. With a
        ``scaler`` (an ``eager.amp.GradScaler``) the last stage's backward starts
        from the scaled loss and the step is the scaler's, skipped on every rank
        when any rank's gradients hold Inf/NaN. Returns the batch's mean loss
        (unscaled), the same Tensor on every stage.

        >>> loss = model.train_batch([x, y], optimizer, lr_scheduler)
        """
        who = "PipelineParallel.train_batch"
        if not isinstance(optimizer, HybridParallelOptimizer):
            raise TypeError(f"{who}: argument 'optimizer' expected the HybridParallelOptimizer that "
                            f"fleet.distributed_optimizer returns, got {type(optimizer).__name__}")
        if lr_scheduler is not None and not callable(getattr(lr_scheduler, "step", None)):
            raise TypeError(f"{who}: argument 'lr_scheduler' expected an LRScheduler or None, got "
                            f"{type(lr_scheduler).__name__}")
        if scaler is not None and not isinstance(scaler, GradScaler):
            raise TypeError(f"{who}: argument 'scaler' expected an eager.amp.GradScaler or None, got "
                            f"{type(scaler).__name__}")
        if not is_grad_enabled():
            raise RuntimeError(f"{who}: gradients are disabled (inside no_grad); training needs them")
        batches = self._prepare(data, who)
        self._layers.train()
        self._compute_loss = True
        self.total_loss = None
        self.scaler = scaler if scaler is not None and scaler.is_enable() else None
        try:
            if self.schedule_mode == "FThenB":
                self._forward_then_backward(batches)
            else:
                self._one_f_one_b(batches)
        finally:
            self.scaler = None
        self._layers.allreduce_shared_weight_gradients()
        loss = self._broadcast_final_loss()
        if scaler is not None and scaler.is_enable():
            self._scaled_step(optimizer, scaler)
        else:
            optimizer.step()
        optimizer.clear_grad()
        if lr_scheduler is not None:
            lr_scheduler.step()
        return loss

    @staticmethod
    def _scaled_step(optimizer, scaler) -> None:
        """The loss-scaled step: average over the data-parallel group, unscale this
        stage's gradients, agree over every rank whether any was Inf/NaN (all skip
        the step together), step, update the scale."""
        optimizer._average_over_data_parallel()
        inner = optimizer._inner_opt
        scaler.unscale_(inner)
        flag = to_tensor(1.0 if scaler._found_inf else 0.0, dtype="float32")
        all_reduce(flag, op=ReduceOp.MAX)
        scaler._found_inf = bool(flag.item())
        scaler.step(inner)
        scaler.update()

    def eval_batch(self, data, compute_loss=False):
        """Runs one batch forward only (no gradients), the layers in eval mode.
        With ``compute_loss`` returns the batch's mean loss on every stage;
        otherwise the list of this stage's outputs, one per micro-batch (on the
        last stage, the network's outputs).

        >>> loss = model.eval_batch([x, y], compute_loss=True)
        """
        if not isinstance(compute_loss, bool):
            raise TypeError(f"PipelineParallel.eval_batch: argument 'compute_loss' expected a bool, got "
                            f"{compute_loss!r}")
        batches = self._prepare(data, "PipelineParallel.eval_batch")
        first, last, p2p = self.is_pipeline_first_stage(), self.is_pipeline_last_stage(), self._p2p
        self._layers.eval()
        self._compute_loss = compute_loss
        self.total_loss = None
        outputs = []
        with no_grad():
            for step in range(self.accumulate_steps):
                output = self._forward_step(p2p.recv_forward(first), batches, step)
                p2p.send_forward(output, last)
                outputs.append(output)
        if compute_loss:
            return self._broadcast_final_loss()
        return outputs


__all__ = ["PipelineParallel"]
