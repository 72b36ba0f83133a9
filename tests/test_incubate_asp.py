"""eager.incubate.asp (Paddle's paddle.incubate.asp): the n:m mask helpers against
brute-force references written from the definitions, the matrix views of 3-D and
4-D weights, and the training workflow (decorate, prune_model, excluded layers,
masks kept through optimizer steps and state dicts), with errors by type and
message."""
from __future__ import annotations

import doctest
import importlib
import itertools

import numpy as np
import pytest

import eager
from eager.incubate import asp


@pytest.fixture(autouse=True)
def _no_exclusions():
    asp.reset_excluded_layers()
    yield
    asp.reset_excluded_layers()


def test_density_and_1d_check_by_hand():
    assert asp.calculate_density(np.array([[0, 1, 3, 0], [1, 1, 0, 1]])) == 0.625
    assert asp.check_mask_1d(np.array([[0, 1, 3, 0], [1, 0, 0, 1]]), 2, 4)
    assert not asp.check_mask_1d(np.array([[0, 1, 5, 4], [1, 0, 0, 1]]), 2, 4)
    # 5 columns pad to 8: the second block of each row is [x, 0, 0, 0]
    assert asp.check_mask_1d(np.array([[0, 1, 0, 4, 6], [1, 0, 0, 1, 7]]), 2, 4)
    assert not asp.check_mask_1d(np.array([[1, 1, 1, 0, 0, 0]]), 1, 3)


def test_mask_1d_keeps_the_largest_of_each_group(rng):
    mat = rng.normal(size=(6, 10))
    mask = asp.get_mask_1d(mat, 2, 4)
    assert mask.shape == mat.shape and mask.dtype == np.float64
    padded = np.pad(np.abs(mat), ((0, 0), (0, 2)))
    kept = np.pad(mask, ((0, 0), (0, 2)))
    for row, keep in zip(padded.reshape(-1, 4), kept.reshape(-1, 4)):
        want = np.zeros(4)
        want[np.argsort(row)[2:]] = 1                   # distinct values: the 2 largest
        np.testing.assert_array_equal(keep, want)
    assert asp.check_mask_1d(mask, 2, 4)


def _valid_2d_blocks(keep, m):
    """Every m x m 0/1 block with `keep` ones per row and column, from all subsets of cells."""
    blocks = []
    for cells in itertools.combinations(range(m * m), keep * m):
        block = np.zeros(m * m)
        block[list(cells)] = 1
        block = block.reshape(m, m)
        if np.all(block.sum(0) == keep) and np.all(block.sum(1) == keep):
            blocks.append(block)
    return blocks


def test_mask_2d_best_is_the_best_valid_block(rng):
    valid = _valid_2d_blocks(2, 4)
    assert len(valid) == 90
    mat = rng.normal(size=(8, 4))
    mask = asp.get_mask_2d_best(mat, 2, 4)
    for r in (0, 4):
        block, chosen = np.abs(mat[r:r + 4]), mask[r:r + 4]
        assert any(np.array_equal(chosen, v) for v in valid)
        assert (block * chosen).sum() == pytest.approx(max((block * v).sum() for v in valid))
    mat = np.array([[2, 8, 9, 9], [9, 1, 3, 9], [5, 6, 3, 9], [2, 4, 6, 9]])
    assert np.multiply(mat, asp.get_mask_2d_best(mat, 2, 4)).sum() == 61.0   # 8+9 + 9+9 + 5+6 + 6+9


def test_mask_2d_greedy_by_hand_and_pattern(rng):
    mat = np.array([[2, 8, 9, 9], [9, 1, 3, 9], [5, 6, 3, 9], [2, 4, 6, 9]])
    # Largest first, equal values later position first: 9@(3,3) 9@(2,3) 9@(1,0) 9@(0,2) 8@(0,1)
    # 6@(3,2) 6@(2,1); every other entry meets a full row or column.
    want = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1]], float)
    np.testing.assert_array_equal(asp.get_mask_2d_greedy(mat, 2, 4), want)
    big = asp.get_mask_2d_greedy(rng.normal(size=(9, 7)), 2, 4)
    assert big.shape == (9, 7)
    padded = np.pad(big, ((0, 3), (0, 1)))
    for r in range(0, 12, 4):
        for c in range(0, 8, 4):
            block = padded[r:r + 4, c:c + 4]
            assert block.sum(0).max() <= 2 and block.sum(1).max() <= 2


