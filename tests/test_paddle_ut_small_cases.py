"""Small gaps checked against Paddle 2.6.2.

Found:
- ``Tensor.pow_`` / ``eager.pow_`` / ``eager.pow``'s op defaulted the exponent ``y`` to 1; Paddle 2.6.2's
  signature is ``pow_(x, y, name=None)`` and a call without ``y`` is a TypeError.
- ``Tensor.grad_`` (Paddle's second name of the ``grad`` property) was missing.
- ``Tensor.reconstruct_from_(other)`` was missing: in Paddle 2.6.2 the tensor becomes another handle of
  ``other`` (shared storage, shape, dtype, stop_gradient and grad; its own name kept); a non-Tensor
  argument is a ValueError.
- ``fleet.DistributedStrategy.hybrid_configs`` refused Paddle 2.6.2's sub-dicts ``mp_configs``, ``pp_configs``
  and ``sharding_configs``; they are now checked (Paddle's keys, defaults and field types) and read back,
  held without effect over MPI. (2.6.2 itself refuses ``sharding_configs`` in the setter, a Paddle bug.)
"""
import copy

import numpy as np
import pytest

import eager
from eager.distributed.fleet import DistributedStrategy

pytestmark = pytest.mark.usefixtures("device")


def test_pow_inplace_requires_exponent():
    x = eager.to_tensor([2.0, 3.0])
    with pytest.raises(TypeError, match="y"):
        x.pow_()
    with pytest.raises(TypeError, match="y"):
        eager.pow_(x)
    np.testing.assert_allclose(x.numpy(), [2.0, 3.0])  # the failed calls left x as it was
    assert x.pow_(2) is x
    np.testing.assert_allclose(x.numpy(), [4.0, 9.0])


def test_grad_underscore_is_grad():
    a = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    assert a.grad_ is None
    (a * 3).sum().backward()
    np.testing.assert_allclose(a.grad_.numpy(), [3.0, 3.0])
    a.grad_ = None
    assert a.grad is None


def test_reconstruct_from_shares_other():
    t1 = eager.to_tensor([1.0, 3.0])
    t2 = eager.to_tensor([[2.0, 5.0]], dtype="float64")
    assert t1.reconstruct_from_(t2) is None
    assert t1.shape == [1, 2] and t1.dtype == eager.float64 and t1.stop_gradient
    t2[0, 0] = 7.0  # Paddle 2.6.2: the write shows through t1
    np.testing.assert_allclose(t1.numpy(), [[7.0, 5.0]])
    assert t1.name != t2.name

    a = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    (a * 3).sum().backward()
    b = eager.to_tensor([5.0])
    b.reconstruct_from_(a)
    assert not b.stop_gradient
    np.testing.assert_allclose(b.grad.numpy(), [3.0, 3.0])


@pytest.mark.parametrize("bad", [1, np.ones(2)])
def test_reconstruct_from_refuses_non_tensor(bad):
    t = eager.to_tensor([1.0])
    with pytest.raises(ValueError, match="reconstruct_from_.*Tensor"):
        t.reconstruct_from_(bad)
    np.testing.assert_allclose(t.numpy(), [1.0])


# -- fleet.DistributedStrategy.hybrid_configs sub-configs (Paddle 2.6.2's HybridConfig) --------------------
def test_hybrid_configs_sub_configs_defaults_and_read_back():
    strategy = DistributedStrategy()
    configs = strategy.hybrid_configs
    # defaults from Paddle 2.6.2's distributed_strategy.proto
    assert configs["mp_configs"] == {"sync_param": True, "sync_grad": False, "sync_moment": False,
                                     "sync_mode": "broadcast", "mp_async_allreduce": False,
                                     "mp_skip_c_identity": False, "mp_fused_linear_param_grad_add": False,
                                     "need_broadcast_data": True}
    assert configs["pp_configs"] == {"dp_comm_overlap": False, "delay_scale_loss": False, "enable_timer": False,
                                     "sharding_comm_overlap": False, "profiling": False}
    assert configs["sharding_configs"] == {"tensor_fusion": False, "accumulate_steps": 1, "comm_overlap": False,
                                           "split_param": False, "fuse_optimizer": True}
    given = {"dp_degree": 2, "mp_configs": {"sync_param": 0, "sync_mode": "average", "sync_param_name": ["emb"]},
             "pp_configs": {"delay_scale_loss": True}, "sharding_configs": {"accumulate_steps": 4}}
    strategy.hybrid_configs = given
    configs = strategy.hybrid_configs
    assert configs["dp_degree"] == 2
    assert configs["mp_configs"]["sync_param"] is False and configs["mp_configs"]["sync_mode"] == "average"
    assert configs["mp_configs"]["sync_grad"] is False        # the keys not given keep their values
    assert "sync_param_name" not in configs["mp_configs"] and strategy.sync_param_name == ["emb"]
    assert configs["pp_configs"]["delay_scale_loss"] is True
    assert configs["sharding_configs"]["accumulate_steps"] == 4
    assert given["mp_configs"]["sync_param_name"] == ["emb"]   # the caller's dict is left as it was
    twin = copy.deepcopy(strategy)
    assert twin.hybrid_configs["sharding_configs"]["accumulate_steps"] == 4


@pytest.mark.parametrize("bad, error, match", [
    ({"mp_configs": 3}, TypeError, "mp_configs.*expected a dict"),
    ({"mp_configs": {"sync_param": "x"}}, TypeError, "sync_param.*expected a bool"),
    ({"pp_configs": {"dp_comm_overlap": None}}, TypeError, "dp_comm_overlap.*expected a bool"),
    ({"mp_configs": {"sync_mode": 1}}, TypeError, "sync_mode.*expected a str"),
    ({"sharding_configs": {"accumulate_steps": 1.5}}, TypeError, "accumulate_steps.*expected an int"),
    ({"pp_configs": {"bogus": True}}, ValueError, "pp_configs.*bogus"),
])
def test_hybrid_configs_sub_configs_refuse_bad_values(bad, error, match):
    strategy = DistributedStrategy()
    before = strategy.hybrid_configs
    with pytest.raises(error, match=match):
        strategy.hybrid_configs = {"dp_degree": 2, **bad}
    assert strategy.hybrid_configs == before


def test_sync_param_name_setting():
    strategy = DistributedStrategy()
    assert strategy.sync_param_name == ["embedding", "layer_norm", ".b_"]  # Paddle 2.6.2's default
    strategy.sync_param_name = ("fc",)
    assert strategy.sync_param_name == ["fc"]
    assert copy.deepcopy(strategy).sync_param_name == ["fc"]
    with pytest.raises(TypeError, match="sync_param_name.*list of str"):
        strategy.sync_param_name = "fc"
    with pytest.raises(TypeError, match=r"mp_configs'\]\['sync_param_name'\] expected a list of str"):
        strategy.hybrid_configs = {"mp_configs": {"sync_param_name": [1]}}
    assert strategy.sync_param_name == ["fc"]
