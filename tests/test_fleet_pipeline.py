"""Pipeline parallelism with fleet (pp_degree): a PipelineLayer trained with
PipelineParallel.train_batch on real MPI ranks (pp 2 on 2 ranks; dp 2 x pp 2
on 4; pp 3 on 3, with a middle stage and a weight shared by the first and the
last) against the same layer list run in one process as one stage, with the
gradients of the same micro-batches accumulated by hand (float64): every
step's loss and the final parameters agree. One network sends a tuple of
tensors between its stages and trains with SGD under a global-norm clip (whose
norm spans the stages); the other ties its input embedding to its output
projection with SharedLayerDesc, is cut with seg_method='layer:Linear', and
trains with Adam under the FThenB schedule. Also, in one process: the
segmentation, each stage building only its own layers from per-layer seeds,
train_batch on one stage (1F1B, FThenB, recompute_interval) as gradient
accumulation, checkpoints by layer index, the strategy and init checks, and
the errors.
"""
from __future__ import annotations

import copy
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
dp_degree, pp_degree = int(sys.argv[1]), int(sys.argv[2])
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": dp_degree, "mp_degree": 1, "pp_degree": pp_degree}}
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

# FThenB, a tied embedding (split by seg_method='layer:Linear' on 2 stages), Adam
lm = PipelineLayer(lm_layers(V, H), num_stages=pp_degree, loss_fn=lm_loss,
                   seg_method="layer:Linear" if pp_degree == 2 else "uniform")
out["lm_bounds"] = lm.segment_parts
out["lm_shared"] = ([p.is_firstly_shared for p in lm.shared_layers["embed"].parameters()]
                    if "embed" in lm.shared_layers else [])
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

# a loss scaler: an Inf in the gradients of the first stage's last layer makes every rank skip the step
scaler = eager.amp.GradScaler(init_loss_scaling=1024.0)
before = params_of(lm)
if hcg.is_first_stage:
    hook = lm.run_function[-1].weight.register_hook(lambda grad: grad * float("inf"))
inputs = eager.to_tensor(IDS[0, dp]) if hcg.is_first_stage else None
labels = eager.to_tensor(NEXT[0, dp]) if hcg.is_last_stage else None
out["scaled_skip"] = [float(lm_model.train_batch([inputs, labels], lm_optimizer, scaler=scaler)),
                      params_of(lm) == before, float(scaler.state_dict()["scale"][0])]
if hcg.is_first_stage:
    hook.remove()

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
if hcg.is_first_stage or hcg.is_last_stage:     # a middle stage reads no data: it would wait for its neighbours
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


MLP_STAGES = {2: [["Linear", "tanh", "TwoWay"], ["Merge", "Tanh", "Linear"]],        # uniform: [0, 3, 6]
              3: [["Linear", "tanh"], ["TwoWay", "Merge"], ["Tanh", "Linear"]]}      # [0, 2, 4, 6]
LM_BOUNDS = {2: [0, 2, 5], 3: [0, 1, 3, 5]}      # 'layer:Linear' on 2 stages, uniform on 3