def test_mask_2d_check_fails_only_when_rows_and_columns_both_overflow():
    rows_ok = np.array([[0, 8, 0, 9], [9, 0, 0, 10], [0, 5, 0, 6], [0, 4, 6, 0]])   # column 1 holds 3
    assert asp.check_mask_2d(rows_ok, 2, 4)
    assert asp.check_mask_2d(np.array([[0, 8, 0, 9], [9, 0, 7, 0], [0, 5, 0, 6], [3, 0, 6, 0], [1, 1, 0, 1]]), 2, 4)
    both = np.array([[1, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]])      # row 0 and column 0 hold 3
    assert not asp.check_mask_2d(both, 2, 4)
    assert asp.check_sparsity(asp.create_mask(np.arange(16).reshape(4, 4)), asp.CheckMethod.CHECK_2D)


@pytest.mark.parametrize("algo", list(asp.MaskAlgo))
def test_create_mask_views_higher_dimensional_weights(rng, algo):
    weight = rng.normal(size=(2, 3, 8, 5)).astype(np.float32)
    mask = asp.create_mask(weight, func_name=algo)
    assert mask.shape == weight.shape and mask.dtype == np.float32
    # The 4-D view groups along axis 2: every (a, b, :, d) fiber of 8 keeps the 2:4 pattern.
    fibers = mask.transpose(0, 1, 3, 2).reshape(-1, 8)
    check = asp.CheckMethod.get_checking_method(algo)
    assert asp.check_sparsity(weight * mask, func_name=check)
    if algo is asp.MaskAlgo.MASK_1D:
        assert np.all(fibers.reshape(-1, 4).sum(1) == 2)
    three = asp.create_mask(rng.normal(size=(2, 3, 8)), func_name=algo)
    assert three.shape == (2, 3, 8) and asp.check_sparsity(three, func_name=check)
    one = asp.create_mask(np.array([3, 1, 2, 4, 0, 0, 5, 1]))
    np.testing.assert_array_equal(one, [1, 0, 0, 1, 0, 0, 1, 1])
    assert asp.CheckMethod.get_checking_method(asp.MaskAlgo.MASK_1D) is asp.CheckMethod.CHECK_1D
    assert str(asp.CheckMethod.CHECK_2D) == "CheckMethod.CHECK_2D"


