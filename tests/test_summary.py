"""eager.summary and eager.flops: the printed tables parsed back, parameter
counts and FLOPs against hand computations, and the network left as it was."""
import re

import numpy as np
import pytest

import eager
from eager import nn

MB = 1024 ** 2

# Paddle's documented output for its LeNet example (paddle.summary's docstring),
# with the layer numbers left as {} (they come from the process-wide name counters).
PADDLE_LENET_TABLE = """\
---------------------------------------------------------------------------
 Layer (type)       Input Shape          Output Shape         Param #
===========================================================================
   Conv2D-{}       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60
    ReLU-{}        [[1, 6, 28, 28]]      [1, 6, 28, 28]           0
  MaxPool2D-{}     [[1, 6, 28, 28]]      [1, 6, 14, 14]           0
   Conv2D-{}       [[1, 6, 14, 14]]     [1, 16, 10, 10]         2,416
    ReLU-{}       [[1, 16, 10, 10]]     [1, 16, 10, 10]           0
  MaxPool2D-{}    [[1, 16, 10, 10]]      [1, 16, 5, 5]            0
   Linear-{}          [[1, 400]]            [1, 120]           48,120
   Linear-{}          [[1, 120]]            [1, 84]            10,164
   Linear-{}          [[1, 84]]             [1, 10]              850
===========================================================================
Total params: 61,610
Trainable params: 61,610
Non-trainable params: 0
---------------------------------------------------------------------------
Input size (MB): 0.00
Forward/backward pass size (MB): 0.11
Params size (MB): 0.24
Estimated Total Size (MB): 0.35
---------------------------------------------------------------------------
"""


