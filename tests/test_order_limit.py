"""An op whose backward op cannot be differentiated says so, by op and order."""
import re

import numpy as np
import pytest

import eager
from eager.api_gen.render import BACKWARD_YAML, OPS_YAML, render_all
from eager.autograd import AutogradError
from eager.autograd.order_limit import limit_order


def test_every_op_in_the_yaml_supports_any_order_today():
    from eager.generated import forward_api

    assert "Differentiable to any order." in forward_api.tanh.__doc__
    assert "Not differentiable." in forward_api.equal.__doc__


def _tanh_as_a_dead_end(tmp_path):
    text = BACKWARD_YAML.read_text()
    text = text.replace("  backward : tanh_double_grad\n", "")
    text = re.sub(r"- backward_op : tanh_double_grad\n(?:  .*\n)+", "", text)
    path = tmp_path / "backward.yaml"
    path.write_text(text)
    return render_all(OPS_YAML, path)


def test_generator_marks_last_order_and_documents_it(tmp_path):
    rendered = _tanh_as_a_dead_end(tmp_path)
    nodes = rendered["eager/generated/ops_activation.py"]
    tanh_node = nodes[nodes.index("class TanhGradNode"):nodes.index("class", nodes.index("class TanhGradNode") + 5)]
    # The node keeps edges to what tanh_grad read, so grad(..., inputs) reaches it.
    assert 'limit_order(((grad,), ), "tanh", 1, (out, out_grad, ))' in tanh_node
    forward = rendered["eager/generated/ops_activation.py"]
    tanh_doc = forward[forward.index("def tanh("):forward.index("def tanh_(")]
    assert "Differentiable to order 1." in tanh_doc
    # Ops that still have composite rules are untouched.
    assert "limit_order" not in nodes[nodes.index("class SigmoidGradNode"):nodes.index("class SigmoidDoubleGradNode")]


def test_differentiating_past_the_last_order_raises_naming_op_and_order():
    x = eager.to_tensor(np.array([0.3, -0.2]), stop_gradient=False)
    (g,) = eager.grad(eager.tanh(x).sum(), x, create_graph=True)
    ((last,),) = limit_order(((g * 1.0,),), "tanh", 1)
    assert not last.stop_gradient  # create_graph=True alone is fine ...
    with pytest.raises(AutogradError, match="tanh is differentiable to order 1 only.*order 2"):
        last.sum().backward()  # ... asking for order 2 is not


def test_grad_with_inputs_reaches_the_last_order_instead_of_pruning_it():
    # grad(..., inputs) runs only the nodes on a path to an input: the limited node
    # keeps edges to what the backward op read, so it is on that path and raises,
    # where an edge-less one was skipped and its term silently left out.
    x = eager.to_tensor(np.array([0.3, -0.2]), stop_gradient=False)
    out = eager.tanh(x)
    ((last,),) = limit_order(((out * 1.0,),), "tanh", 1, (out,))
    with pytest.raises(AutogradError, match="tanh is differentiable to order 1 only"):
        eager.grad((last * x).sum(), x)