def _model():
    class Net(eager.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = eager.nn.Conv2D(4, 4, 3, padding=1)
            self.hidden = eager.nn.Linear(64, 16)
            self.out = eager.nn.Linear(16, 4)

        def forward(self, x):
            return self.out(eager.tanh(self.hidden(eager.flatten(self.conv(x), 1))))

    return Net()


def _train(model, opt, steps=3):
    for _ in range(steps):
        loss = model(eager.randn([5, 4, 4, 4])).square().mean()
        loss.backward()
        opt.step()
        opt.clear_grad()


@pytest.mark.parametrize("algo", ["mask_1d", "mask_2d_greedy", "mask_2d_best"])
def test_decorate_and_prune_keep_weights_sparse_through_training(algo):
    model = _model()
    asp.set_excluded_layers([model.out.full_name()])
    opt = asp.decorate(eager.optimizer.Momentum(0.05, parameters=model.parameters()))
    before = {p.name: p.numpy().copy() for p in model.parameters()}
    masks = asp.prune_model(model, mask_algo=algo)
    assert sorted(masks) == sorted([model.conv.weight.name, model.hidden.weight.name])
    np.testing.assert_array_equal(model.hidden.weight.numpy(), before[model.hidden.weight.name] * masks[
        model.hidden.weight.name])
    _train(model, opt)
    check = asp.CheckMethod.CHECK_1D if algo == "mask_1d" else asp.CheckMethod.CHECK_2D
    for weight in (model.conv.weight, model.hidden.weight):
        w = weight.numpy()
        assert np.all(w[masks[weight.name] == 0] == 0)
        assert asp.check_sparsity(w.T, func_name=check)
    density = asp.calculate_density(model.hidden.weight.numpy())
    assert density <= 0.5 if algo == "mask_2d_greedy" else density == 0.5   # greedy may leave a row short
    assert asp.calculate_density(model.out.weight.numpy()) == 1.0            # excluded
    assert asp.calculate_density(model.hidden.bias.numpy()) == 1.0           # biases never take part


def test_masks_travel_in_the_optimizer_state_dict():
    model = _model()
    opt = asp.decorate(eager.optimizer.Adam(0.01, parameters=model.parameters()))
    masks = asp.prune_model(model)
    state = opt.state_dict()
    key = f"{model.hidden.weight.name}.asp_mask"
    np.testing.assert_array_equal(state[key].numpy(), masks[model.hidden.weight.name])
    ones = {k: (eager.ones(v.shape) if k.endswith("asp_mask") else v) for k, v in state.items()}
    opt.set_state_dict(ones)
    model.hidden.weight.set_value(np.ones(model.hidden.weight.shape, np.float32))
    _train(model, opt, 1)
    assert asp.calculate_density(model.hidden.weight.numpy()) == 1.0        # the all-ones masks now apply


def test_custom_supported_layer_and_pruning_function():
    class Dense(eager.nn.Layer):
        def __init__(self):
            super().__init__()
            self.weight = self.create_parameter([8, 4])

        def forward(self, x):
            return eager.matmul(x, self.weight)

    calls = []

    def keep_first_half(weight, m, n, func_name, param_name):
        calls.append((m, n, func_name, param_name))
        mask = np.zeros_like(weight)
        mask[: weight.shape[0] // 2] = 1
        return weight * mask, mask

    layer = Dense()
    assert asp.prune_model(layer, with_mask=False) == {}                    # not supported yet
    asp.add_supported_layer(Dense, keep_first_half)
    masks = asp.prune_model(layer, n=1, m=2, mask_algo="mask_2d_greedy", with_mask=False)
    assert list(masks) == [layer.weight.name]
    assert calls == [(2, 1, asp.MaskAlgo.MASK_2D_GREEDY, layer.weight.name)]
    assert np.all(layer.weight.numpy()[4:] == 0)


def test_errors():
    model = _model()
    with pytest.raises(RuntimeError, match="incubate.asp.prune_model: no mask for .*call incubate.asp.decorate"):
        asp.prune_model(model)
    with pytest.raises(ValueError, match="incubate.asp.prune_model: argument 'mask_algo' expected one of "):
        asp.prune_model(model, mask_algo="mask_3d", with_mask=False)
    with pytest.raises(TypeError, match="incubate.asp.prune_model: argument 'model' expected an eager.nn.Layer"):
        asp.prune_model([model])
    with pytest.raises(TypeError, match="incubate.asp.set_excluded_layers: argument 'param_names' expected a list "
                                        "of str"):
        asp.set_excluded_layers("linear_0")
    with pytest.raises(ValueError, match="incubate.asp.reset_excluded_layers: argument 'main_program' expected None"):
        asp.reset_excluded_layers(main_program=object())
    with pytest.raises(TypeError, match="incubate.asp.decorate: argument 'optimizer' expected an eager.optimizer"):
        asp.decorate("sgd")
    with pytest.raises(TypeError, match="create_mask: argument 'func_name' expected a MaskAlgo, got str"):
        asp.create_mask(np.ones((4, 4)), func_name="mask_1d")
    with pytest.raises(ValueError, match="create_mask: argument 'tensor' expected 1 to 4 dimensions"):
        asp.create_mask(np.ones((1, 1, 1, 1, 4)))
    with pytest.raises(ValueError, match="check_mask_1d: arguments 'n' and 'm' expected 0 <= n <= m"):
        asp.check_mask_1d(np.ones((4, 4)), 5, 4)
    with pytest.raises(ValueError, match="get_mask_1d: argument 'mat' expected a 2-D array, got shape \\[4\\]"):
        asp.get_mask_1d(np.ones(4), 2, 4)
    with pytest.raises(TypeError, match="CheckMethod.get_checking_method: argument 'mask_algo' expected a MaskAlgo"):
        asp.CheckMethod.get_checking_method("mask_1d")


@pytest.mark.parametrize("module", ["eager.incubate.asp", "eager.incubate.asp.masks", "eager.incubate.asp.asp"])
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eager": eager, "np": np})
    assert result.failed == 0 and result.attempted > 0
