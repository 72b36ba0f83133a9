"""eager.vision.models: Paddle's published parameter counts, output shapes,
state_dict names, a forward+backward, and LeNet learning a few steps."""
import doctest

import numpy as np
import pytest

import eager
from eager.vision import models as M


def count(model):
    return sum(int(np.prod(p.shape)) for p in model.parameters())


@pytest.mark.parametrize("build, expected", [
    (lambda: M.LeNet(), 61_610),
    (lambda: M.resnet18(), 11_689_512),
    (lambda: M.resnet34(), 21_797_672),
    (lambda: M.resnet50(), 25_557_032),
    (lambda: M.mobilenet_v1(), 4_231_976),
])
def test_parameter_counts_are_paddles(build, expected):
    assert count(build()) == expected


def test_vgg11_parameter_counts():
    # The full model is 133M parameters (seconds to build): count the features
    # here, the classifier by its Linear shapes.
    classifier = (25088 * 4096 + 4096) + (4096 * 4096 + 4096) + (4096 * 1000 + 1000)
    assert count(M.vgg11(num_classes=-1, with_pool=False)) + classifier == 132_863_336
    assert count(M.vgg11(batch_norm=True, num_classes=-1, with_pool=False)) + classifier == 132_868_840


def test_state_dict_keys_use_paddles_names():
    keys = set(M.resnet18(num_classes=10).state_dict())
    assert {"conv1.weight", "bn1._mean", "bn1._variance", "layer1.0.conv1.weight", "layer2.0.downsample.0.weight",
            "layer2.0.downsample.1.weight", "layer4.1.bn2.bias", "fc.weight", "fc.bias"} <= keys
    assert "conv1.bias" not in keys
    keys = set(M.LeNet().state_dict())
    assert keys == {"features.0.weight", "features.0.bias", "features.3.weight", "features.3.bias",
                    "fc.0.weight", "fc.0.bias", "fc.1.weight", "fc.1.bias", "fc.2.weight", "fc.2.bias"}
    keys = set(M.mobilenet_v1(scale=0.25, num_classes=10).state_dict())
    # Paddle 2.6.2's names (its ConvNormActivation blocks)
    assert {"conv1.0.weight", "conv2_1._depthwise_conv.1._mean", "conv6._pointwise_conv.0.weight",
            "fc.weight"} <= keys
    keys = set(M.vgg11(batch_norm=True, num_classes=-1, with_pool=False).state_dict())
    assert {"features.0.weight", "features.1._mean", "features.4.weight"} <= keys


def test_output_shapes():
    x = eager.rand([1, 3, 32, 32])
    assert M.resnet18(num_classes=0, with_pool=False)(x).shape == [1, 512, 1, 1]
    block = M.BottleneckBlock(64, 16, stride=2, downsample=eager.nn.Conv2D(64, 64, 1, stride=2))
    assert block(eager.rand([1, 64, 8, 8])).shape == [1, 64, 4, 4]
    assert M.mobilenet_v1(scale=0.25, num_classes=5)(x).shape == [1, 5]
    assert M.LeNet()(eager.rand([3, 1, 28, 28])).shape == [3, 10]
    assert M.LeNet(num_classes=0)(eager.rand([3, 1, 28, 28])).shape == [3, 16, 5, 5]
    assert M.VGG(M.vgg.make_layers([8, "M", 16, "M"]), num_classes=-1)(x).shape == [1, 16, 7, 7]
    assert M.VGG(M.vgg.make_layers([8, "M"]), num_classes=-1, with_pool=False)(x).shape == [1, 8, 16, 16]


def test_resnet18_forward_backward_reaches_every_parameter():
    eager.seed(0)
    model = M.resnet18(num_classes=10)
    logits = model(eager.rand([2, 3, 32, 32]))
    assert logits.shape == [2, 10]
    loss = eager.nn.functional.cross_entropy(logits, eager.to_tensor(np.array([1, 7])))
    loss.backward()
    grads = [p.grad for p in model.parameters()]
    assert all(g is not None for g in grads)
    assert all(np.isfinite(g.numpy()).all() for g in grads)
    assert float(np.abs(model.conv1.weight.grad.numpy()).sum()) > 0


