"""Pipeline parallelism with fleet (pp_degree): a PipelineLayer trained with
PipelineParallel.train_batch on real MPI ranks (pp 2 on 2 ranks, dp 2 x pp 2
on 4) against the same layer list run in one process as one stage, with the
gradients of the same micro-batches accumulated by hand (float64): every
step's loss and the final parameters agree. One network sends a tuple of
tensors between its stages and trains with SGD under a global-norm clip (whose
norm spans the stages); the other ties its input embedding to its output
projection with SharedLayerDesc, is cut with seg_method='layer:Linear', and
trains with Adam under the FThenB schedule. Also, in one process: the
segmentation, each stage building only its own layers from per-layer seeds,
the strategy and init checks, and train_batch's errors.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import eager
from eager.distributed.fleet import CommunicateTopology, DistributedStrategy, Fleet, HybridParallelOptimizer
from eager.distributed.fleet.meta_parallel import (LayerDesc, PipelineLayer, PipelineParallel, SegmentLayers,
                                                   SharedLayerDesc)
from mpi_run import run_ranks

D, H, C, V, SEQ = 4, 5, 3, 7, 3          # input features, hidden, classes, vocabulary, sequence
MICRO, STEPS = 2, 3                       # micro_batch_size, accumulate_steps
BATCH = MICRO * STEPS
LR, CLIP, TRAIN_STEPS = 0.3, 0.2, 3
rng = np.random.default_rng(7)
X = rng.normal(size=(TRAIN_STEPS, 2, BATCH, D))             # [step, dp replica, row, feature]
Y = rng.integers(0, C, size=(TRAIN_STEPS, 2, BATCH))
IDS = rng.integers(0, V, size=(TRAIN_STEPS, 2, BATCH, SEQ))
NEXT = rng.integers(0, V, size=(TRAIN_STEPS, 2, BATCH, SEQ))

# The two networks, as layer lists; exec'd by the ranks and by the reference alike.
MODELS = '''
import eager


class TwoWay(eager.nn.Layer):
    """Returns a tuple: a projection and its input (two tensors cross the stage boundary)."""
    def __init__(self, width):
        super().__init__()
        self.proj = eager.nn.Linear(width, width)

    def forward(self, x):
        return self.proj(x), x * 0.5


class Merge(eager.nn.Layer):
    def __init__(self, width):
        super().__init__()
        self.mix = eager.nn.Linear(width, width, bias_attr=False)

    def forward(self, pair):
        first, second = pair
        return eager.tanh(first) + self.mix(second)


def mlp_layers(D, H, C):
    return [LayerDesc(eager.nn.Linear, D, H), eager.tanh, LayerDesc(TwoWay, H),
            LayerDesc(Merge, H), eager.nn.Tanh(), LayerDesc(eager.nn.Linear, H, C)]


def tied_logits(embedding, hidden):
    return eager.matmul(hidden, embedding.weight, transpose_y=True)


def lm_loss(logits, labels):
    return eager.nn.functional.cross_entropy(logits.reshape([-1, logits.shape[-1]]), labels.reshape([-1]))


def lm_layers(V, H):
    return [SharedLayerDesc("embed", eager.nn.Embedding, None, "weight", V, H),
            LayerDesc(eager.nn.Linear, H, H), eager.tanh, LayerDesc(eager.nn.Linear, H, H),
            SharedLayerDesc("embed", eager.nn.Embedding, tied_logits, "weight", V, H)]
'''

RANK_SCRIPT = '''
import copy, json, sys
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.fleet.meta_parallel import LayerDesc, PipelineLayer, PipelineParallel, SharedLayerDesc

exec({models!r})
D, H, C, V, MICRO, STEPS, LR, CLIP, TRAIN_STEPS = {D}, {H}, {C}, {V}, {MICRO}, {STEPS}, {LR}, {CLIP}, {TRAIN_STEPS}
X, Y, IDS, NEXT = (np.array(a) for a in ({x}, {y}, {ids}, {next}))
eager.set_default_dtype("float64")
dp_degree = int(sys.argv[1])
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": dp_degree, "mp_degree": 1, "pp_degree": 2}}
strategy.pipeline_configs = {{"accumulate_steps": STEPS, "micro_batch_size": MICRO}}
fleet.init(is_collective=True, strategy=strategy)
rank = dist.get_rank()
hcg = fleet.get_hybrid_communicate_group()
dp = hcg.get_data_parallel_rank()
out = {{"meta": [hcg.get_stage_id(), hcg.is_first_stage, hcg.is_last_stage, hcg.get_pipe_parallel_group().ranks,
                 hcg._get_p2p_prev_rank(), hcg._get_p2p_next_rank(), dp, hcg.get_data_parallel_group().ranks,
                 hcg.get_parallel_mode(), hcg.get_pipe_parallel_world_size()]}}


def params_of(layer):
    return {{name: p.numpy().tolist() for name, p in layer.state_dict().items()}}


# 1F1B, a tuple between the stages, SGD with a global-norm clip, a learning-rate schedule
mlp = PipelineLayer(mlp_layers(D, H, C), topology=hcg.topology(), loss_fn=eager.nn.CrossEntropyLoss())
out["mlp_run"] = [type(f).__name__ if isinstance(f, eager.nn.Layer) else f.__name__ for f in mlp.run_function]
model = fleet.distributed_model(mlp)
out["wrapped"] = type(model).__name__
scheduler = eager.optimizer.lr.StepDecay(LR, step_size=1, gamma=0.5)
optimizer = fleet.distributed_optimizer(eager.optimizer.SGD(scheduler, parameters=model.parameters(),
                                                            grad_clip=eager.nn.ClipGradByGlobalNorm(CLIP)))
out["optimizer"] = type(optimizer).__name__
losses = []
for step in range(TRAIN_STEPS):
    loss = model.train_batch([eager.to_tensor(X[step, dp]), eager.to_tensor(Y[step, dp])], optimizer, scheduler)
    losses.append(loss.numpy().tolist())
out["mlp_losses"] = losses
out["mlp_params"] = params_of(mlp)
out["mlp_eval"] = model.eval_batch([eager.to_tensor(X[0, dp]), eager.to_tensor(Y[0, dp])], compute_loss=True
                                   ).numpy().tolist()
outputs = model.eval_batch([eager.to_tensor(X[1, dp]), eager.to_tensor(Y[1, dp])])
out["mlp_outputs"] = [o.numpy().tolist() for o in outputs] if hcg.is_last_stage else None

# FThenB, a tied embedding split by seg_method='layer:Linear', Adam
lm = PipelineLayer(lm_layers(V, H), num_stages=2, loss_fn=lm_loss, seg_method="layer:Linear")
out["lm_bounds"] = lm.segment_parts
out["lm_shared"] = [p.is_firstly_shared for p in lm.shared_layers["embed"].parameters()]
fthenb = copy.deepcopy(strategy)
fthenb.pipeline_configs = {{"schedule_mode": "FThenB"}}
lm_model = PipelineParallel(lm, hcg, fthenb)
lm_optimizer = fleet.distributed_optimizer(eager.optimizer.Adam(0.05, parameters=lm_model.parameters()))
losses = []
for step in range(TRAIN_STEPS):
    inputs = eager.to_tensor(IDS[step, dp]) if hcg.is_first_stage else None
    labels = eager.to_tensor(NEXT[step, dp]) if hcg.is_last_stage else None
    losses.append(lm_model.train_batch([inputs, labels], lm_optimizer).numpy().tolist())
out["lm_losses"] = losses
out["lm_params"] = params_of(lm)

errors = []
def expect(call):
    try:
        call()
    except Exception as error:
        errors.append([type(error).__name__, str(error)])
    else:
        errors.append(["none", ""])
expect(lambda: fleet.distributed_model(eager.nn.Linear(2, 2)))
expect(lambda: fleet.distributed_model(PipelineLayer(mlp_layers(D, H, C), num_stages=1)))
expect(lambda: model.train_batch([eager.to_tensor(X[0, dp][:5]), eager.to_tensor(Y[0, dp][:5])], optimizer))
out["errors"] = errors
with open(f"rank{{rank}}.json", "w") as handle:
    json.dump(out, handle)
'''


def rank_script() -> str:
    return RANK_SCRIPT.format(models=MODELS, D=D, H=H, C=C, V=V, MICRO=MICRO, STEPS=STEPS, LR=LR, CLIP=CLIP,
                              TRAIN_STEPS=TRAIN_STEPS, x=X.tolist(), y=Y.tolist(), ids=IDS.tolist(),
                              next=NEXT.tolist())


def models() -> dict:
    namespace = {"LayerDesc": LayerDesc, "SharedLayerDesc": SharedLayerDesc}
    exec(MODELS, namespace)
    return namespace


def reference_training(layers, loss_fn, inputs, labels, dp_degree, make_optimizer, scheduler=None):
    """The whole layer list as one stage in one process: per step, every micro-batch of
    every data-parallel replica, each loss / (accumulate_steps * dp_degree) backward,
    then one optimizer step. Returns the per-replica losses of each step and the layer."""
    model = PipelineLayer(layers, num_stages=1, loss_fn=loss_fn)
    optimizer = make_optimizer(model.parameters())
    losses = []
    for step in range(TRAIN_STEPS):
        replica_losses = []
        for replica in range(dp_degree):
            total = 0.0
            for micro in range(STEPS):
                rows = slice(micro * MICRO, (micro + 1) * MICRO)
                loss = loss_fn(model(eager.to_tensor(inputs[step, replica][rows])),
                               eager.to_tensor(labels[step, replica][rows]))
                (loss / (STEPS * dp_degree)).backward()
                total += float(loss.numpy()) / STEPS
            replica_losses.append(total)
        losses.append(replica_losses)
        optimizer.step()
        optimizer.clear_grad()
        if scheduler is not None:
            scheduler.step()
    return losses, model


def check_params(outs, key, reference_model):
    want = {name: p.numpy() for name, p in reference_model.state_dict().items()}
    seen = set()
    for out in outs:
        for name, value in out[key].items():
            np.testing.assert_allclose(value, want[name], rtol=1e-10, atol=1e-12, err_msg=f"{key} {name}")
            seen.add(name)
    assert seen == set(want)          # the stages together hold the whole network


@pytest.mark.parametrize("dp_degree, nranks", [(1, 2), (2, 4)])
def test_pipeline_equals_one_process_gradient_accumulation(tmp_path, dp_degree, nranks):
    run_ranks(nranks, rank_script(), tmp_path, timeout=240, args=(dp_degree,))
    outs = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(nranks)]
    ns = models()
    eager.set_default_dtype("float64")
    try:
        scheduler = eager.optimizer.lr.StepDecay(LR, step_size=1, gamma=0.5)
        mlp_losses, mlp = reference_training(
            ns["mlp_layers"](D, H, C), eager.nn.CrossEntropyLoss(), X, Y, dp_degree,
            lambda params: eager.optimizer.SGD(scheduler, parameters=params,
                                               grad_clip=eager.nn.ClipGradByGlobalNorm(CLIP)), scheduler)
        lm_losses, lm = reference_training(ns["lm_layers"](V, H), ns["lm_loss"], IDS, NEXT, dp_degree,
                                           lambda params: eager.optimizer.Adam(0.05, parameters=params))
        eval_losses = [float(eager.nn.CrossEntropyLoss()(mlp(eager.to_tensor(X[0, r])), eager.to_tensor(Y[0, r])))
                       for r in range(2)]
        eval_outputs = mlp(eager.to_tensor(X[1].reshape(2 * BATCH, D))).numpy().reshape(2, STEPS, MICRO, C)
    finally:
        eager.set_default_dtype("float32")
    for rank, out in enumerate(outs):
        stage, first, last, pp_ranks, prev, nxt, dp, dp_ranks, mode, pp_size = out["meta"]
        # Paddle's layout [data, pipe, sharding, sep, model]: rank = dp * 2 + stage
        assert (stage, dp, pp_size) == (rank % 2, rank // 2, 2) and (first, last) == (stage == 0, stage == 1)
        assert pp_ranks == [2 * dp, 2 * dp + 1] and prev == nxt == pp_ranks[1 - stage]
        assert dp_ranks == list(range(stage, nranks, 2)) and mode == 2      # ParallelMode.PIPELINE_PARALLEL
        assert (out["wrapped"], out["optimizer"]) == ("PipelineParallel", "HybridParallelOptimizer")
        # each stage holds only its segment ([0, 3, 6]: uniform)
        assert out["mlp_run"] == (["Linear", "tanh", "TwoWay"] if stage == 0 else ["Merge", "Tanh", "Linear"])
        # the loss of each step: the replica's mean over its micro-batches, the same on both stages
        np.testing.assert_allclose([float(np.asarray(v)) for v in out["mlp_losses"]],
                                   [step[dp] for step in mlp_losses], rtol=1e-11)
        np.testing.assert_allclose([float(np.asarray(v)) for v in out["lm_losses"]],
                                   [step[dp] for step in lm_losses], rtol=1e-11)
        assert out["lm_bounds"] == [0, 2, 5]
        assert out["lm_shared"] == [stage == 0]
        # eval: the mean loss of the first step's batch under the trained weights, and the outputs per micro-batch
        np.testing.assert_allclose(float(np.asarray(out["mlp_eval"])), eval_losses[dp], rtol=1e-11)
        if last:
            np.testing.assert_allclose(out["mlp_outputs"], eval_outputs[dp], rtol=1e-11)
        check_errors(out["errors"])
    check_params(outs, "mlp_params", mlp)
    check_params(outs, "lm_params", lm)


def check_errors(errors):
    wanted = [
        ("TypeError", "fleet.distributed_model: with pp_degree > 1 argument 'model' expected a "
                      "fleet.meta_parallel.PipelineLayer, got Linear"),
        ("ValueError", "PipelineParallel: the PipelineLayer has num_stages 1, but hybrid_configs['pp_degree'] is 2"),
        ("ValueError", "the batch of data's"),
    ]
    assert len(errors) == len(wanted)
    for (kind, message), (want_kind, want_text) in zip(errors, wanted):
        assert kind == want_kind and want_text in message, (kind, message)
    assert "has 5 rows, but micro_batch_size 2 * accumulate_steps 3 = 6" in errors[2][1]
