"""Group-sharded data parallelism (eager.distributed.sharding, Paddle's
paddle.distributed.sharding) on two real MPI ranks against one process over
the full batch: for each level ('os', 'os_g', 'p_g_os'), with Adam and
Momentum under a global-norm clip, the losses of three steps and the final
parameters equal the one-process run (float64); each rank's optimizer keeps
state only for the parameters it owns (Paddle's greedy split); 'os_g' and
'p_g_os' drop the other ranks' gradients; 'p_g_os' holds only its own
parameters' storage between steps (measured), 'exclude_layer' keeps a layer
whole; a GradScaler skips the same step on both ranks when one rank alone sees
an Inf; save_group_sharded_model's files load into a plain network and
optimizer equal to the reference. One mpiexec run covers all of it (the
ranks' JSON is checked by several tests); the same run trains through fleet
with hybrid_configs sharding_degree 2 (DygraphShardingOptimizer, stage 1). In
one process: the split, the world-of-one run, and the errors.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import eager
from eager.distributed import fleet
from eager.distributed.fleet import DistributedStrategy
from eager.distributed.fleet.dygraph_sharding_optimizer import DygraphShardingOptimizer
from eager.distributed.sharding import group_sharded_parallel, save_group_sharded_model
from eager.distributed.sharding import group_sharded
from mpi_run import run_ranks

# Shared by the ranks and the one-process reference (exec'd here, prepended to the rank script).
COMMON = '''
import numpy as np
import eager

X = np.random.default_rng(3).normal(size=(8, 4))
Y = np.random.default_rng(4).normal(size=(8, 3))
CLIP = 0.5
STEPS = 3
# (level, optimizer spec, extra): 'buffers' packs at most 20 elements per collective (runs of one
# parameter and of several); Momentum unclipped checks the averaging (Adam and a clip that bites
# hide a factor in the gradients), a clip checks the sharded global norm, Adam the moments' split.
CASES = [("os", "momentum", "buffers"), ("os_g", "momentum+clip", "buffers"), ("p_g_os", "momentum", None),
         ("p_g_os", "adam+clip", "exclude"), ("os_g", "adam", "scaler"), ("os", "momentum+clip", "fleet"),
         ("os_g", "momentum", "dp")]
SAVED = [1, 2, 3]  # the cases whose model and optimizer are saved


def build(spec):
    """The network and its optimizer: spec is 'adam' or 'momentum', '+clip' for a global-norm clip."""
    optimizer_name, _, clipped = spec.partition("+")
    eager.seed(7)
    with eager.utils.unique_name.guard():  # the same parameter names in every process and case
        net = eager.nn.Sequential(eager.nn.Linear(4, 6), eager.nn.Tanh(), eager.nn.Linear(6, 5), eager.nn.Tanh(),
                                  eager.nn.Linear(5, 3))
    clip = eager.nn.ClipGradByGlobalNorm(CLIP) if clipped else None
    if optimizer_name == "adam":
        opt = eager.optimizer.Adam(0.05, parameters=net.parameters(), grad_clip=clip)
    else:
        opt = eager.optimizer.Momentum(0.1, momentum=0.9, parameters=net.parameters(), grad_clip=clip)
    return net, opt


def loss_of(model, rows):
    out = model(eager.to_tensor(X[rows]))
    return ((out - eager.to_tensor(Y[rows])) ** 2).mean()
'''

RANK_SCRIPT = COMMON + '''
import json
import eager.distributed as dist
from eager.distributed import fleet
from eager.distributed.sharding import group_sharded_parallel, save_group_sharded_model

eager.set_default_dtype("float64")
dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
rows = slice(rank * len(X) // world, (rank + 1) * len(X) // world)


def released(net):
    """Per parameter: whether its storage is released (zero strides)."""
    return [all(s == 0 for s in p.impl.array.strides) and p.impl.array.size > 1 for p in net.parameters()]


def held_bytes(net):
    return int(sum(p.impl.array.itemsize if flag else p.impl.array.nbytes
                   for p, flag in zip(net.parameters(), released(net))))


def run(index, level, spec, extra):
    net, opt = build(spec)
    kwargs = {}
    if extra == "exclude":
        kwargs["exclude_layer"] = [id(net[2])]
    if extra == "buffers":
        kwargs["buffer_max_size"] = 20
    if extra == "dp":  # sharding groups of one rank, the two replicas joined by dp_group
        singles = [dist.new_group([r]) for r in range(world)]
        kwargs["group"], kwargs["dp_group"] = singles[rank], dist.new_group(list(range(world)))
    if extra == "scaler":
        kwargs["scaler"] = eager.amp.GradScaler(init_loss_scaling=1024.0)
    if extra == "fleet":  # stage 1 through fleet: hybrid_configs sharding_degree
        strategy = fleet.DistributedStrategy()
        strategy.hybrid_configs = {"dp_degree": 1, "sharding_degree": world}
        fleet.init(is_collective=True, strategy=strategy)
        model, opt, scaler = fleet.distributed_model(net), fleet.distributed_optimizer(opt), None
    else:
        model, opt, scaler = group_sharded_parallel(net, opt, level, **kwargs)
    out = {"level": level, "optimizer": spec, "extra": extra, "losses": [],
           "param2rank": opt.param2rank, "names": [p.name for p in net.parameters()],
           "wrapped": [type(model).__name__, type(opt).__name__, type(scaler).__name__,
                       type(getattr(opt, "_inner_opt", None)).__name__]}
    for step in range(STEPS):
        out["released_before_forward"] = released(net)
        out["held_bytes_between_steps"] = held_bytes(net)
        loss = loss_of(model, rows)
        total = eager.to_tensor(np.array([loss.item()]))
        dist.all_reduce(total)
        out["losses"].append(total.item() / world)
        if scaler is not None:
            if step == 1 and rank == 1:
                loss = loss * float("inf")       # only this rank sees an Inf: both must skip
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        out["grad_is_none_after_step"] = [p.grad is None for p in net.parameters()]
        out["released_after_step"] = released(net)
        opt.clear_grad()
    state = opt.state_dict()
    out["state_keys"] = sorted(k for k in state if not k.startswith("@"))
    out["state"] = {k: np.asarray(v).tolist() for k, v in state.items() if not k.startswith("@")}
    if scaler is not None:
        out["scale"] = scaler._scale
    if level == "p_g_os":  # a forward under no_grad gathers, then releases at once
        with eager.no_grad():
            total = eager.to_tensor(np.array([loss_of(model, rows).item()]))
        out["released_after_eval"] = released(net)
        dist.all_reduce(total)
        out["eval_loss"] = total.item() / world
    if index in SAVED:
        save_group_sharded_model(model, f"saved_{index}", optimizer=opt)
        out["released_after_save"] = released(net)
    if level == "p_g_os":
        model.get_all_parameters()
    out["final"] = {k: v.numpy().tolist() for k, v in net.state_dict().items()}
    return out


class Partly(eager.nn.Layer):
    """Three heads: ``a`` always used, ``b`` on rank 0 only, ``c`` never."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = eager.nn.Linear(4, 3), eager.nn.Linear(4, 3), eager.nn.Linear(4, 3)

    def forward(self, x, use_b):
        y = self.a(x)
        return y + self.b(x) if use_b else y