class LeNet(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        return self.fc(eager.flatten(self.features(inputs), 1))


class TwoInputs(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 4)
        self.b = nn.Linear(5, 4, bias_attr=False)

    def forward(self, x, y):
        return self.a(x) + self.b(y)


def number(layer):
    return int(layer.full_name().rsplit("_", 1)[1]) + 1


def rows_of(text):
    """The table's rows as (key, input shape, output shape, params)."""
    lines = text.splitlines()
    bars = [i for i, line in enumerate(lines) if set(line) == {"="}]
    rows = []
    for line in lines[bars[0] + 1:bars[1]]:
        key, rest = line.split(None, 1)
        shapes, params = rest.rsplit(None, 1)
        # The shape columns are nested lists: split where one closes and the next opens.
        depth, cut = 0, None
        for i, ch in enumerate(shapes):
            depth += (ch == "[") - (ch == "]")
            if depth == 0 and ch == "]":
                cut = i + 1
                break
        rows.append((key, eval(shapes[:cut]), eval(shapes[cut:].strip()), int(params.replace(",", ""))))
    return rows


def totals_of(text):
    return {name: value for name, value in re.findall(r"^([\w/ ()-]+): ([\d.,]+)$", text, re.M)}


def test_lenet_summary_is_paddles_table(capsys):
    net = LeNet()
    info = eager.summary(net, (1, 1, 28, 28))
    text = capsys.readouterr().out
    layers = [net.features[0], net.features[1], net.features[2], net.features[3], net.features[4],
              net.features[5], net.fc[0], net.fc[1], net.fc[2]]
    expected = PADDLE_LENET_TABLE.format(*(number(layer) for layer in layers))
    got = text.splitlines()
    # Paddle pads the columns; compare words, and check the widths separately.
    assert [line.split() for line in got[:-1]] == [line.split() for line in expected.splitlines()]
    assert got[-1] == "" and all(len(line) == 75 for line in got if set(line) <= {"-", "="} and line)
    assert info == {"total_params": 61610, "trainable_params": 61610}
    # Hand counts: a conv has out*in*k*k + out parameters, a Linear in*out + out.
    assert 1 * 6 * 9 + 6 == 60 and 6 * 16 * 25 + 16 == 2416
    assert 400 * 120 + 120 + 120 * 84 + 84 + 84 * 10 + 10 == 48120 + 10164 + 850
    assert info["total_params"] == sum(p.numel() for p in net.parameters())


def test_size_estimates_by_hand(capsys):
    net = LeNet()
    eager.summary(net, (None, 1, 28, 28))
    text = capsys.readouterr().out
    outputs = sum(int(np.prod(out)) for _, _, out, _ in rows_of(text))
    assert outputs == 6 * 28 * 28 * 2 + 6 * 14 * 14 + 16 * 10 * 10 * 2 + 16 * 5 * 5 + 120 + 84 + 10
    totals = totals_of(text)
    params_mb = 61610 * 4 / MB
    assert totals["Input size (MB)"] == f"{28 * 28 * 4 / MB:.2f}"
    assert totals["Forward/backward pass size (MB)"] == f"{2 * 4 * outputs / MB:.2f}"
    assert totals["Params size (MB)"] == f"{params_mb:.2f}"
    total = 28 * 28 * 4 / MB + 2 * 4 * outputs / MB + params_mb
    assert totals["Estimated Total Size (MB)"] == f"{total:.2f}"


def test_several_inputs_unknown_batch_and_dtypes(capsys):
    net = TwoInputs()
    info = eager.summary(net, [(None, 3), (-1, 5)], dtypes=["float32", "float32"])
    rows = rows_of(capsys.readouterr().out)
    assert [r[0] for r in rows] == [f"Linear-{number(net.a)}", f"Linear-{number(net.b)}"]
    assert [(r[1], r[2], r[3]) for r in rows] == [([[1, 3]], [1, 4], 16), ([[1, 5]], [1, 4], 20)]
    assert info == {"total_params": 36, "trainable_params": 36}


def test_float64_inputs_by_dtype(capsys):
    net = nn.Linear(2, 3)
    net.to(dtype="float64")
    seen = []
    net.register_forward_pre_hook(lambda layer, inputs: seen.append(inputs[0].dtype))
    eager.summary(net, (4, 2), dtypes="float64")
    assert seen == [eager.float64]
    rows = rows_of(capsys.readouterr().out)
    assert rows == [(f"Linear-{number(net)}", [[4, 2]], [4, 3], 9)]   # a lone layer is its own row


@pytest.mark.parametrize("kind", ["tensor", "list", "dict"])
def test_input_tensors(kind, capsys):
    class ListNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, inputs):
            if isinstance(inputs, dict):
                return self.fc(inputs["x"] + inputs["y"])
            if isinstance(inputs, list):
                return self.fc(inputs[0] + inputs[1])
            return self.fc(inputs)

    x = eager.randn([2, 3])
    given = {"tensor": x, "list": [x, x], "dict": {"x": x, "y": x}}[kind]
    info = eager.summary(ListNet(), input=given)
    text = capsys.readouterr().out
    assert info == {"total_params": 8, "trainable_params": 8}
    n_inputs = 1 if kind == "tensor" else 2
    assert totals_of(text)["Input size (MB)"] == f"{n_inputs * 6 * 4 / MB:.2f}"


def test_non_trainable_parameters(capsys):
    net = LeNet()
    net.features[0].weight.trainable = False          # 54 values
    net.fc[2].bias.stop_gradient = True               # 10 values
    info = eager.summary(net, (1, 1, 28, 28))
    totals = totals_of(capsys.readouterr().out)
    assert info == {"total_params": 61610, "trainable_params": 61610 - 64}
    assert totals["Non-trainable params"] == "64"