@pytest.mark.parametrize("dp_degree, pp_degree", [(1, 2), (2, 2), (1, 3)])
def test_pipeline_equals_one_process_gradient_accumulation(tmp_path, dp_degree, pp_degree):
    nranks = dp_degree * pp_degree
    run_ranks(nranks, rank_script(), tmp_path, timeout=240, args=(dp_degree, pp_degree))
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
        lm_first_loss = [float(ns["lm_loss"](lm(eager.to_tensor(IDS[0, r])), eager.to_tensor(NEXT[0, r])))
                         for r in range(2)]
        eval_losses = [float(eager.nn.CrossEntropyLoss()(mlp(eager.to_tensor(X[0, r])), eager.to_tensor(Y[0, r])))
                       for r in range(2)]
        eval_outputs = mlp(eager.to_tensor(X[1].reshape(2 * BATCH, D))).numpy().reshape(2, STEPS, MICRO, C)
    finally:
        eager.set_default_dtype("float32")
    for rank, out in enumerate(outs):
        stage, first, last, pp_ranks, prev, nxt, dp, dp_ranks, mode, pp_size = out["meta"]
        # Paddle's layout [data, pipe, sharding, sep, model]: rank = dp * pp_degree + stage
        assert (stage, dp, pp_size) == (rank % pp_degree, rank // pp_degree, pp_degree)
        assert (first, last) == (stage == 0, stage == pp_degree - 1)
        assert pp_ranks == [dp * pp_degree + s for s in range(pp_degree)]
        assert (prev, nxt) == (pp_ranks[(stage - 1) % pp_degree], pp_ranks[(stage + 1) % pp_degree])
        assert dp_ranks == list(range(stage, nranks, pp_degree)) and mode == 2   # ParallelMode.PIPELINE_PARALLEL
        assert (out["wrapped"], out["optimizer"]) == ("PipelineParallel", "HybridParallelOptimizer")
        assert out["mlp_run"] == MLP_STAGES[pp_degree][stage]         # each stage holds only its segment
        # the loss of each step: the replica's mean over its micro-batches, the same on both stages
        np.testing.assert_allclose([float(np.asarray(v)) for v in out["mlp_losses"]],
                                   [step[dp] for step in mlp_losses], rtol=1e-11)
        np.testing.assert_allclose([float(np.asarray(v)) for v in out["lm_losses"]],
                                   [step[dp] for step in lm_losses], rtol=1e-11)
        # the scaled batch whose first stage saw an Inf: the loss as unscaled, no rank stepped, the scale halved
        scaled_loss, unchanged, scale = out["scaled_skip"]
        assert unchanged and scale == 512.0
        np.testing.assert_allclose(scaled_loss, lm_first_loss[dp], rtol=1e-11)
        assert out["lm_bounds"] == LM_BOUNDS[pp_degree]
        assert out["lm_shared"] == ([stage == 0] if stage in (0, pp_degree - 1) else [])   # the embedding's stages
        # eval: the mean loss of the first step's batch under the trained weights, and the outputs per micro-batch
        np.testing.assert_allclose(float(np.asarray(out["mlp_eval"])), eval_losses[dp], rtol=1e-11)
        if last:
            np.testing.assert_allclose(out["mlp_outputs"], eval_outputs[dp], rtol=1e-11)
        check_errors(out["errors"], pp_degree, first or last)
    check_params(outs, "mlp_params", mlp)
    check_params(outs, "lm_params", lm)


def check_errors(errors, pp_degree, reads_data):
    wanted = [
        ("TypeError", "fleet.distributed_model: with pp_degree > 1 argument 'model' expected a "
                      "fleet.meta_parallel.PipelineLayer, got Linear"),
        ("ValueError", f"PipelineParallel: the PipelineLayer has num_stages 1, but hybrid_configs['pp_degree'] is "
                       f"{pp_degree}"),
    ]
    if reads_data:
        wanted.append(("ValueError", "rows, but micro_batch_size 2 * accumulate_steps 3 = 6; the batch size must"))
    assert len(errors) == len(wanted)
    for (kind, message), (want_kind, want_text) in zip(errors, wanted):
        assert kind == want_kind and want_text in message, (kind, message)
    if reads_data:
        assert "has 5 rows" in errors[2][1]


# -- in one process ----------------------------------------------------------------
class Counted(eager.nn.Layer):
    """A layer that records each construction, to see which stage builds what."""
    built = []

    def __init__(self, tag):
        super().__init__()
        Counted.built.append(tag)

    def forward(self, x):
        return x


def test_segment_layers_uniform_layer_and_list():
    assert SegmentLayers(list(range(5)), 2).do_segment() == [0, 2, 5]
    assert SegmentLayers(list(range(7)), 3).do_segment() == [0, 2, 4, 7]     # the extra layer goes last
    assert SegmentLayers(list(range(8)), 3).do_segment() == [0, 2, 5, 8]
    assert SegmentLayers(list(range(3)), 3).do_segment() == [0, 1, 2, 3]
    items = [LayerDesc(eager.nn.Embedding, 4, 2), LayerDesc(eager.nn.Linear, 2, 2), eager.tanh,
             LayerDesc(eager.nn.Linear, 2, 2), eager.nn.Linear(2, 2), eager.nn.functional.relu]
    # each segment ends right after its share of matches; the last runs to the end
    assert SegmentLayers(items, 3, "layer:Linear").do_segment() == [0, 2, 4, 6]
    assert SegmentLayers(items, 3, "layer:linear").do_segment() == [0, 2, 4, 6]    # case-insensitive
    assert SegmentLayers(items, 2, "layer:Embedding|tanh").do_segment() == [0, 1, 6]
    assert SegmentLayers(items, 2, [0, 4]).do_segment() == [0, 4, 6]
    assert SegmentLayers(items, 2, [0, 1, 6]).do_segment() == [0, 1, 6]


@pytest.mark.parametrize("items, parts, method, kind, text", [
    (list(range(4)), 2, "even", ValueError, "expected 'uniform', 'layer:ClassName' or a list"),
    (list(range(4)), 2, 3, ValueError, "expected 'uniform', 'layer:ClassName' or a list"),
    (list(range(2)), 3, "uniform", ValueError, "2 layers cannot fill 3 segments"),
    ([LayerDesc(eager.nn.Linear, 2, 2)] * 3, 2, "layer:Linear", ValueError, "matches 3 layers, which do not "
                                                                             "divide into 2 equal segments"),
    ([LayerDesc(eager.nn.Linear, 2, 2)] * 2, 2, "layer:Conv2D", ValueError, "matches none of the layers (Linear, "
                                                                            "Linear)"),
    (list(range(4)), 2, [1, 4], ValueError, "expected boundaries starting with 0"),
    (list(range(4)), 2, [0, 3, 2], ValueError, "expected non-decreasing boundaries within 0..4"),
    (list(range(4)), 2, [0, 1, 2, 4], ValueError, "has 4 boundaries, but 2 stages take 3"),
    (list(range(4)), 2, [0, "2"], TypeError, "expected a list of int boundaries"),
])
def test_segment_layers_errors(items, parts, method, kind, text):
    with pytest.raises(kind, match=text.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        SegmentLayers(items, parts, method).do_segment()


def test_each_stage_builds_only_its_layers_from_per_layer_seeds():
    two_stages = CommunicateTopology(["data", "pipe", "model"], [1, 2, 1])     # this process: stage 0 of 2
    Counted.built.clear()
    stage0 = PipelineLayer([LayerDesc(Counted, "a"), LayerDesc(eager.nn.Linear, 3, 4), LayerDesc(Counted, "b"),
                            LayerDesc(eager.nn.Linear, 4, 2)], topology=two_stages)
    assert Counted.built == ["a"] and stage0.segment_parts == [0, 2, 4]
    assert sorted(stage0.state_dict()) == ["1.bias", "1.weight"]
    assert [stage0.get_stage_from_index(i) for i in range(4)] == [0, 0, 1, 1]
    eager.seed(99)
    after_seed = eager.rand([3]).numpy()
    eager.seed(99)
    whole = PipelineLayer([LayerDesc(Counted, "a"), LayerDesc(eager.nn.Linear, 3, 4), LayerDesc(Counted, "b"),
                           LayerDesc(eager.nn.Linear, 4, 2)], num_stages=1)
    np.testing.assert_array_equal(eager.rand([3]).numpy(), after_seed)   # the caller's random stream is untouched
    assert Counted.built == ["a", "a", "b"]
    np.testing.assert_array_equal(stage0.state_dict()["1.weight"].numpy(), whole.state_dict()["1.weight"].numpy())
    eager.seed(1234 + 3)                              # layer i is drawn right after seed(1234 + i)
    np.testing.assert_array_equal(eager.nn.Linear(4, 2).weight.numpy(), whole.state_dict()["3.weight"].numpy())
    # forward runs the items in order (the Counted ones are identities): two affine maps in NumPy
    w1, b1, w3, b3 = (whole.state_dict()[k].numpy() for k in ("1.weight", "1.bias", "3.weight", "3.bias"))
    x = np.arange(6.0, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(whole(eager.to_tensor(x)).numpy(), (x @ w1 + b1) @ w3 + b3, rtol=1e-5)


def test_pipeline_layer_errors():
    linear = LayerDesc(eager.nn.Linear, 2, 2)
    cases = [
        (ValueError, "give argument 'num_stages' or 'topology' (got neither)", dict()),
        (ValueError, "argument 'num_stages' (2) does not divide the job's 1 ranks", dict(num_stages=2)),
        (ValueError, "argument 'num_stages' is 2, but the topology's pipe axis (pp_degree) has 1 stages",
         dict(num_stages=2, topology=CommunicateTopology(["data", "pipe", "model"], [1, 1, 1]))),
        (ValueError, "seg_method) expected 'uniform', 'layer:ClassName'", dict(num_stages=1, seg_method="evenly")),
        (ValueError, "argument 'num_virtual_pipeline_stages' expected None or 1",
         dict(num_stages=1, num_virtual_pipeline_stages=2)),
        (ValueError, "recompute_ctx['offload'] is not supported", dict(num_stages=1, recompute_interval=1,
                                                                      recompute_ctx={"offload": True})),
        (TypeError, "argument 'topology' expected a fleet.CommunicateTopology, got list", dict(topology=[1, 2])),
    ]
    for kind, text, kwargs in cases:
        with pytest.raises(kind, match=text.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
            PipelineLayer([linear, linear], **kwargs)
    with pytest.raises(TypeError, match=r"argument 'layers'\[1\] expected an eager.nn.Layer, a LayerDesc"):
        PipelineLayer([linear, 3], num_stages=1)
    with pytest.raises(TypeError, match="LayerDesc: argument 'layer_func' expected a subclass of eager.nn.Layer"):
        LayerDesc(eager.tanh)
    with pytest.raises(ValueError, match="SharedLayerDesc 'e': its layer \\(Linear\\) has no tensor attribute "
                                         "shared_weight_attr='table'"):
        PipelineLayer([SharedLayerDesc("e", eager.nn.Linear, None, "table", 2, 2)], num_stages=1)


def one_process_pipeline(layers, loss_fn, recompute_interval=0, **configs):
    """A one-stage PipelineParallel in this process (pp_degree 1), for the checks that need no ranks."""
    strategy = DistributedStrategy()
    strategy.pipeline_configs = {"accumulate_steps": STEPS, "micro_batch_size": MICRO, **configs}
    hcg = Fleet().init(is_collective=True, strategy=strategy).get_hybrid_communicate_group()
    layer = PipelineLayer(layers, num_stages=1, loss_fn=loss_fn, recompute_interval=recompute_interval)
    return PipelineParallel(layer, hcg, strategy), hcg


@pytest.mark.parametrize("schedule, recompute_interval", [("1F1B", 0), ("FThenB", 0), ("1F1B", 2)])
def test_one_stage_train_batch_is_gradient_accumulation(schedule, recompute_interval, device):
    eager.set_default_dtype("float64")
    try:
        ns = models()
        model, hcg = one_process_pipeline(ns["mlp_layers"](D, H, C), eager.nn.CrossEntropyLoss(),
                                          recompute_interval, schedule_mode=schedule)
        optimizer = HybridParallelOptimizer(eager.optimizer.SGD(LR, parameters=model.parameters()), hcg)
        losses, reference = reference_training(ns["mlp_layers"](D, H, C), eager.nn.CrossEntropyLoss(), X, Y, 1,
                                               lambda params: eager.optimizer.SGD(LR, parameters=params))
        for step in range(TRAIN_STEPS):
            loss = model.train_batch([eager.to_tensor(X[step, 0]), eager.to_tensor(Y[step, 0])], optimizer)
            np.testing.assert_allclose(float(loss), losses[step][0], rtol=1e-12)
            assert loss.place.is_gpu_place() == (device == "gpu")
            assert all(p.grad is None or not np.any(p.grad.numpy()) for p in model.parameters())   # cleared
        for name, param in reference.state_dict().items():
            np.testing.assert_allclose(model._layers.state_dict()[name].numpy(), param.numpy(), rtol=1e-12,
                                       err_msg=name)
        outputs = model.eval_batch([eager.to_tensor(X[0, 0]), eager.to_tensor(Y[0, 0])])
        assert len(outputs) == STEPS and all(o.stop_gradient for o in outputs)
        np.testing.assert_allclose(np.concatenate([o.numpy() for o in outputs]),
                                   reference(eager.to_tensor(X[0, 0])).numpy(), rtol=1e-12)
    finally:
        eager.set_default_dtype("float32")


def test_one_stage_train_batch_with_a_loss_scaler():
    eager.set_default_dtype("float64")
    try:
        ns = models()
        model, hcg = one_process_pipeline(ns["mlp_layers"](D, H, C), eager.nn.CrossEntropyLoss())
        optimizer = HybridParallelOptimizer(eager.optimizer.SGD(LR, parameters=model.parameters()), hcg)
        scaler = eager.amp.GradScaler(init_loss_scaling=2.0 ** 12)
        losses, reference = reference_training(ns["mlp_layers"](D, H, C), eager.nn.CrossEntropyLoss(), X, Y, 1,
                                               lambda params: eager.optimizer.SGD(LR, parameters=params))
        for step in range(TRAIN_STEPS):       # a power-of-two scale: the same steps as without it
            loss = model.train_batch([eager.to_tensor(X[step, 0]), eager.to_tensor(Y[step, 0])], optimizer,
                                     scaler=scaler)
            np.testing.assert_allclose(float(loss), losses[step][0], rtol=1e-12)
        for name, param in reference.state_dict().items():
            np.testing.assert_allclose(model._layers.state_dict()[name].numpy(), param.numpy(), rtol=1e-12)
        before = [p.numpy().copy() for p in model.parameters()]
        bad = X[0, 0].copy()
        bad[3, 1] = np.inf
        model.train_batch([eager.to_tensor(bad), eager.to_tensor(Y[0, 0])], optimizer, scaler=scaler)
        for param, value in zip(model.parameters(), before):     # the step was skipped, the scale halved
            np.testing.assert_array_equal(param.numpy(), value)
            assert param.grad is None or not np.any(param.grad.numpy())
        assert scaler.state_dict()["scale"] == 2.0 ** 11
        with pytest.raises(TypeError, match="argument 'scaler' expected an eager.amp.GradScaler or None, got object"):
            model.train_batch([eager.to_tensor(X[0, 0]), eager.to_tensor(Y[0, 0])], optimizer, scaler=object())
    finally:
        eager.set_default_dtype("float32")


def test_train_batch_errors():
    ns = models()
    model, hcg = one_process_pipeline(ns["mlp_layers"](D, H, C), eager.nn.CrossEntropyLoss())
    optimizer = HybridParallelOptimizer(eager.optimizer.SGD(LR, parameters=model.parameters()), hcg)
    x, y = eager.to_tensor(X[0, 0], dtype="float32"), eager.to_tensor(Y[0, 0])
    before = [p.numpy().copy() for p in model.parameters()]
    with pytest.raises(ValueError, match="the batch of data's inputs has 4 rows, but micro_batch_size 2 \\* "
                                         "accumulate_steps 3 = 6; the batch size must equal"):
        model.train_batch([x[:4], y[:4]], optimizer)
    with pytest.raises(ValueError, match="the batch of data's labels has 5 rows"):
        model.train_batch([x, y[:5]], optimizer)
    with pytest.raises(TypeError, match="argument 'optimizer' expected the HybridParallelOptimizer that "
                                        "fleet.distributed_optimizer returns, got SGD"):
        model.train_batch([x, y], optimizer._inner_opt)
    with pytest.raises(ValueError, match="argument 'data' is None, but the first and the last stage need"):
        model.train_batch(None, optimizer)
    with pytest.raises(TypeError, match="argument 'data' expected \\[inputs, labels\\] \\(a list or tuple of two\\), "
                                        "got list of 3"):
        model.train_batch([x, y, y], optimizer)
    with pytest.raises(ValueError, match="data's inputs as a list holds one Tensor per micro-batch, so "
                                         "accumulate_steps = 3 of them; got 2 items"):
        model.train_batch([[x[:2], x[2:4]], y], optimizer)
    with eager.no_grad(), pytest.raises(RuntimeError, match="gradients are disabled"):
        model.train_batch([x, y], optimizer)
    with pytest.raises(TypeError, match="argument 'compute_loss' expected a bool, got 1"):
        model.eval_batch([x, y], compute_loss=1)
    for param, value in zip(model.parameters(), before):      # nothing above changed the model
        np.testing.assert_array_equal(param.numpy(), value)
    no_loss, _ = one_process_pipeline([LayerDesc(eager.nn.Linear, D, C)], None)
    with pytest.raises(ValueError, match="the PipelineLayer has no loss_fn"):
        no_loss.eval_batch([x, y], compute_loss=True)
    with pytest.raises(TypeError, match="PipelineParallel: argument 'layers' expected a "
                                        "fleet.meta_parallel.PipelineLayer, got Linear"):
        PipelineParallel(eager.nn.Linear(2, 2), hcg, DistributedStrategy())


def test_strategy_pipeline_configs_and_init_checks():
    strategy = DistributedStrategy()
    assert strategy.pipeline_configs == {"micro_batch_size": 1, "accumulate_steps": 1, "schedule_mode": "1F1B",
                                         "p2p_cache_shape": True, "enable_partial_send_recv": True}
    strategy.pipeline_configs = {"accumulate_steps": 4, "micro_batch_size": 2}
    strategy.hybrid_configs = {"dp_degree": 1, "mp_degree": 1, "pp_degree": 2}
    twin = copy.deepcopy(strategy)
    strategy.pipeline_configs = {"accumulate_steps": 8}
    assert twin.pipeline_configs["accumulate_steps"] == 4 and twin.hybrid_configs["pp_degree"] == 2
    assert "pipeline_configs={" in repr(twin)
    cases = [
        (ValueError, "pipeline_configs key 'micro_batch' is not supported", {"micro_batch": 2}),
        (TypeError, "pipeline_configs['accumulate_steps'] expected an int, got 2.0", {"accumulate_steps": 2.0}),
        (ValueError, "pipeline_configs['micro_batch_size'] expected a positive int, got 0", {"micro_batch_size": 0}),
        (ValueError, "pipeline_configs['schedule_mode'] expected one of 1F1B, FThenB, got 'VPP'",
         {"schedule_mode": "VPP"}),
        (TypeError, "pipeline_configs['p2p_cache_shape'] expected a bool, got 1", {"p2p_cache_shape": 1}),
    ]
    for kind, text, value in cases:
        with pytest.raises(kind, match=text.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
            strategy.pipeline_configs = value
    with pytest.raises(TypeError, match="'pipeline_configs' expected a dict, got list"):
        strategy.pipeline_configs = [("accumulate_steps", 2)]
    with pytest.raises(ValueError, match=r"hybrid_configs\['pp_degree'\] expected a non-negative int"):
        strategy.hybrid_configs = {"pp_degree": -1}
    assert strategy.pipeline_configs["accumulate_steps"] == 8      # nothing refused was kept
    fresh = Fleet()
    with pytest.raises(ValueError, match=r"dp_degree 1 \* mp_degree 1 \* pp_degree 2 = 2 ranks, but the job has 1"):
        fresh.init(is_collective=True, strategy=strategy)
    strategy.hybrid_configs = {"dp_degree": -1}
    with pytest.raises(ValueError, match=r"mp_degree 1 \* pp_degree 2 is 2, which does not divide the job's 1"):
        fresh.init(is_collective=True, strategy=strategy)
    strategy.hybrid_configs = {"dp_degree": 1, "mp_degree": 2}
    with pytest.raises(ValueError, match=r"dp_degree 1 \* mp_degree 2 \* pp_degree 2 = 4 ranks, but the job has 1"):
        fresh.init(is_collective=True, strategy=strategy)
    strategy.hybrid_configs = {"mp_degree": 1}
    strategy.sync_batch_norm = True
    with pytest.raises(ValueError, match="sync_batch_norm is not supported with pp_degree > 1"):
        fresh.init(is_collective=True, strategy=strategy)
    with pytest.raises(RuntimeError, match="call fleet.init"):       # nothing was kept
        fresh.get_hybrid_communicate_group()


def test_save_state_dict_and_set_state_dir_by_layer_index(tmp_path):
    descs = [LayerDesc(eager.nn.Linear, 3, 4), eager.tanh, LayerDesc(eager.nn.Linear, 4, 2)]
    whole = PipelineLayer(descs, num_stages=1)
    trained = {name: np.random.default_rng(1).normal(size=p.shape).astype("float32")
               for name, p in whole.state_dict().items()}
    whole.set_state_dict({name: eager.to_tensor(value) for name, value in trained.items()})
    whole.save_state_dict(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["layer_00-tensor_00-model_states.pdparams",
                                                         "layer_02-tensor_00-model_states.pdparams"]
    fresh = PipelineLayer(descs, num_stages=1)
    fresh.set_state_dir(str(tmp_path))
    for name, value in fresh.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), trained[name], err_msg=name)
    # a stage of another cut reads its own items' files: stage 0 of 2 with boundaries [0, 1, 3] holds item 0
    stage0 = PipelineLayer(descs, topology=CommunicateTopology(["data", "pipe", "model"], [1, 2, 1]),
                           seg_method=[0, 1])
    assert stage0._stage_id == 0 and sorted(stage0.state_dict()) == ["0.bias", "0.weight"]
    stage0.set_state_dir(str(tmp_path))
    np.testing.assert_array_equal(stage0.state_dict()["0.weight"].numpy(), trained["0.weight"])
    with pytest.raises(FileNotFoundError, match="PipelineLayer.set_state_dir: no directory"):
        fresh.set_state_dir(str(tmp_path / "missing"))
    (tmp_path / "layer_02-tensor_00-model_states.pdparams").unlink()
    with pytest.raises(FileNotFoundError, match=r"no file layer_02-\*model_states.pdparams in .* for item 2 "
                                                r"\(Linear\)"):
        fresh.set_state_dir(str(tmp_path))


# -- pipeline and tensor parallelism together ------------------------------------------------
TP_V, TP_H, TP_F, TP_C = 8, 4, 6, 10
TP_IDS = rng.integers(0, TP_V, size=(TRAIN_STEPS, BATCH, SEQ))
TP_LABELS = rng.integers(0, TP_C, size=(TRAIN_STEPS, BATCH, SEQ))

TP_MODELS = '''
import eager
from eager.distributed.fleet import meta_parallel as mp


def tp_layers(V, H, F, C):
    return [LayerDesc(mp.VocabParallelEmbedding, V, H),
            LayerDesc(mp.ColumnParallelLinear, H, F, has_bias=True, gather_output=False),
            eager.tanh,
            LayerDesc(mp.RowParallelLinear, F, H, input_is_parallel=True),
            LayerDesc(mp.ColumnParallelLinear, H, C, gather_output=False)]


def tp_loss(logits, labels):
    return mp.ParallelCrossEntropy()(logits, labels).mean()
'''

TP_SCRIPT = '''
import json
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.fleet.meta_parallel import LayerDesc, PipelineLayer

exec({models!r})
V, H, F, C, MICRO, STEPS, LR, CLIP, TRAIN_STEPS = {V}, {H}, {F}, {C}, {MICRO}, {STEPS}, {LR}, {CLIP}, {TRAIN_STEPS}
IDS, LABELS = np.array({ids}), np.array({labels})
eager.set_default_dtype("float64")
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": 1, "mp_degree": 2, "pp_degree": 2}}
strategy.pipeline_configs = {{"accumulate_steps": STEPS, "micro_batch_size": MICRO}}
fleet.init(is_collective=True, strategy=strategy)
hcg = fleet.get_hybrid_communicate_group()
out = {{"meta": [hcg.get_stage_id(), hcg.get_model_parallel_rank(), hcg.get_pipe_parallel_group().ranks,
                 hcg.get_model_parallel_group().ranks]}}
layer = PipelineLayer(tp_layers(V, H, F, C), topology=hcg.topology(), loss_fn=tp_loss)
model = fleet.distributed_model(layer)
optimizer = fleet.distributed_optimizer(eager.optimizer.SGD(LR, parameters=model.parameters(),
                                                            grad_clip=eager.nn.ClipGradByGlobalNorm(CLIP)))
out["losses"] = [float(model.train_batch([eager.to_tensor(IDS[s]), eager.to_tensor(LABELS[s])], optimizer))
                 for s in range(TRAIN_STEPS)]
out["params"] = {{name: [p.numpy().tolist(), p.split_axis if p.is_distributed else None]
                 for name, p in layer.state_dict().items()}}
with open(f"rank{{dist.get_rank()}}.json", "w") as handle:
    json.dump(out, handle)
'''


def test_pipeline_with_tensor_parallel_stages(tmp_path):
    """pp 2 x mp 2 on 4 ranks: each stage's tensor-parallel layers hold the slices of the
    one-process network's weights, before and after training with a clip over both groups."""
    script = TP_SCRIPT.format(models=TP_MODELS, V=TP_V, H=TP_H, F=TP_F, C=TP_C, MICRO=MICRO, STEPS=STEPS, LR=LR,
                              CLIP=CLIP, TRAIN_STEPS=TRAIN_STEPS, ids=TP_IDS.tolist(), labels=TP_LABELS.tolist())
    run_ranks(4, script, tmp_path, timeout=240)
    outs = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(4)]
    namespace = {"LayerDesc": LayerDesc}
    exec(TP_MODELS, namespace)
    eager.set_default_dtype("float64")
    try:
        Fleet().init(is_collective=True)              # mp_degree 1: the parallel layers hold whole weights
        losses, reference = reference_training(
            namespace["tp_layers"](TP_V, TP_H, TP_F, TP_C), namespace["tp_loss"], TP_IDS[:, None], TP_LABELS[:, None],
            1, lambda params: eager.optimizer.SGD(LR, parameters=params, grad_clip=eager.nn.ClipGradByGlobalNorm(CLIP)))
    finally:
        eager.set_default_dtype("float32")
    want = {name: p.numpy() for name, p in reference.state_dict().items()}
    seen = set()
    for rank, out in enumerate(outs):
        stage, mp_rank, pp_ranks, mp_ranks = out["meta"]
        # [data, pipe, sharding, sep, model], the model axis fastest: rank = 2 * stage + mp_rank
        assert (stage, mp_rank) == divmod(rank, 2) and pp_ranks == [mp_rank, 2 + mp_rank]
        assert mp_ranks == [2 * stage, 2 * stage + 1]
        np.testing.assert_allclose(out["losses"], [step[0] for step in losses], rtol=1e-11)
        for name, (value, axis) in out["params"].items():
            full = want[name] if axis is None else np.split(want[name], 2, axis=axis)[mp_rank]
            np.testing.assert_allclose(value, full, rtol=1e-10, atol=1e-12, err_msg=f"rank {rank} {name}")
            seen.add(name)
    assert seen == set(want)