def test_lenet_learns_a_few_steps():
    eager.seed(0)
    rng = np.random.default_rng(0)
    x = eager.to_tensor(rng.standard_normal((16, 1, 28, 28)).astype(np.float32))
    y = eager.to_tensor(rng.integers(0, 10, 16))
    model = M.LeNet()
    opt = eager.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    losses = []
    for _ in range(15):
        loss = eager.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.5 * losses[0]


def test_pretrained_and_bad_arguments_raise_clear_errors():
    for build in (M.resnet18, M.resnet34, M.resnet50, M.vgg11, M.mobilenet_v1):
        with pytest.raises(ValueError, match=f"{build.__name__}: pretrained=True is not available"):
            build(pretrained=True)
    with pytest.raises(ValueError, match="ResNet: argument 'depth'"):
        M.ResNet(M.BasicBlock, 20)
    with pytest.raises(TypeError, match="ResNet: argument 'block'"):
        M.ResNet("basic", 18)
    with pytest.raises(TypeError, match="LeNet: argument 'num_classes'"):
        M.LeNet(num_classes="10")


# Their examples build 20-140M parameter models (seconds each); the rest run. Of the ResNeXt and
# wide ResNet builders, whose examples come from one template (resnet._variant), resnext50_32x4d's runs.
HEAVY = {"resnet34", "resnet50", "resnet101", "resnet152", "vgg13", "vgg16", "vgg19",
         "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d",
         "wide_resnet50_2", "wide_resnet101_2"}


def test_docstring_examples_run():
    runner = doctest.DocTestRunner()
    heavy = []
    for module in (M.lenet, M.resnet, M.vgg, M.mobilenetv1, M, eager.vision, eager.vision.image):
        for test in doctest.DocTestFinder().find(module, extraglobs={"eager": eager}):
            if test.name.rsplit(".", 1)[-1] not in HEAVY:
                runner.run(test)
            elif test.examples:
                heavy.append(test)
    assert runner.failures == 0 and runner.tries > 20
    # The examples not run still compile and call the builder they document, by its own name.
    assert {t.name.rsplit(".", 1)[-1] for t in heavy} == HEAVY
    for test in heavy:
        name = test.name.rsplit(".", 1)[-1]
        for example in test.examples:
            compile(example.source, test.name, "exec")
        assert f"eager.vision.models.{name}(" in test.examples[-1].source, test.name
        assert getattr(M, name).__name__ == name


def test_intermediate_layer_getter_returns_the_named_sublayers_outputs():
    from eager.vision.models._utils import IntermediateLayerGetter
    model = eager.vision.models.resnet18(num_classes=3)
    model.eval()
    getter = IntermediateLayerGetter(model, {"layer1": "feat1", "layer3": "feat2"})
    assert list(getter.keys()) == ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3"]
    assert getter["layer2"] is model.layer2                      # shared, not copied
    x = eager.rand([2, 3, 32, 32])
    out = getter(x)
    assert list(out) == ["feat1", "feat2"]
    h = model.maxpool(model.relu(model.bn1(model.conv1(x))))
    feat1 = model.layer1(h)
    np.testing.assert_allclose(out["feat1"].numpy(), feat1.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out["feat2"].numpy(), model.layer3(model.layer2(feat1)).numpy(), rtol=1e-6)
    assert out["feat2"].shape == [2, 256, 2, 2]
    with pytest.raises(ValueError, match=r"IntermediateLayerGetter: return_layers \['head'\] are not direct"):
        IntermediateLayerGetter(model, {"head": "x"})
    with pytest.raises(TypeError, match="IntermediateLayerGetter: argument 'return_layers'"):
        IntermediateLayerGetter(model, ["layer1"])
    with pytest.raises(TypeError, match="IntermediateLayerGetter: argument 'model'"):
        IntermediateLayerGetter(object(), {"layer1": "a"})