def test_lstm_is_one_row_with_nested_outputs(capsys):
    class Tagger(nn.Layer):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 6)
            self.lstm = nn.LSTM(6, 8, num_layers=2, direction="bidirect")
            self.out = nn.Linear(16, 3)

        def forward(self, ids):
            y, (h, c) = self.lstm(self.embed(ids))
            return self.out(y)

    net = Tagger()
    info = eager.summary(net, (2, 7), dtypes="int64")
    rows = rows_of(capsys.readouterr().out)
    assert [r[0].split("-")[0] for r in rows] == ["Embedding", "LSTM", "Linear"]
    lstm = rows[1]
    assert lstm[1] == [[2, 7, 6]]
    assert lstm[2] == [[2, 7, 16], [[4, 2, 8], [4, 2, 8]]]
    # Per layer and direction: 4 gates x hidden x (input + hidden) weights and two biases.
    hand = 2 * (32 * 6 + 32 * 8 + 32 + 32) + 2 * (32 * 16 + 32 * 8 + 32 + 32)
    assert lstm[3] == hand
    assert info["total_params"] == 20 * 6 + hand + 16 * 3 + 3 == sum(p.numel() for p in net.parameters())


def test_nested_custom_blocks_and_shared_layers(capsys):
    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.scale = self.create_parameter([4])   # the block's own parameter
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x) * self.scale

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.shared = nn.Linear(4, 4)
            self.bias = self.create_parameter([4], is_bias=True)   # the root's own

        def forward(self, x):
            return self.shared(self.shared(self.block(x))) + self.bias

    net = Net()
    info = eager.summary(net, (3, 4))
    rows = rows_of(capsys.readouterr().out)
    assert [r[0] for r in rows] == [f"Linear-{number(net.block.fc)}", f"Block-{number(net.block)}",
                                    f"Linear-{number(net.shared)}", f"Net-{number(net)}"]
    assert [r[3] for r in rows] == [20, 4, 20, 4]          # the shared layer counted once
    assert info["total_params"] == 48 == sum(p.numel() for p in net.parameters())