def grads_of(net):
    return [None if p.grad is None else p.grad.numpy().tolist() for p in net.parameters()]


def in_backward():
    """Stage 2/3 reduce during backward: .grad right after backward, accumulation over two
    backwards, eager.grad left local, parameters used on one rank or none, and the memory
    backward allocates (tracemalloc) against the full gradients' size."""
    import tracemalloc
    out = {}
    for level in ("os_g", "p_g_os"):
        net, opt = build("momentum")
        model, opt, _ = group_sharded_parallel(net, opt, level)
        loss = loss_of(model, rows)
        local = eager.grad(loss, net.parameters(), retain_graph=True)
        out[level + "_grad_untouched"] = [p.grad is None for p in net.parameters()]
        out[level + "_local"] = [g.numpy().tolist() for g in local]
        loss.backward()
        out[level + "_after_backward"] = grads_of(net)
        loss_of(model, rows).backward()  # accumulates: the owner adds the second average
        out[level + "_after_two"] = grads_of(net)
        opt.clear_grad()
    eager.seed(11)
    with eager.utils.unique_name.guard():
        net = Partly()
    opt = eager.optimizer.Momentum(0.1, momentum=0.9, parameters=net.parameters())
    model, opt, _ = group_sharded_parallel(net, opt, "os_g")
    out["partly_owner"] = opt.param2rank
    out["partly_c_before"] = net.c.weight.numpy().tolist()
    model(eager.to_tensor(X[rows]), rank == 0).sum().backward()
    out["partly_after_backward"] = grads_of(net)
    opt.step()
    out["partly_c_after"] = net.c.weight.numpy().tolist()
    growth = {}
    tracemalloc.start()
    for level in ("os", "os_g", "p_g_os"):
        eager.seed(1)
        deep = eager.nn.Sequential(*[eager.nn.Linear(64, 64) for _ in range(16)])
        model, opt, _ = group_sharded_parallel(deep, eager.optimizer.SGD(0.1, parameters=deep.parameters()), level)
        x = eager.to_tensor(np.ones((4, 64)))
        for _ in range(2):  # the second step is measured
            loss = (model(x) ** 2).mean()
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            loss.backward()
            growth[level] = tracemalloc.get_traced_memory()[1] - before
            opt.step()
            opt.clear_grad(set_to_zero=False)  # no gradient held between steps
            del loss
        growth["grad_bytes"] = sum(p.impl.array.itemsize * p.impl.array.size for p in deep.parameters())
    tracemalloc.stop()
    out["growth"] = growth
    return out


