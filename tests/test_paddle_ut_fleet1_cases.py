"""Cases found by comparing eager's fleet API on ONE process (world size 1, no launcher) with
the real Paddle 2.6.2: ``fleet.init(is_collective=True, strategy=...)``, every attribute of
``DistributedStrategy`` (defaults, setters, type checks), ``fleet.worker_index`` and friends,
every getter of ``fleet.get_hybrid_communicate_group()`` with dp = mp = pp = 1, the
topology, ``fleet.meta_parallel``'s ColumnParallelLinear / RowParallelLinear /
VocabParallelEmbedding / ParallelCrossEntropy at mp 1 (parameters, state_dict keys,
attributes, outputs and gradients on copied weights: equal) and get_rng_state_tracker
(add / rng_state / reset and their errors: equal), ``paddle.distributed``'s
get_rank / get_world_size / ParallelEnv, following what Paddle's test/collective/fleet
and legacy test_fleet_* / test_distributed_strategy tests assert.

What they found (one test per bug below; each failed before its fix):
- ``DistributedStrategy().last_comm_group_size_MB`` was the int 1; Paddle's is a float
  field: 1.0 by default, and ``= 2`` reads back 2.0.
- ``hcg.get_parallel_mode()`` answered DATA_PARALLEL when every degree is 1; Paddle 2.6.2
  returns None there (DATA_PARALLEL needs dp_degree > 1).
- ``hcg.get_sharding_parallel_group_src_rank()``, ``get_sep_parallel_group()`` and
  ``get_sep_parallel_group_src_rank()`` were missing; the sep ones assert ("sep not exist")
  with sep_degree 1, as Paddle's.
- ``fleet.is_server()`` and ``fleet.server_num()`` were missing (False and 0 in collective mode).
- ``hybrid_configs = {..., "order": [...]}`` (test_fleet_distributed_strategy's
  test_hybrid_parallel_configs_order) was refused as an unknown key and
  ``strategy.hybrid_parallel_order`` was missing; now the order is kept and ``fleet.init`` lays
  the rank grid out in it (outermost first), as Paddle's.
- ``fleet.utils.LocalFS`` was missing (ls_dir, list_dirs, mkdirs, touch, mv, delete, is_*:
  each compared with Paddle 2.6.2's on a scratch directory, errors included).
- ``fleet.utils.hybrid_parallel_util`` lacked ``broadcast_dp_parameters``,
  ``broadcast_mp_parameters``, ``broadcast_sharding_parameters``, ``broadcast_sep_parameters``
  and ``broadcast_input_data`` (the last GPU/XPU-only in Paddle: eager's runs on any device).

Differences documented (docs/data_parallel.md): Paddle's strategy setters log a warning and
keep the old value on a wrong type and take any int degree; eager raises naming the setting.

Paddle 2.6.2 quirks met and left (no launcher, so Paddle never initialises its parallel env):
its ``paddle.distributed.is_initialized()`` is False and ``get_backend()`` raises after
``fleet.init``, ``fleet.local_rank()`` is None, ``ParallelEnv().device_id`` raises
AttributeError on a CPU build, the hybrid groups have rank -1, and so
``ParallelCrossEntropy`` returns None (the group "is not a member"); eager gives rank 0 and the
loss. Paddle's strategy getters of ``*_configs`` fail under protobuf 7 (``FieldDescriptor.label``).
``fuse_matmul_bias=True`` is GPU-only in Paddle; eager computes it.
"""
from __future__ import annotations

import pytest

import numpy as np

import eager
from eager.distributed import fleet
from eager.distributed.fleet import DistributedStrategy


@pytest.fixture
def hcg():
    strategy = DistributedStrategy()
    strategy.hybrid_configs = {"dp_degree": 1, "mp_degree": 1, "pp_degree": 1}
    fleet.init(is_collective=True, strategy=strategy)
    return fleet.get_hybrid_communicate_group()


def test_last_comm_group_size_is_a_float():
    strategy = DistributedStrategy()
    value = strategy.last_comm_group_size_MB
    assert value == 1.0 and type(value) is float          # 1.0 in Paddle 2.6.2
    strategy.last_comm_group_size_MB = 2
    assert type(strategy.last_comm_group_size_MB) is float and strategy.last_comm_group_size_MB == 2.0


def test_parallel_mode_of_a_world_of_one_is_none(hcg):
    assert hcg.get_parallel_mode() is None                 # None in Paddle 2.6.2