def test_hooks_removed_and_modes_restored_even_on_error(capsys):
    class Broken(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            assert not self.training and not self.fc.training
            self.drop(self.fc(x))
            raise RuntimeError("boom")

    net = Broken()
    net.drop.eval()                                     # mixed modes come back as they were
    with pytest.raises(RuntimeError, match="boom"):
        eager.summary(net, (2, 3))
    with pytest.raises(RuntimeError, match="boom"):
        eager.flops(net, [2, 3])
    assert net.training and net.fc.training and not net.drop.training
    for layer in net.sublayers(include_self=True):
        assert not layer._forward_post_hooks and not layer._forward_pre_hooks
        assert "total_ops" not in layer.__dict__ and "total_params" not in layer.__dict__


def test_summary_records_no_graph():
    net = nn.Linear(3, 2)
    seen = []
    net.register_forward_post_hook(lambda layer, inputs, out: seen.append(out.stop_gradient))
    eager.summary(net, (1, 3))
    assert seen == [True]


def test_summary_bad_inputs(capsys):
    net = LeNet()
    with pytest.raises(TypeError, match="summary: argument 'net'"):
        eager.summary(lambda x: x, (1, 3))
    with pytest.raises(ValueError, match="'input_size' and 'input' cannot both be None"):
        eager.summary(net)
    with pytest.raises(ValueError, match="one unknown"):
        eager.summary(net, (None, None, 28, 28))
    with pytest.raises(ValueError, match="positive ints"):
        eager.summary(net, (1, 0, 28, 28))
    with pytest.raises(ValueError, match="summary: argument 'dtypes' expected one dtype per input"):
        eager.summary(TwoInputs(), [(1, 3), (1, 5)], dtypes=["float32"])
    with pytest.raises(ValueError, match="summary: argument 'input' expected"):
        eager.summary(net, input=np.ones((1, 1, 28, 28)))
    with pytest.raises(TypeError, match="summary: argument 'input_size'"):
        eager.summary(net, "1,1,28,28")
    assert net.training and not net._forward_post_hooks


# -- flops ------------------------------------------------------------------
def conv_flops(out_shape, in_channels, groups, kernel, bias):
    """Paddle's rule: every output element costs in/groups * kernel multiply-adds, +1 for the bias."""
    return int(np.prod(out_shape)) * (in_channels // groups * int(np.prod(kernel)) + int(bias))


@pytest.mark.parametrize("layer, shape", [
    (lambda: nn.Conv2D(4, 6, 3, padding=1), [2, 4, 8, 8]),
    (lambda: nn.Conv2D(4, 6, (3, 2), stride=2, groups=2, bias_attr=False), [1, 4, 9, 7]),
    (lambda: nn.Conv1D(3, 5, 4), [2, 3, 10]),
    (lambda: nn.Conv3D(2, 3, 2), [1, 2, 4, 4, 4]),
    (lambda: nn.Conv2DTranspose(4, 2, 3, stride=2), [1, 4, 5, 5]),
])
def test_conv_flops_by_hand(layer, shape, capsys):
    conv = layer()
    out = conv(eager.randn(shape)).shape
    kernel = conv.weight.shape[2:]
    expected = conv_flops(out, shape[1], conv._groups, kernel, conv.bias is not None)
    assert eager.flops(conv, shape) == expected
    assert f"Total Flops: {expected}     Total Params: {sum(p.numel() for p in conv.parameters())}" \
        in capsys.readouterr().out


def test_conv2d_flops_paddle_example_values(capsys):
    # Paddle's flops docstring: conv2d 1->6 3x3 pad 1 on 28x28 is 47040, 6->16 5x5 on 14x14 is 241600.
    assert eager.flops(nn.Conv2D(1, 6, 3, padding=1), [1, 1, 28, 28]) == 6 * 28 * 28 * (9 + 1) == 47040
    assert eager.flops(nn.Conv2D(6, 16, 5), [1, 6, 14, 14]) == 16 * 10 * 10 * (6 * 25 + 1) == 241600


def test_linear_and_lenet_flops(capsys):
    assert eager.flops(nn.Linear(7, 5), [3, 7]) == 7 * 3 * 5          # no bias term, as Paddle
    net = LeNet()
    assert eager.flops(net, [1, 1, 28, 28], print_detail=True) == 347560   # Paddle's documented total
    out = capsys.readouterr().out
    assert "Total Flops: 347560     Total Params: 61610" in out
    table = [line for line in out.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in table]
    assert cells[0] == ["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    assert [c[0] for c in cells[1:]] == [l.full_name() for l in [*net.features, *net.fc]]
    assert [int(c[4]) for c in cells[1:]] == [47040, 0, 0, 241600, 0, 0, 48000, 10080, 840]
    assert [int(c[3]) for c in cells[1:]] == [60, 0, 0, 2416, 0, 0, 48120, 10164, 850]
    assert cells[4][1:3] == ["[1, 6, 14, 14]", "[1, 16, 10, 10]"]
    assert len({len(line) for line in out.splitlines() if line[:1] in "|+"}) == 1


def test_norm_pool_activation_flops(capsys):
    net = nn.Sequential(
        nn.BatchNorm2D(3),                # 2 per element
        nn.LeakyReLU(),                   # 1 per element
        nn.ReLU(),                        # 0
        nn.AvgPool2D(2),                  # 1 per output element
        nn.AdaptiveAvgPool2D(2),          # (kernel + 1) per output element
        nn.Sigmoid(),                     # no rule: 0
    )
    n = 2 * 3 * 8 * 8
    expected = 2 * n + n + 0 + 2 * 3 * 4 * 4 + (2 * 2 + 1) * 2 * 3 * 2 * 2
    net.train()
    assert eager.flops(net, [2, 3, 8, 8]) == expected
    out = capsys.readouterr().out
    assert "Cannot find suitable count function for <class 'eager.nn.layers.Sigmoid'>" in out
    assert "Total Params: 12" in out  # BatchNorm's weight, bias and running mean and variance (parameters in Paddle)
    assert all(layer.training for layer in net.sublayers(include_self=True))


def test_flops_custom_ops_and_existing_attributes(capsys):
    def count_sigmoid(layer, inputs, output):
        layer.total_ops += 4 * int(output.numel())

    net = nn.Sequential(nn.Linear(3, 4), nn.Sigmoid())
    net[1].total_ops = "mine"                          # a user's attribute survives
    got = eager.flops(net, [2, 3], custom_ops={nn.Sigmoid: count_sigmoid})
    assert got == 3 * 8 + 4 * 8
    assert "Customize Function has been applied to <class 'eager.nn.layers.Sigmoid'>" \
        in capsys.readouterr().out
    assert net[1].total_ops == "mine" and "total_ops" not in net[0].__dict__
    assert all(not layer._forward_post_hooks for layer in net.sublayers(include_self=True))


def test_flops_lstm_is_one_unit(capsys):
    net = nn.LSTM(4, 8)
    assert eager.flops(net, [1, 5, 4], print_detail=True) == 0
    out = capsys.readouterr().out
    assert "LSTMCell" not in out and f"Total Params: {4 * 8 * 4 + 8 * 8 * 4 + 64}" in out


def test_flops_bad_inputs():
    with pytest.raises(TypeError, match="flops: argument 'net'"):
        eager.flops("net", [1, 3])
    with pytest.raises(ValueError, match="flops: argument 'input_size'"):
        eager.flops(nn.Linear(3, 2), [None, 3])
    with pytest.raises(TypeError, match="flops: argument 'custom_ops'"):
        eager.flops(nn.Linear(3, 2), [1, 3], custom_ops={"Linear": print})
    with pytest.raises(TypeError, match="flops: argument 'print_detail'"):
        eager.flops(nn.Linear(3, 2), [1, 3], print_detail="yes")


def test_tuple_of_shapes_is_several_inputs_and_nested_ones_a_list(capsys):
    # As Paddle: a tuple of shapes is several inputs; an entry that is itself a
    # tuple of shapes is one input, a list of tensors.
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, pair, z):
            assert isinstance(pair, list) and len(pair) == 2
            return self.fc(pair[0] * pair[1] + z)

    net = Net()
    assert eager.summary(net, (((None, 3), (4, 3)), (4, 3))) == {"total_params": 8,
                                                                 "trainable_params": 8}
    assert rows_of(capsys.readouterr().out) == [(f"Linear-{number(net.fc)}", [[4, 3]], [4, 2], 8)]
    eager.summary(TwoInputs(), ((2, 3), (2, 5)))
    assert [r[1] for r in rows_of(capsys.readouterr().out)] == [[[2, 3]], [[2, 5]]]


def test_summary_bad_dtype_names_the_function():
    net = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="summary: argument 'dtypes'.*flot32"):
        eager.summary(net, (1, 2), dtypes="flot32")
    assert not net._forward_post_hooks


@pytest.mark.parametrize("norm", [lambda c: nn.BatchNorm2D(c), lambda c: nn.BatchNorm(c),
                                  lambda c: nn.SyncBatchNorm(c)])
def test_batch_norm_running_statistics_count_as_non_trainable_parameters(norm, capsys):
    # Paddle creates _mean and _variance as trainable=False parameters, so its summary of a
    # BatchNorm2D(64) shows 256 (its tutorials' printed tables); eager keeps them as buffers
    net = nn.Sequential(nn.Conv2D(3, 64, 3), norm(64))
    info = eager.summary(net, (1, 3, 8, 8))
    text = capsys.readouterr().out
    conv = 3 * 64 * 9 + 64
    assert info == {"total_params": conv + 4 * 64, "trainable_params": conv + 2 * 64}
    assert totals_of(text)["Non-trainable params"] == "128"
    assert re.search(r"Norm\w*-\d+\s.*\s256\s*$", text, re.M), text
    assert len(net.parameters()) == 4  # still buffers: parameters() lists the conv's and the affine ones
