"""backward.yaml's ``bilinear`` key: the double grads of multiply and matmul are
generated from the op and its gradient op (JAX's defbilinear), checked here to
third order against finite differences, and a wrong key is rejected."""
import numpy as np
import pytest

import eager
from eager.api_gen.model import SpecError
from eager.api_gen.render import load_specs
from eager.autograd import gradgradcheck
from test_api_gen import copy_yaml, edit_entry

rng = np.random.default_rng(7)


def leaf(*shape):
    return eager.to_tensor(rng.normal(size=shape), stop_gradient=False)


def test_the_double_grads_of_multiply_and_matmul_are_generated_from_the_key():
    forward = (eager.ops.multiply_double_grad.__doc__, eager.ops.matmul_double_grad.__doc__)
    assert all("Differentiable to any order." in doc for doc in forward)
    from eager.generated import ops_elementwise, ops_matmul

    assert "bilinear_double_grad(multiply, multiply_grad," in open(ops_elementwise.__file__).read()
    assert "bilinear_double_grad(matmul, matmul_grad," in open(ops_matmul.__file__).read()


def _grad_of(op):
    """x, y -> the gradients of sum(op(x, y) * w), a function of x and y."""
    def grads(x, y):
        with eager.enable_grad():  # gradgradcheck perturbs inputs under no_grad
            out = op(x, y)
            weight = eager.to_tensor(np.linspace(-1.0, 1.0, out.size).reshape(out.shape))
            return tuple(eager.grad((out * weight).sum(), [x, y], create_graph=True))
    return grads


@pytest.mark.parametrize("shapes", [((3, 1), (1, 4)), ((2, 3), (2, 3)), ((3,), ())])
def test_multiply_second_and_third_derivatives_match_finite_differences(shapes):
    x, y = leaf(*shapes[0]), leaf(*shapes[1])
    assert gradgradcheck(_grad_of(eager.multiply), (x, y))


@pytest.mark.parametrize("tx, ty", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_second_and_third_derivatives_match_finite_differences(tx, ty):
    x = leaf(*((3, 2) if tx else (2, 3)))
    y = leaf(*((4, 3) if ty else (3, 4)))
    assert gradgradcheck(_grad_of(lambda a, b: eager.matmul(a, b, tx, ty)), (x, y))


def test_bilinear_must_name_the_op_whose_gradient_is_differentiated(tmp_path):
    ops, bwd = copy_yaml(tmp_path)
    line = edit_entry(bwd, "- backward_op : multiply_double_grad", "bilinear : multiply", "bilinear : matmul")
    with pytest.raises(SpecError) as info:
        load_specs(ops, bwd)
    message = str(info.value)
    assert message.startswith(f"{bwd}:{line}: ")
    assert "it differentiates 'multiply_grad', but the gradient of matmul is 'matmul_grad'" in message


def test_bilinear_excludes_a_composite(tmp_path):
    ops, bwd = copy_yaml(tmp_path)
    edit_entry(bwd, "- backward_op : multiply_double_grad", "bilinear : multiply",
               "bilinear : multiply\n  composite : add_grad(x, y, grad_out)")
    with pytest.raises(SpecError, match="generated from the bilinear op 'multiply', so it takes no kernel"):
        load_specs(ops, bwd)
