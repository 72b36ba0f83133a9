"""Pictures of the backward graph of a small classifier, after a few training steps.

Run from any directory; the pictures are written into the current one:

    python examples/visualize_graph.py

writes ``mlp_graph.svg/.png`` (every op, with the tensors saved for backward)
and ``mlp_graph_collapsed.svg/.png`` (layers folded into one box each, with
gradient health), and prints the text view. Needs ``pip install graphviz`` and
Graphviz's ``dot`` for the pictures; the text view needs neither.
"""
import os
import sys

try:
    import eager
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import eager

import numpy as np

from eager import nn


class Classifier(nn.Layer):
    """Two hidden layers and a linear head; every call runs inside the layer's name scope."""

    def __init__(self, features: int, hidden: int, classes: int):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(features, hidden), nn.Tanh(),
                                     nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def make_data(rng, count: int = 64):
    x = rng.normal(size=(count, 4)).astype("float32")
    y = (x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64")  # 3 classes
    return eager.to_tensor(x), eager.to_tensor(y)


def train(model, x, y, steps: int = 5):
    loss_fn = nn.CrossEntropyLoss()
    optimizer = eager.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    for step in range(steps):
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        print(f"step {step}: loss {float(loss.numpy()):.4f}")
    # One more step whose graph we keep (retain_graph) to draw it with its gradients.
    loss = loss_fn(model(x), y)
    loss.backward(retain_graph=True)
    return loss


def main():
    eager.nn.seed(0)
    model = Classifier(features=4, hidden=16, classes=3)
    x, y = make_data(np.random.default_rng(0))
    loss = train(model, x, y)

    print()
    eager.viz.print_graph(loss, params=model, show_grads=True)

    try:
        full = eager.viz.make_graph(loss, params=model, show_saved=True, show_grads=True)
        collapsed = eager.viz.make_graph(loss, params=model, collapse=1, show_grads=True)
    except ImportError as error:
        print(f"\nno pictures: {error}")
        return
    try:
        for name, graph in (("mlp_graph", full), ("mlp_graph_collapsed", collapsed)):
            for fmt in ("svg", "png"):
                print("wrote", eager.viz.render(graph, f"{name}.{fmt}"))
    except eager.viz.GraphvizNotFoundError as error:
        with open("mlp_graph.gv", "w", encoding="utf-8") as file:
            file.write(full.source)
        print(f"\nwrote mlp_graph.gv (DOT source) only:\n{error}")


if __name__ == "__main__":
    main()