results = [run(index, *case) for index, case in enumerate(CASES)]
backward_results = in_backward()
errors = []
try:  # dp_group must meet the sharding group in this rank only (checked before any collective)
    net, opt = build("momentum")
    group_sharded_parallel(net, opt, "os", dp_group=dist.new_group(list(range(world))))
except ValueError as error:
    errors.append(str(error))
results.append(errors)
# sync_buffers: the buffers come from the first rank before each forward
bn = eager.nn.BatchNorm1D(3)
model, _, _ = group_sharded_parallel(bn, eager.optimizer.SGD(0.1, parameters=bn.parameters()), "os",
                                     sync_buffers=True)
bn._mean.set_value(np.full(3, float(rank + 1)))
model.eval()
with eager.no_grad():
    model(eager.ones([2, 3]))
results.append(bn._mean.numpy().tolist())
results.append(backward_results)
with open(f"rank{rank}.json", "w") as handle:
    json.dump(results, handle)
'''



def common():
    namespace: dict = {}
    exec(COMMON, namespace)
    return namespace


STEPS, CASES, SAVED = common()["STEPS"], common()["CASES"], common()["SAVED"]


def reference(spec: str, skip=()) -> dict:
    """One process over the full batch: losses, final parameters, optimizer state,
    and whether the clip was active at the first step."""
    ns = common()
    eager.set_default_dtype("float64")
    try:
        net, opt = ns["build"](spec)
        losses, clip_active = [], None
        for step in range(STEPS):
            loss = ns["loss_of"](net, slice(None))
            losses.append(loss.item())
            loss.backward()
            if clip_active is None:
                norm = np.sqrt(sum(float((p.grad.numpy() ** 2).sum()) for p in net.parameters()))
                clip_active = norm > ns["CLIP"]
            if step not in skip:
                opt.step()
            opt.clear_grad()
        state = {k: np.asarray(v) for k, v in opt.state_dict().items() if not k.startswith("@")}
        final = {k: v.numpy() for k, v in net.state_dict().items()}
        losses.append(ns["loss_of"](net, slice(None)).item())  # after the last step
        return {"losses": losses, "final": final, "state": state, "clip_active": clip_active,
                "names": [p.name for p in net.parameters()], "sizes": [int(np.prod(p.shape)) for p in
                                                                          net.parameters()]}
    finally:
        eager.set_default_dtype("float32")


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    """The two ranks' results for every case, and the folder they ran in."""
    folder = tmp_path_factory.mktemp("sharding")
    run_ranks(2, RANK_SCRIPT, folder, timeout=240)
    return [json.loads((folder / f"rank{r}.json").read_text()) for r in range(2)], folder


def test_partition_is_greedy_by_size_in_order():
    class P:
        def __init__(self, n, stop=False):
            self.shape, self.stop_gradient = [n], stop
    # sizes 10, 3, 4, 2(frozen), 5 over 2 ranks: 10->0, 3->1, 4->1 (3<10), 2->1 (7<10, counts 0), 5->1 (7<10)
    params = [P(10), P(3), P(4), P(2, stop=True), P(5)]
    assert group_sharded.partition(params, 2) == [0, 1, 1, 1, 1]
    assert group_sharded.partition(params, 3) == [0, 1, 2, 1, 1]  # 5 -> rank 1 (3 < 4 < 10)
    assert group_sharded.partition(params, 1) == [0] * 5


def expected_owners(ref, largest_first=False, nranks=2) -> dict:
    """name -> owner over ``nranks`` ranks: Paddle's greedy split, in order (group_sharded_parallel) or
    largest first (fleet's DygraphShardingOptimizer; a stable sort)."""
    order = sorted(range(len(ref["sizes"])), key=lambda i: -ref["sizes"][i]) if largest_first else \
        list(range(len(ref["sizes"])))
    owners = group_sharded.partition([type("P", (), {"shape": [ref["sizes"][i]], "stop_gradient": False})()
                                      for i in order], nranks)
    return {ref["names"][i]: owner for i, owner in zip(order, owners)}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_each_level_equals_one_process_over_the_full_batch(ranks, case):
    outs, _ = ranks
    level, spec, extra = CASES[case]
    skip = (1,) if extra == "scaler" else ()
    ref = reference(spec, skip)
    if spec.endswith("+clip"):
        assert ref["clip_active"]  # the global-norm clip changes the steps, so the sharded norm is checked
    want_owner = expected_owners(ref, largest_first=extra == "fleet", nranks=1 if extra == "dp" else 2)
    for global_rank, results in enumerate(outs):
        out = results[case]
        rank = 0 if extra == "dp" else global_rank  # the rank in the sharding group
        assert (out["level"], out["optimizer"], out["extra"]) == (level, spec, extra)
        np.testing.assert_allclose(out["losses"], ref["losses"][:STEPS], rtol=1e-12, atol=1e-14)
        for name, value in ref["final"].items():
            np.testing.assert_allclose(out["final"][name], value, rtol=1e-11, atol=1e-13, err_msg=name)
        # the optimizer keeps state for its own parameters only, equal to the reference's
        assert out["param2rank"] == want_owner
        mine = [n for n, o in want_owner.items() if o == rank]
        want_keys = sorted(k for k in ref["state"] if any(k.startswith(n + "_") for n in mine))
        assert out["state_keys"] == want_keys and 0 < len(want_keys)
        assert len(want_keys) < len(ref["state"]) or extra == "dp"
        for key in want_keys:
            np.testing.assert_allclose(out["state"][key], ref["state"][key], rtol=1e-10, atol=1e-13, err_msg=key)
        owned = [want_owner[n] == rank for n in out["names"]]
        # gradients after step: kept everywhere ('os'), only on the owner otherwise
        if level == "os":
            assert not any(out["grad_is_none_after_step"])
        elif extra != "scaler":  # (the scaler case's last step ran normally too)
            assert out["grad_is_none_after_step"] == [not o for o in owned]
        if level == "p_g_os":
            kept = list(owned)
            if extra == "exclude":  # net[2]'s weight and bias stay whole on every rank
                kept = [o or n.startswith("linear_1.") for o, n in zip(owned, out["names"])]
            assert out["released_after_step"] == [not k for k in kept]
            assert out["released_before_forward"] == [not k for k in kept]
            assert out["released_after_eval"] == [not k for k in kept]
            np.testing.assert_allclose(out["eval_loss"], ref["losses"][STEPS], rtol=1e-12)
        else:
            assert not any(out["released_after_step"])
    if extra == "fleet":
        assert outs[0][case]["wrapped"] == ["ShardingParallel", "HybridParallelOptimizer", "NoneType",
                                            "DygraphShardingOptimizer"]
    else:
        assert outs[0][case]["wrapped"][:2] == \
            ["GroupShardedStage3" if level == "p_g_os" else "GroupShardedStage2", "GroupShardedOptimizer"]


def test_stage3_holds_only_its_own_parameters_between_steps(ranks):
    outs, _ = ranks
    case = CASES.index(("p_g_os", "momentum", None))
    ref = reference(CASES[case][1])
    sizes = dict(zip(ref["names"], ref["sizes"]))
    total = 8 * sum(sizes.values())
    held = []
    for rank, results in enumerate(outs):
        out = results[case]
        mine = sum(sizes[n] for n, o in out["param2rank"].items() if o == rank)
        others = sum(1 for o in out["param2rank"].values() if o != rank)
        assert out["held_bytes_between_steps"] == 8 * mine + 8 * others  # one float64 per released parameter
        held.append(out["held_bytes_between_steps"])
        assert out["released_after_save"] == [o != rank for o in out["param2rank"].values()]
    assert sum(held) == total + 8 * len(sizes) and max(held) < total  # each parameter kept once, plus 8 B stubs


def test_scaler_skips_the_step_on_every_rank(ranks):
    outs, _ = ranks
    case = CASES.index(("os_g", "adam", "scaler"))
    for out in outs:
        assert out[case]["wrapped"][2] == "GroupShardedScaler"
        assert out[case]["scale"] == 512.0  # halved once: the Inf of rank 1's step counted on both
    # the losses of steps 1 and 2 are equal: the step between them was skipped (checked against the
    # reference with that step left out in test_each_level_equals_one_process_over_the_full_batch)
    assert outs[0][case]["losses"][1] == outs[0][case]["losses"][2]


@pytest.mark.parametrize("case", SAVED)
def test_saved_model_loads_into_a_plain_network(ranks, case):
    _, folder = ranks
    spec = CASES[case][1]
    ref = reference(spec)
    ns = common()
    eager.set_default_dtype("float64")
    try:
        net, opt = ns["build"](spec)
        net.set_state_dict(eager.load(str(folder / f"saved_{case}" / "model.pdmodel")))
        opt.set_state_dict(eager.load(str(folder / f"saved_{case}" / "model.pdopt")))
        for name, value in net.state_dict().items():
            np.testing.assert_allclose(value.numpy(), ref["final"][name], rtol=1e-11, atol=1e-13, err_msg=name)
        state = {k: np.asarray(v) for k, v in opt.state_dict().items() if not k.startswith("@")}
        assert sorted(state) == sorted(ref["state"])  # every rank's share, merged
        for key, value in ref["state"].items():
            np.testing.assert_allclose(state[key], value, rtol=1e-10, atol=1e-13, err_msg=key)
    finally:
        eager.set_default_dtype("float32")


# -- in one process ---------------------------------------------------------------
@pytest.mark.parametrize("level", ["os", "os_g", "p_g_os"])
def test_world_of_one_trains_like_the_plain_optimizer(level):
    ref = reference("momentum")
    ns = common()
    eager.set_default_dtype("float64")
    try:
        net, opt = ns["build"]("momentum")
        model, opt, scaler = group_sharded_parallel(net, opt, level)
        assert scaler is None and opt.local_params == net.parameters()
        for _ in range(STEPS):
            loss = ns["loss_of"](model, slice(None))
            loss.backward()
            opt.step()
            opt.clear_grad()
        for name, value in model.state_dict().items():
            np.testing.assert_allclose(value.numpy(), ref["final"][name], rtol=1e-12, err_msg=name)
        opt.set_lr(0.25)
        assert opt.get_lr() == 0.25 == opt._optim.get_lr()
    finally:
        eager.set_default_dtype("float32")


def _net_and_opt():
    net = eager.nn.Linear(3, 2)
    return net, eager.optimizer.SGD(0.1, parameters=net.parameters())


@pytest.mark.parametrize("kwargs, kind, message", [
    ({"level": "p_g"}, ValueError, "argument 'level' expected one of 'os', 'os_g', 'p_g_os', got 'p_g'"),
    ({"level": 2}, ValueError, "argument 'level' expected one of 'os', 'os_g', 'p_g_os', got 2"),
    ({"offload": True}, ValueError, "argument 'offload': True is not supported"),
    ({"offload": 1}, TypeError, "argument 'offload' expected a bool, got 1"),
    ({"scaler": 1.0}, TypeError, "argument 'scaler' expected None or an eager.amp.GradScaler, got float"),
    ({"segment_size": 0}, ValueError, "argument 'segment_size' expected a positive int, got 0"),
    ({"buffer_max_size": 2.5}, TypeError, "argument 'buffer_max_size' expected a positive int, got 2.5"),
    ({"dp_group": object()}, TypeError, "argument 'dp_group' expected None or a group"),
    ({"group": "world"}, TypeError, "argument 'group' expected None or a group"),
    ({"exclude_layer": ["Linear"]}, ValueError, "argument 'exclude_layer' applies to level 'p_g_os' only"),
    ({"exclude_layer": "Linear", "level": "p_g_os"}, TypeError, "argument 'exclude_layer' expected None or a list"),
])
def test_bad_arguments_raise_before_anything_changes(kwargs, kind, message):
    net, opt = _net_and_opt()
    before = [p.numpy().copy() for p in net.parameters()]
    kwargs = {"level": "os", **kwargs}
    with pytest.raises(kind, match="group_sharded_parallel: ") as info:
        group_sharded_parallel(net, opt, **kwargs)
    assert message in str(info.value)
    assert len(opt._parameter_list) == 2  # the optimizer still holds every parameter
    for p, value in zip(net.parameters(), before):
        np.testing.assert_array_equal(p.numpy(), value)


def test_model_and_optimizer_must_be_eagers():
    net, opt = _net_and_opt()
    with pytest.raises(TypeError, match="argument 'model' expected an eager.nn.Layer, got function"):
        group_sharded_parallel(lambda x: x, opt, "os")
    with pytest.raises(TypeError, match="argument 'optimizer' expected an eager.optimizer.Optimizer, got dict"):
        group_sharded_parallel(net, {}, "os")
    other = eager.nn.Linear(2, 2)
    with pytest.raises(ValueError, match=r"level 'p_g_os' shards the model's parameters, but the optimizer's"):
        group_sharded_parallel(other, opt, "p_g_os")
    model, sharded, _ = group_sharded_parallel(net, opt, "os_g")
    with pytest.raises(TypeError, match="got already wrapped by group_sharded_parallel"):
        group_sharded_parallel(net, sharded, "os")
    with pytest.raises(ValueError, match="argument 'model' is already wrapped"):
        group_sharded_parallel(model, eager.optimizer.SGD(0.1, parameters=net.parameters()), "os")
    loss = model(eager.ones([1, 3])).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match=r"minimize: not supported with group sharding .* optimizer.step\(\)"):
        sharded.minimize(loss)
    with pytest.raises(RuntimeError, match="add_param_group: the parameters are split"):
        sharded.add_param_group({"params": [eager.create_parameter([1], "float32")]})


def test_save_checks_its_arguments(tmp_path):
    net, opt = _net_and_opt()
    with pytest.raises(ValueError, match="save_group_sharded_model: argument 'model' expected the model returned"):
        save_group_sharded_model(net, str(tmp_path))
    model, sharded, _ = group_sharded_parallel(net, opt, "os")
    with pytest.raises(ValueError, match="argument 'optimizer' expected None or the optimizer returned"):
        save_group_sharded_model(model, str(tmp_path), optimizer=opt)
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ValueError, match="argument 'output' expected a directory, got the file"):
        save_group_sharded_model(model, str(afile))
    save_group_sharded_model(model, str(tmp_path / "out"), optimizer=sharded)
    loaded = eager.load(str(tmp_path / "out" / "model.pdmodel"))
    np.testing.assert_array_equal(loaded["weight"].numpy(), net.weight.numpy())
    assert (tmp_path / "out" / "model.pdopt").exists()


def test_sparse_gradient_is_refused_by_step():
    emb = eager.nn.Embedding(5, 2, sparse=True)
    model, opt, _ = group_sharded_parallel(emb, eager.optimizer.SGD(0.1, parameters=emb.parameters()), "os")
    model(eager.to_tensor(np.array([1, 2]))).sum().backward()
    before = emb.weight.numpy().copy()
    with pytest.raises(TypeError, match=r"GroupShardedOptimizer.step: parameter .* sparse \(SelectedRows\)"):
        opt.step()
    np.testing.assert_array_equal(emb.weight.numpy(), before)


@pytest.mark.usefixtures("device")
def test_released_storage_keeps_shape_dtype_and_place(device):
    param = eager.create_parameter([3, 4], "float32")
    array = param.impl.array
    stub = group_sharded._released_array(array)
    assert type(stub) is type(array) and stub.shape == (3, 4) and stub.dtype == array.dtype
    assert stub.strides == (0, 0) and float(stub.sum()) == 0.0
    fresh = group_sharded._empty_array(array)
    assert type(fresh) is type(array) and fresh.shape == (3, 4) and fresh.dtype == array.dtype
    assert fresh.strides != (0, 0)
    param.impl.array = stub
    assert str(param.place) == str(eager.create_parameter([1], "float32").place)


def test_fleet_sharding_degree_checks():
    strategy = DistributedStrategy()
    strategy.hybrid_configs = {"dp_degree": 1, "sharding_degree": 2}
    with pytest.raises(ValueError, match=r"dp_degree 1 \* mp_degree 1 \* sharding_degree 2 = 2 ranks, but the job "
                                         r"has 1"):
        fleet.init(is_collective=True, strategy=strategy)
    strategy.hybrid_configs = {"dp_degree": 1, "sharding_degree": 2, "mp_degree": 2}
    with pytest.raises(ValueError, match="sharding_degree 2 and mp_degree 2; sharding combines with data "
                                         "parallelism only"):
        fleet.init(is_collective=True, strategy=strategy)
    strategy.hybrid_configs = {"dp_degree": 1, "sharding_degree": 2, "mp_degree": 1, "pp_degree": 2}
    with pytest.raises(ValueError, match="sharding_degree 2 and pp_degree 2; sharding combines with data "
                                         "parallelism only"):
        fleet.init(is_collective=True, strategy=strategy)
    strategy.hybrid_configs = {"dp_degree": -1, "sharding_degree": 1, "mp_degree": 1, "pp_degree": 1}
    fleet.init(is_collective=True, strategy=strategy)
    net = eager.nn.Linear(2, 2)
    assert fleet.distributed_model(net) is net  # a world of one: sharding degree 1 is plain data parallelism
    with pytest.raises(TypeError, match="DygraphShardingOptimizer: argument 'optimizer' expected an eager"):
        DygraphShardingOptimizer([], fleet.get_hybrid_communicate_group())


def test_dp_group_must_meet_the_sharding_group_in_one_rank(ranks):
    outs, _ = ranks
    for results in outs:
        (message,) = results[len(CASES)]
        assert message.startswith("group_sharded_parallel: argument 'dp_group' (ranks [0, 1]) must share exactly "
                                  "this rank with 'group' (ranks [0, 1])")


def test_sync_buffers_takes_the_first_ranks_buffers(ranks):
    outs, _ = ranks
    # rank 0 set 1, rank 1 set 2 before the forward
    assert outs[0][len(CASES) + 1] == outs[1][len(CASES) + 1] == [1.0, 1.0, 1.0]


# -- stages 2 and 3 reduce during backward ------------------------------------------
def reference_grads(rows, build_name="build", use_b=None, seed=None) -> list:
    """The gradients one process gets for the first loss over ``rows`` of X (float64)."""
    ns = common()
    eager.set_default_dtype("float64")
    try:
        if build_name == "build":
            net, _ = ns["build"]("momentum")
            ns["loss_of"](net, rows).backward()
        else:  # the rank script's Partly network, rebuilt here from the same seed
            eager.seed(seed)
            with eager.utils.unique_name.guard():
                a, b, c = (eager.nn.Linear(4, 3) for _ in range(3))
            x = eager.to_tensor(ns["X"][rows])
            ((a(x) + b(x)) if use_b else a(x)).sum().backward()
            net = eager.nn.LayerList([a, b, c])
        return [None if p.grad is None else p.grad.numpy() for p in net.parameters()]
    finally:
        eager.set_default_dtype("float32")


@pytest.mark.parametrize("level", ["os_g", "p_g_os"])
def test_backward_leaves_each_owner_the_averaged_gradient_and_the_others_none(ranks, level):
    outs, _ = ranks
    full = reference_grads(slice(None))
    case = CASES.index(("p_g_os", "momentum", None))  # the same network and optimizer: its owners
    for rank, results in enumerate(outs):
        out = results[len(CASES) + 2]
        owners = list(results[case]["param2rank"].values())
        assert out[level + "_grad_untouched"] == [True] * len(full)  # eager.grad wrote no .grad ...
        half = reference_grads(slice(rank * 4, rank * 4 + 4))
        for got, want in zip(out[level + "_local"], half):  # ... and returned this rank's own gradients
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        for i, (owner, want) in enumerate(zip(owners, full)):
            if owner != rank:
                assert out[level + "_after_backward"][i] is None and out[level + "_after_two"][i] is None
            else:  # the average of both ranks' halves = the full batch's; a second backward adds it again
                np.testing.assert_allclose(out[level + "_after_backward"][i], want, rtol=1e-12, atol=1e-14)
                np.testing.assert_allclose(out[level + "_after_two"][i], 2 * want, rtol=1e-12, atol=1e-14)


def test_a_parameter_used_on_one_rank_is_averaged_with_zeros_and_an_unused_one_stays_none(ranks):
    outs, _ = ranks
    on_rank0 = reference_grads(slice(0, 4), "partly", use_b=True, seed=11)
    on_rank1 = reference_grads(slice(4, 8), "partly", use_b=False, seed=11)
    for rank, results in enumerate(outs):
        out = results[len(CASES) + 2]
        owners = list(out["partly_owner"].values())
        assert sorted(set(owners)) == [0, 1]
        for i, owner in enumerate(owners):
            got = out["partly_after_backward"][i]
            if owner != rank or i >= 4:  # not this rank's, or c's (no rank used it): no gradient
                assert got is None, i
                continue
            # a: both ranks' gradients averaged; b: rank 0's with rank 1's zeros
            want = (on_rank0[i] + (on_rank1[i] if i < 2 else 0)) / 2
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=str(i))
        assert out["partly_c_after"] == out["partly_c_before"]  # never used: not updated by momentum


def test_backward_never_holds_the_full_gradients(ranks):
    outs, _ = ranks
    for results in outs:
        growth = results[len(CASES) + 2]["growth"]
        total = growth["grad_bytes"]
        assert growth["os"] >= total  # stage 1: every gradient is held after backward
        for level in ("os_g", "p_g_os"):  # the owned half, plus a bucket or two in flight
            assert growth[level] < 0.75 * total, (level, growth)


def test_reducing_levels_refuse_a_sparse_embedding_when_wrapping():
    emb = eager.nn.Embedding(5, 2, sparse=True)
    opt = eager.optimizer.SGD(0.1, parameters=emb.parameters())
    with pytest.raises(ValueError, match=r"group_sharded_parallel: level 'os_g' reduces gradients during "
                                         r"backward, .* sparse \(SelectedRows\) gradients of \['embedding"):
        group_sharded_parallel(emb, opt, "os_g")
    assert len(opt._parameter_list) == 1


def test_a_hook_that_takes_the_gradient_leaves_grad_alone():
    from eager.autograd.engine import writes_grad
    from eager.autograd.node import TAKEN
    w = eager.create_parameter([3], "float64")
    seen, writes = [], []
    w.register_hook(lambda g: (seen.append(g.numpy().copy()), writes.append(writes_grad()), TAKEN)[-1])
    w.register_hook(lambda g: seen.append("later hook"))  # not reached: the gradient was taken
    (w * 2.0).sum().backward()
    assert w.grad is None and writes == [True] and len(seen) == 1
    np.testing.assert_array_equal(seen[0], [2.0, 2.0, 2.0])
    (g,) = eager.grad((w * 3.0).sum(), [w], allow_unused=True)
    assert writes == [True, False] and g is None and w.grad is None  # grad(): writes_grad() False
    assert not writes_grad()  # outside a backward