def test_sharding_and_sep_group_getters(hcg):
    assert hcg.get_sharding_parallel_group_src_rank() == 0
    with pytest.raises(AssertionError, match="sep not exist"):
        hcg.get_sep_parallel_group()
    with pytest.raises(AssertionError, match="sep not exist"):
        hcg.get_sep_parallel_group_src_rank()


def test_is_server_and_server_num(hcg):
    assert fleet.is_server() is False and fleet.server_num() == 0


def test_hybrid_parallel_util_broadcasts(hcg):
    from eager.distributed.fleet.utils import hybrid_parallel_util as hpu
    model = eager.nn.Linear(2, 3)
    weight = model.weight.numpy().copy()
    for name in ("broadcast_dp_parameters", "broadcast_mp_parameters", "broadcast_sharding_parameters"):
        assert getattr(hpu, name)(model, hcg) is None
    np.testing.assert_array_equal(model.weight.numpy(), weight)     # one rank: unchanged
    with pytest.raises(AssertionError, match="sep not exist"):      # as Paddle 2.6.2's with sep_degree 1
        hpu.broadcast_sep_parameters(model, hcg)
    x = eager.ones([2])
    inputs, kwargs = hpu.broadcast_input_data(hcg, x, 3, a=eager.zeros([1]), b="x")
    assert inputs[0] is x and inputs[1] == 3 and kwargs["b"] == "x"
    np.testing.assert_array_equal(kwargs["a"].numpy(), np.zeros(1, np.float32))


def test_hybrid_configs_order():
    strategy = DistributedStrategy()
    assert strategy.hybrid_parallel_order == ["dp", "pp", "sharding", "sep", "mp"]   # Paddle 2.6.2's default
    strategy.hybrid_configs = {"dp_degree": 1, "mp_degree": 1, "pp_degree": 1, "order": ["sharding", "mp", "dp", "pp"]}
    assert strategy.hybrid_parallel_order == ["sharding", "mp", "dp", "pp"]
    assert "order" not in strategy.hybrid_configs and strategy.hybrid_configs["dp_degree"] == 1
    with pytest.raises(ValueError, match="order"):
        strategy.hybrid_configs = {"order": ["dp", "dp", "pp", "mp"]}
    strategy.hybrid_configs = {"order": ["mp", "sep", "dp", "pp", "sharding"]}
    fleet.init(is_collective=True, strategy=strategy)
    names = fleet.get_hybrid_communicate_group().topology().get_hybrid_group_names()
    assert names == ["model", "sep", "data", "pipe", "sharding"]                   # as Paddle 2.6.2's


def test_local_fs(tmp_path):
    from eager.distributed.fleet.utils import LocalFS
    from eager.distributed.fleet.utils.fs import FSFileExistsError, FSFileNotExistsError
    fs, root = LocalFS(), str(tmp_path)
    assert fs.ls_dir(str(tmp_path / "none")) == ([], []) and fs.list_dirs(str(tmp_path / "none")) == []
    fs.mkdirs(str(tmp_path / "a" / "b"))
    fs.touch(str(tmp_path / "f"))
    fs.touch(str(tmp_path / "f"))                       # exist_ok
    with pytest.raises(FSFileExistsError):
        fs.touch(str(tmp_path / "f"), exist_ok=False)
    with pytest.raises(AssertionError):
        fs.mkdirs(str(tmp_path / "f"))
    assert fs.ls_dir(root) == (["a"], ["f"]) and fs.list_dirs(root) == ["a"]
    assert (fs.is_file(str(tmp_path / "f")), fs.is_dir(str(tmp_path / "a")), fs.is_exist(str(tmp_path / "q"))) == (
        True, True, False)
    with pytest.raises(FSFileNotExistsError):
        fs.mv(str(tmp_path / "q"), str(tmp_path / "r"))
    fs.touch(str(tmp_path / "g"))
    with pytest.raises(FSFileExistsError):
        fs.mv(str(tmp_path / "f"), str(tmp_path / "g"))
    fs.mv(str(tmp_path / "f"), str(tmp_path / "g"), overwrite=True)
    fs.mv(str(tmp_path / "a"), str(tmp_path / "c"))
    fs.delete(str(tmp_path / "c"))
    fs.delete(str(tmp_path / "c"))                      # missing: nothing
    assert fs.ls_dir(root) == ([], ["g"]) and fs.need_upload_download() is False
