"""Tensor (model) parallelism with fleet: a network of VocabParallelEmbedding,
ColumnParallelLinear, RowParallelLinear and ParallelCrossEntropy on real MPI
ranks (mp_degree 2, and dp_degree 2 x mp_degree 2) against the same network of
eager.nn.Embedding/Linear/cross_entropy in one process on the full weights:
each shard is the slice of the full seeded weight; forward outputs, input
gradients and the shards' gradients are the matching slices; an SGD step with
a global-norm clip lands on the slices of the one-process step. Also the
hybrid group's rank layout (Paddle's), the topology arithmetic, the strategy
and init checks, the layers' errors, and paddle.distributed.split's refusal.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import eager
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.fleet import CommunicateTopology, DistributedStrategy, Fleet
from eager.autograd import gradcheck
from eager.distributed.fleet.base import topology
from eager.distributed.fleet.layers.mpu import mp_ops
from mpi_run import run_ranks

V, H, F1, C = 8, 4, 6, 10          # vocabulary, hidden, inner (column/row), classes
BATCH, SEQ, SEED, LR, CLIP = 4, 3, 11, 0.5, 0.3
rng = np.random.default_rng(5)
IDS = rng.integers(0, V, size=(BATCH, SEQ))
LABELS = rng.integers(0, C, size=(BATCH, SEQ))
LABELS[1, 2] = -100                 # ignored
X = rng.normal(size=(BATCH, H))     # for the stand-alone gather/split layers
W_OUT_C, W_OUT_R = rng.normal(size=(BATCH, F1)), rng.normal(size=(BATCH, 3))

RANK_SCRIPT = '''
import json, sys
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.fleet import meta_parallel as mp
from eager.distributed.fleet.layers.mpu import mp_ops

V, H, F1, C, SEED, LR, CLIP = {V}, {H}, {F1}, {C}, {SEED}, {LR}, {CLIP}
IDS, LABELS, X = np.array({ids}), np.array({labels}), np.array({x})
W_OUT_C, W_OUT_R = np.array({w_out_c}), np.array({w_out_r})
eager.set_default_dtype("float64")
dp_degree = int(sys.argv[1])
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {{"dp_degree": dp_degree, "mp_degree": 2, "pp_degree": 1}}
fleet.init(is_collective=True, strategy=strategy)
rank = dist.get_rank()
hcg = fleet.get_hybrid_communicate_group()
out = {{"meta": [rank, hcg.get_model_parallel_rank(), hcg.get_model_parallel_world_size(),
                 hcg.get_model_parallel_group().ranks, hcg.get_data_parallel_rank(),
                 hcg.get_data_parallel_world_size(), hcg.get_data_parallel_group().ranks,
                 hcg.get_model_parallel_group_src_rank(), hcg.get_data_parallel_group_src_rank(),
                 hcg.get_parallel_mode()]}}


class Net(eager.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = mp.VocabParallelEmbedding(V, H)
        self.col = mp.ColumnParallelLinear(H, F1, has_bias=True, gather_output=False)
        self.row = mp.RowParallelLinear(F1, H, input_is_parallel=True)
        self.head = mp.ColumnParallelLinear(H, C, gather_output=False)
        self.loss = mp.ParallelCrossEntropy()

    def forward(self, ids, labels):
        hidden = self.row(eager.tanh(self.col(self.emb(ids))))
        return self.loss(self.head(hidden), labels)


eager.seed(SEED)
net = Net()
gather_col = mp.ColumnParallelLinear(H, F1, has_bias=True)                 # gather_output=True
split_row = mp.RowParallelLinear(F1, 3)                                    # input_is_parallel=False
for name, param in [("emb_w", net.emb.weight), ("col_w", net.col.weight), ("col_b", net.col.bias),
                    ("row_w", net.row.weight), ("row_b", net.row.bias), ("head_w", net.head.weight),
                    ("gcol_w", gather_col.weight), ("srow_w", split_row.weight)]:
    out["init_" + name] = param.numpy().tolist()
out["distributed"] = [net.emb.weight.is_distributed, net.col.weight.split_axis, net.row.weight.split_axis,
                      net.row.bias.is_distributed, net.head.bias is None]

model = fleet.distributed_model(net)
out["wrapped"] = type(model).__name__
clip = eager.nn.ClipGradByGlobalNorm(CLIP)
optimizer = fleet.distributed_optimizer(eager.optimizer.SGD(LR, parameters=model.parameters(), grad_clip=clip))
out["optimizer"] = type(optimizer).__name__
half = len(IDS) // hcg.get_data_parallel_world_size()
rows = slice(hcg.get_data_parallel_rank() * half, (hcg.get_data_parallel_rank() + 1) * half)
loss = model(eager.to_tensor(IDS[rows]), eager.to_tensor(LABELS[rows]))
out["loss"] = loss.numpy().tolist()
loss.mean().backward()
params = [("emb_w", net.emb.weight), ("col_w", net.col.weight), ("col_b", net.col.bias),
          ("row_w", net.row.weight), ("row_b", net.row.bias), ("head_w", net.head.weight)]
for name, param in params:
    out["grad_" + name] = param.grad.numpy().tolist()
optimizer.step()
optimizer.clear_grad()
for name, param in params:
    out["step_" + name] = param.numpy().tolist()

x = eager.to_tensor(X, stop_gradient=False)
y = gather_col(x)
out["gcol_y"] = y.numpy().tolist()
(y * eager.to_tensor(W_OUT_C)).sum().backward()
out["gcol_dx"], out["gcol_dw"], out["gcol_db"] = (x.grad.numpy().tolist(), gather_col.weight.grad.numpy().tolist(),
                                                  gather_col.bias.grad.numpy().tolist())
x6 = eager.to_tensor(np.tanh(np.arange(len(X) * F1).reshape(len(X), F1) / 7.0), stop_gradient=False)
y = split_row(x6)
out["srow_y"] = y.numpy().tolist()
(y * eager.to_tensor(W_OUT_R)).sum().backward()
out["srow_dx"], out["srow_dw"] = x6.grad.numpy().tolist(), split_row.weight.grad.numpy().tolist()

errors = []
def expect(call):
    try:
        call()
    except Exception as error:
        errors.append([type(error).__name__, str(error)])
    else:
        errors.append(["none", ""])
expect(lambda: mp.ColumnParallelLinear(4, 5))
expect(lambda: mp.RowParallelLinear(5, 4))
expect(lambda: mp.VocabParallelEmbedding(7, 4))
expect(lambda: net.row(eager.ones([2, F1])))
expect(lambda: net.loss(eager.ones([2, C // 2]), eager.to_tensor(np.array([0, C]))))
expect(lambda: mp_ops._c_split(eager.ones([2, 3]), group=hcg.get_model_parallel_group()))
expect(lambda: net.emb(eager.to_tensor(np.array([V]))))
expect(lambda: mp.ColumnParallelLinear(4, 4, mp_group="group"))
out["errors"] = errors
with open(f"rank{{rank}}.json", "w") as handle:
    json.dump(out, handle)
'''


def rank_script() -> str:
    return RANK_SCRIPT.format(V=V, H=H, F1=F1, C=C, SEED=SEED, LR=LR, CLIP=CLIP, ids=IDS.tolist(),
                              labels=LABELS.tolist(), x=X.tolist(), w_out_c=W_OUT_C.tolist(),
                              w_out_r=W_OUT_R.tolist())


def reference(rows) -> dict:
    """The same network in one process: eager.nn layers on the full weights."""
    eager.set_default_dtype("float64")
    try:
        eager.seed(SEED)
        emb, col = eager.nn.Embedding(V, H), eager.nn.Linear(H, F1)
        row, head = eager.nn.Linear(F1, H), eager.nn.Linear(H, C, bias_attr=False)
        gather_col, split_row = eager.nn.Linear(H, F1), eager.nn.Linear(F1, 3)
        ref = {"init_emb_w": emb.weight.numpy(), "init_col_w": col.weight.numpy(), "init_row_w": row.weight.numpy(),
               "init_head_w": head.weight.numpy(), "init_gcol_w": gather_col.weight.numpy(),
               "init_srow_w": split_row.weight.numpy()}
        params = [("emb_w", emb.weight), ("col_w", col.weight), ("col_b", col.bias), ("row_w", row.weight),
                  ("row_b", row.bias), ("head_w", head.weight)]
        logits = head(row(eager.tanh(col(emb(eager.to_tensor(IDS[rows]))))))
        loss = eager.nn.functional.cross_entropy(logits, eager.to_tensor(LABELS[rows][..., None]), reduction="none")
        ref["logits"] = logits.numpy()
        ref["loss"] = loss.numpy()
        loss.mean().backward()
        ref.update({"grad_" + name: p.grad.numpy() for name, p in params})
        sgd = eager.optimizer.SGD(LR, parameters=[p for _, p in params], grad_clip=eager.nn.ClipGradByGlobalNorm(CLIP))
        ref["clip_active"] = np.sqrt(sum((p.grad.numpy() ** 2).sum() for _, p in params)) > CLIP
        return ref, sgd, params, gather_col, split_row
    finally:
        eager.set_default_dtype("float32")


def numpy_cross_entropy(logits, labels):
    shifted = logits - logits.max(-1, keepdims=True)
    logsum = np.log(np.exp(shifted).sum(-1))
    picked = np.take_along_axis(shifted, np.where(labels < 0, 0, labels)[..., None], -1)[..., 0]
    return np.where(labels == -100, 0.0, logsum - picked)


def shard(array, axis, part, parts=2):
    return np.split(np.asarray(array), parts, axis=axis)[part]


SPLIT_AXIS = {"emb_w": 0, "col_w": 1, "col_b": 0, "row_w": 0, "row_b": None, "head_w": 1}


def check_rank(out, dp_degree):
    rank, mp_rank, mp_size, mp_ranks, dp_rank, dp_size, dp_ranks, mp_src, dp_src, mode = out["meta"]
    # Paddle's layout: [data, pipe, sharding, sep, model], the model axis fastest
    assert (mp_rank, mp_size, dp_rank, dp_size) == (rank % 2, 2, rank // 2, dp_degree)
    assert mp_ranks == [rank - rank % 2, rank - rank % 2 + 1] and mp_src == mp_ranks[0]
    assert dp_ranks == list(range(rank % 2, 2 * dp_degree, 2)) and dp_src == dp_ranks[0]
    assert mode == dist.ParallelMode.TENSOR_PARALLEL
    assert out["wrapped"] == "TensorParallel" and out["optimizer"] == "HybridParallelOptimizer"
    assert out["distributed"] == [True, 1, 0, False, True]
    half = BATCH // dp_degree
    ref, sgd, params, gather_col, split_row = reference(slice(dp_rank * half, (dp_rank + 1) * half))
    # init: each shard is the slice of the single-process layer's seeded weight
    for name, axis in [("emb_w", 0), ("col_w", 1), ("row_w", 0), ("head_w", 1), ("gcol_w", 1), ("srow_w", 0)]:
        np.testing.assert_array_equal(out["init_" + name], shard(ref["init_" + name], axis, mp_rank), err_msg=name)
    np.testing.assert_array_equal(out["init_col_b"], np.zeros(F1 // 2))
    # forward: the loss per token, against eager's cross_entropy and NumPy's
    np.testing.assert_allclose(out["loss"], ref["loss"], rtol=1e-12, atol=1e-13)
    labels = LABELS[dp_rank * half:(dp_rank + 1) * half]
    np.testing.assert_allclose(np.asarray(out["loss"])[..., 0], numpy_cross_entropy(ref["logits"], labels),
                               rtol=1e-12, atol=1e-13)
    # backward: each shard's gradient is the slice of the full gradient (the replicated bias: all of it)
    for name, axis in SPLIT_AXIS.items():
        want = ref["grad_" + name] if axis is None else shard(ref["grad_" + name], axis, mp_rank)
        np.testing.assert_allclose(out["grad_" + name], want, rtol=1e-11, atol=1e-13, err_msg=name)
    return ref, sgd, params, gather_col, split_row


def check_standalone(out, gather_col, split_row):
    mp_rank = out["meta"][1]
    x = eager.to_tensor(X, stop_gradient=False)
    y = gather_col(x)
    np.testing.assert_allclose(out["gcol_y"], y.numpy(), rtol=1e-12, atol=1e-13)
    (y * eager.to_tensor(W_OUT_C)).sum().backward()
    np.testing.assert_allclose(out["gcol_dx"], x.grad.numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["gcol_dw"], shard(gather_col.weight.grad.numpy(), 1, mp_rank), rtol=1e-12)
    np.testing.assert_allclose(out["gcol_db"], shard(gather_col.bias.grad.numpy(), 0, mp_rank), rtol=1e-12)
    x6 = eager.to_tensor(np.tanh(np.arange(len(X) * F1).reshape(len(X), F1) / 7.0), stop_gradient=False)
    y = split_row(x6)
    np.testing.assert_allclose(out["srow_y"], y.numpy(), rtol=1e-12, atol=1e-13)
    (y * eager.to_tensor(W_OUT_R)).sum().backward()
    np.testing.assert_allclose(out["srow_dx"], x6.grad.numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["srow_dw"], shard(split_row.weight.grad.numpy(), 0, mp_rank), rtol=1e-12)


def check_errors(errors):
    wanted = [
        ("ValueError", "ColumnParallelLinear: out_features (the weight's columns) (5) must be divisible by the "
                       "model-parallel degree (2)"),
        ("ValueError", "RowParallelLinear: in_features (the weight's rows) (5) must be divisible"),
        ("ValueError", "VocabParallelEmbedding: num_embeddings (the vocabulary) (7) must be divisible"),
        ("ValueError", "argument 'x' expected a last dimension of 3 (in_features / mp_degree"),
        ("ValueError", "argument 'label' holds 10, outside the 10 classes 0..9"),
        ("ValueError", "_c_split: argument 'tensor' has a last dimension of 3, which does not divide among the "
                       "group's 2 ranks"),
        ("ValueError", "_c_lookup_table: argument 'index' holds ids from 8 to 8, outside the vocabulary 0..7"),
        ("TypeError", "ColumnParallelLinear: argument 'mp_group' expected an eager.distributed Group or None, "
                      "got str"),
    ]
    assert len(errors) == len(wanted)
    for (kind, message), (want_kind, want_text) in zip(errors, wanted):
        assert kind == want_kind and want_text in message, (kind, message)


@pytest.mark.parametrize("dp_degree, nranks", [(1, 2), (2, 4)])
def test_tensor_parallel_equals_one_process_on_the_full_weights(tmp_path, dp_degree, nranks):
    run_ranks(nranks, rank_script(), tmp_path, timeout=180, args=(dp_degree,))
    outs = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(nranks)]
    full_batch, sgd, params, _, _ = reference(slice(0, BATCH))
    assert full_batch["clip_active"]      # the global-norm clip changes the step, so its norm is checked
    sgd.step()
    for out in outs:
        ref, _, _, gather_col, split_row = check_rank(out, dp_degree)
        # the step: gradients averaged over the data-parallel ranks, clipped by the norm of the whole model
        mp_rank = out["meta"][1]
        for name, param in params:
            axis = SPLIT_AXIS[name]
            want = param.numpy() if axis is None else shard(param.numpy(), axis, mp_rank)
            np.testing.assert_allclose(out["step_" + name], want, rtol=1e-11, atol=1e-13, err_msg=name)
        eager.set_default_dtype("float64")
        try:
            check_standalone(out, gather_col, split_row)
        finally:
            eager.set_default_dtype("float32")
        check_errors(out["errors"])


# -- in one process --------------------------------------------------------------
def test_topology_is_paddles_layout():
    topo = CommunicateTopology(["data", "pipe", "sharding", "sep", "model"], [3, 1, 1, 1, 2])
    assert topo.world_size() == 6 and topo.get_dim("model") == 2
    assert topo.get_comm_list("model") == [[0, 1], [2, 3], [4, 5]]
    assert topo.get_comm_list("data") == [[0, 2, 4], [1, 3, 5]]
    assert topo.get_comm_list("pipe") == [[r] for r in range(6)]
    assert tuple(topo.get_coord(5)) == (2, 0, 0, 0, 1)
    assert topo.get_rank(data=1, pipe=0, sharding=0, sep=0, model=1) == 3
    assert topo.get_axis_list("model", 0) == [0, 2, 4]
    for rank in range(6):   # the coordinate and the rank are inverse maps
        assert topo.get_rank(**topo.get_coord(rank)._asdict()) == rank
    with pytest.raises(ValueError, match="no axis 'tensor'"):
        topo.get_dim("tensor")
    with pytest.raises(ValueError, match="argument 'rank' expected 0..5, got 6"):
        topo.get_coord(6)
    with pytest.raises(ValueError, match="argument 'dims' expected 5 sizes"):
        CommunicateTopology(["data", "pipe", "sharding", "sep", "model"], [1, 2])


def test_strategy_takes_mp_degree_and_init_checks_the_world():
    strategy = DistributedStrategy()
    strategy.hybrid_configs = {"dp_degree": 2, "mp_degree": 2, "pp_degree": 1}
    assert strategy.hybrid_configs["mp_degree"] == 2
    with pytest.raises(ValueError, match="so sep_degree must be 1"):
        strategy.hybrid_configs = {"sep_degree": 2}
    with pytest.raises(ValueError, match=r"hybrid_configs\['mp_degree'\] expected a non-negative int"):
        strategy.hybrid_configs = {"mp_degree": -2}
    with pytest.raises(ValueError, match="static-graph tensor parallelism"):
        strategy.tensor_parallel = True
    fresh = Fleet()
    with pytest.raises(ValueError, match=r"dp_degree 2 \* mp_degree 2 = 4 ranks, but the job has 1"):
        fresh.init(is_collective=True, strategy=strategy)
    strategy.hybrid_configs = {"dp_degree": -1, "mp_degree": 2}
    with pytest.raises(ValueError, match="'mp_degree'\\] is 2, which does not divide the job's 1 ranks"):
        fresh.init(is_collective=True, strategy=strategy)
    with pytest.raises(RuntimeError, match="call fleet.init"):       # nothing was kept
        fresh.get_hybrid_communicate_group()


def test_world_of_one_hybrid_group_and_layers():
    fleet.init(is_collective=True)
    hcg = fleet.get_hybrid_communicate_group()
    assert (hcg.get_model_parallel_rank(), hcg.get_model_parallel_world_size(), hcg.get_data_parallel_rank(),
            hcg.get_data_parallel_world_size()) == (0, 1, 0, 1)
    assert hcg.get_model_parallel_group().ranks == [0] and hcg.get_parallel_mode() is None   # as Paddle's
    assert fleet.get_hybrid_parallel_topology().get_hybrid_group_names() == ["data", "pipe", "sharding", "sep",
                                                                             "model"]
    # one shard: the layers are eager.nn's Linear/Embedding/cross-entropy on the same seeded weights
    eager.seed(3)
    col = fleet.meta_parallel.ColumnParallelLinear(4, 6, has_bias=True)
    eager.seed(3)
    linear = eager.nn.Linear(4, 6)
    np.testing.assert_array_equal(col.weight.numpy(), linear.weight.numpy())
    assert col.weight.is_distributed is False and col.bias is not None
    x = eager.to_tensor(np.arange(8.0, dtype="float32").reshape(2, 4))
    np.testing.assert_allclose(col(x).numpy(), linear(x).numpy(), rtol=1e-6)
    logits = eager.to_tensor(np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]]))
    loss = fleet.meta_parallel.ParallelCrossEntropy()(logits, eager.to_tensor(np.array([2, 0])))
    np.testing.assert_allclose(loss.numpy()[:, 0], numpy_cross_entropy(logits.numpy(), np.array([2, 0])),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="argument 'x' expected a last dimension of 4"):
        col(eager.ones([2, 3]))
    with pytest.raises(ValueError, match="expected shape \\[2\\] or \\[2, 1\\]"):
        fleet.meta_parallel.ParallelCrossEntropy()(logits, eager.to_tensor(np.array([[0, 1]])))


def test_layers_need_a_group():
    saved, topology._HYBRID_PARALLEL_GROUP = topology._HYBRID_PARALLEL_GROUP, None
    try:
        with pytest.raises(RuntimeError, match="VocabParallelEmbedding: no hybrid-parallel group: call fleet.init"):
            fleet.meta_parallel.VocabParallelEmbedding(8, 2)
    finally:
        topology._HYBRID_PARALLEL_GROUP = saved


def test_split_checks_then_refuses_dynamic_mode():
    x = eager.ones([2, 4])
    cases = [
        (TypeError, "argument 'size' expected a list or tuple", dict(size=4, operation="linear")),
        (ValueError, "argument 'size' expected two ints", dict(size=(4, 2, 1), operation="linear")),
        (TypeError, "argument 'operation' expected a str", dict(size=(4, 2), operation=1)),
        (ValueError, "argument 'operation' expected one of \\['linear', 'embedding'\\], got 'conv'",
         dict(size=(4, 2), operation="conv")),
        (ValueError, "cannot be used in dynamic graph mode.*ColumnParallelLinear",
         dict(size=(4, 2), operation="linear")),
    ]
    for kind, text, kwargs in cases:
        with pytest.raises(kind, match=text):
            dist.split(x, **kwargs)


@pytest.mark.usefixtures("device")
def test_mp_ops_in_a_group_of_one_values_and_gradients():
    world = dist.get_group(0)
    rng = np.random.default_rng(2)
    logits = eager.to_tensor(rng.normal(size=(3, 2, 5)), stop_gradient=False)
    labels = np.array([[0, 4], [-100, 2], [3, 1]])
    label = eager.to_tensor(labels)
    loss, softmax = mp_ops._c_softmax_with_cross_entropy(logits, label, group=world, return_softmax=True)
    assert loss.shape == [3, 2, 1]
    np.testing.assert_allclose(loss.numpy()[..., 0], numpy_cross_entropy(logits.numpy(), labels), rtol=1e-12)
    exps = np.exp(logits.numpy() - logits.numpy().max(-1, keepdims=True))
    np.testing.assert_allclose(softmax.numpy(), exps / exps.sum(-1, keepdims=True), rtol=1e-12)
    gradcheck(lambda x: mp_ops._c_softmax_with_cross_entropy(x, label, group=world), (logits,))
    # the label with a trailing 1 gives the same loss
    again = mp_ops._c_softmax_with_cross_entropy(logits, eager.to_tensor(labels[..., None]), group=world)
    np.testing.assert_array_equal(again.numpy(), loss.numpy())
    # a shard of a vocabulary: rows 3..5 of 6; ids elsewhere look up zeros
    table = eager.to_tensor(rng.normal(size=(3, 2)), stop_gradient=False)
    ids = eager.to_tensor(np.array([[0, 3], [5, 4]]))
    rows = mp_ops._c_lookup_table(table, ids, start_index=3, vocab_size=6)
    want = np.zeros((2, 2, 2))
    want[0, 1], want[1, 0], want[1, 1] = table.numpy()[0], table.numpy()[2], table.numpy()[1]
    np.testing.assert_array_equal(rows.numpy(), want)
    gradcheck(lambda t: mp_ops._c_lookup_table(t, ids, start_index=3, vocab_size=6), (table,))
    # in a group of one the joining collectives are identities, forward and backward
    x = eager.to_tensor(rng.normal(size=(2, 4)), stop_gradient=False)
    for op in (mp_ops._c_identity, mp_ops._c_concat, mp_ops._c_split, mp_ops._mp_allreduce):
        np.testing.assert_array_equal(op(x, group=world).numpy(), x.numpy())
        gradcheck(lambda t, op=op: op(t, group=world) * t, (x,))
    with pytest.raises(ValueError, match="_mp_allreduce: argument 'op' expected ReduceOp.SUM"):
        mp_ops._mp_allreduce(x, op=dist.ReduceOp.MAX, group=world)
    with pytest.raises(TypeError, match="argument 'label' expected int32 or int64 class ids, got"):
        mp_ops._c_softmax_with_cross_entropy(logits, eager.ones([3, 2]), group=world)
    with pytest.raises(TypeError, match="_c_concat: argument 'group' expected an eager.distributed.Group"):
        mp_ops._c_concat(x, group=1)
