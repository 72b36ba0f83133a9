"""The house is layered: imports sit at the top of their files, form no cycle,
and point only downwards (phi never imports eager; the autograd core never
imports the generated code or nn).

Read from the source with ast, so the check covers every module whether or
not a test imports it.
"""
import ast
from pathlib import Path

import pytest

import fresh_python

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("eager", "phi")
# Optional extras stay lazy: importing them at the top would make them required.
OPTIONAL = {"cupy", "cupyx", "torch", "tqdm", "mpi4py", "graphviz", "safetensors", "ml_dtypes"}
# The autograd tools above the generated code (loaded lazily by eager.autograd).
AUTOGRAD_TOOLS = {"eager.autograd.functional", "eager.autograd.gradient_check", "eager.autograd.lazy_jacobian"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


MODULES = modules()


def resolve(module: str, path: Path, node) -> list:
    """The project modules an import statement loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] in PACKAGES]
    if node.level:
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for _ in range(node.level - 1):
            package = package.rsplit(".", 1)[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    if base.split(".")[0] not in PACKAGES:
        return []
    targets = []
    for alias in node.names:
        candidate = f"{base}.{alias.name}"
        targets.append(candidate if candidate in MODULES else base)
    return targets


def imports_of(module: str, path: Path):
    """(top-level project imports, function-level imports as (line, text))."""
    tree = ast.parse(path.read_text())
    top, nested = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top.update(t for t in resolve(module, path, node) if t != module)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    names = [a.name for a in inner.names] if isinstance(inner, ast.Import) else [inner.module or ""]
                    if not all(n.split(".")[0] in OPTIONAL for n in names):
                        nested.add((inner.lineno, ast.unparse(inner)))
    return top, sorted(nested)


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def test_imports_sit_at_the_top_of_their_files():
    nested = [f"{name}:{line}: {text}" for name, (_, found) in GRAPH.items() for line, text in found]
    assert not nested, "function-level imports (move them to the top):\n" + "\n".join(nested)


def find_cycle(graph: dict):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_import_graph_has_no_cycle():
    cycle = find_cycle({name: top for name, (top, _) in GRAPH.items()})
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_planted_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("lower, upper", [
    ("phi", "eager"),
    ("eager.tensor", "eager.autograd.engine"),
    ("eager.autograd", "eager.generated"),
    ("eager.autograd", "eager.nn"),
    ("eager.autograd", "eager.composite"),
    ("eager.api_gen", "eager."),
])
def test_lower_layers_never_import_upper_ones(lower, upper):
    wrong = [f"{name} imports {target}" for name, (top, _) in GRAPH.items()
             if (name == lower or name.startswith(lower + ".")) and name not in AUTOGRAD_TOOLS
             for target in top if target.startswith(upper) and not target.startswith("eager.api_gen")]
    assert not wrong, "\n".join(wrong)


def test_autograd_imports_alone_without_the_generated_code():
    code = ("import sys, eager.autograd; "
            "print(sorted(m for m in sys.modules if m.startswith('eager.generated')))")
    result = fresh_python.run(code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_generated_code_loads_what_completes_it():
    code = ("import eager.generated.forward_api as F, eager.tensor as T, numpy as np; "
            "x = T.Tensor(__import__('phi').DenseTensor(np.ones(2))); "
            "print((x + x).numpy().tolist(), x.matmul is not None)")
    result = fresh_python.run(code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[2.0, 2.0] True"


@pytest.mark.parametrize("first", ["eager.tensor", "eager.creation", "eager.composite", "eager.autograd",
                                   "eager.nn", "eager.linalg", "eager.optimizer", "eager.io"])
def test_a_module_imports_as_a_programs_first_import(first):
    # `from eager.tensor import Tensor` before anything else must not meet a half-loaded
    # module; then ops, Tensor methods and the garbage-collector policy are all in place.
    code = (f"import {first}, gc, eager; x = eager.to_tensor([1.0, 2.0], stop_gradient=False); "
            "(x * x).sum().backward(); "
            "print(x.grad.numpy().tolist(), any(getattr(c, '__module__', '') == 'eager.autograd.gc_policy' "
            "for c in gc.callbacks))")
    result = fresh_python.run(code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[2.0, 4.0] True"


def _top_level_modules():
    import pkgutil
    import eager
    return sorted(f"eager.{m.name}" for m in pkgutil.iter_modules(eager.__path__)
                  if m.name not in ("api_gen",) and not m.name.startswith("_"))


def test_every_top_level_module_imports_as_a_programs_first_import():
    # A cycle shows only when its module is the first one imported (as
    # `import eager.random` once was); one fresh interpreter per module, a few at a time.
    from concurrent.futures import ThreadPoolExecutor

    def first_import(name):
        result = fresh_python.run(f"import {name}", timeout=120)
        return name, result.returncode, result.stderr.strip().splitlines()[-1:]

    fresh_python.warm_cache()  # (tests/fresh_python.py: the interpreters share compiled bytecode)
    with ThreadPoolExecutor(4) as pool:
        failed = [f"{name}: {err}" for name, rc, err in pool.map(first_import, _top_level_modules()) if rc]
    assert not failed, "\n".join(failed)


def test_a_typical_first_import_leaves_scipy_for_the_first_erf():
    # scipy.special (optional) was a quarter of a second of every `import eager.nn`; the erf
    # kernels import it at their first call, and without SciPy their array versions serve.
    code = ("import importlib.util, math, sys, eager, eager.nn, eager.optimizer, eager.vision\n"
            "x = eager.to_tensor([0.5], dtype='float64')\n"
            "print('scipy' in sys.modules)\n"
            "print(abs(float(eager.erf(x)) - math.erf(0.5)) < 1e-15, 'scipy.special' in sys.modules,\n"
            "      importlib.util.find_spec('scipy') is not None)")
    result = fresh_python.run(code, timeout=60)
    assert result.returncode == 0, result.stderr
    unloaded, after_erf = result.stdout.strip().splitlines()
    assert unloaded == "False"
    close, loaded, installed = after_erf.split()
    assert close == "True" and loaded == installed


def test_without_scipy_erf_takes_its_array_version():
    code = ("import math, sys\n"
            "sys.modules['scipy'] = None  # an import of scipy now fails as if it were not installed\n"
            "import eager\n"
            "from phi.kernels import math_unary_special\n"
            "x = eager.to_tensor([-3.5, 0.5, 2.0], dtype='float64')\n"
            "print(max(abs(a - math.erf(v)) for a, v in zip(eager.erf(x).numpy(), [-3.5, 0.5, 2.0])) < 1e-15,\n"
            "      math_unary_special.scipy_special is None)")
    result = fresh_python.run(code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


LAZY_SUBPACKAGES = ("audio", "hub", "incubate", "quantization", "text", "viz")
LAZY_NAMES = {"Model": "eager.hapi.model", "flops": "eager.hapi.summary", "summary": "eager.hapi.summary"}


def test_a_typical_first_use_leaves_the_rarely_used_subpackages_unloaded():
    # eager/api.py loads them at their first use (eager.text, eager.Model, ...);
    # a script that makes tensors, differentiates and builds layers never pays for them,
    # and dir(eager) lists them without loading them.
    code = ("import sys, eager\n"
            "x = eager.to_tensor([[1.0, 2.0]], stop_gradient=False)\n"
            "layer = eager.nn.Linear(2, 2)\n"
            "layer(x).sum().backward()\n"
            "listed = dir(eager)\n"
            f"print(all(n in listed for n in {LAZY_SUBPACKAGES + tuple(LAZY_NAMES)!r}))\n"
            f"modules = [f'eager.{{n}}' for n in {LAZY_SUBPACKAGES!r}] + {sorted(set(LAZY_NAMES.values()))!r}\n"
            "print([m for m in modules if m in sys.modules])\n"
            "print(abs(x.grad.numpy() - layer.weight.numpy().sum(axis=1)).max() < 1e-6)")
    result = fresh_python.run(code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["True", "[]", "True"]


def test_the_lazily_loaded_names_load_at_first_use_and_work():
    code = ("import contextlib, io, sys, types, eager\n"
            "eager.to_tensor([1.0])\n"
            "print('eager.hapi' in sys.modules)\n"
            "from eager import Model\n"
            "from eager.hapi.model import Model as hapi_model\n"
            "print(Model is hapi_model, eager.api.Model is Model, eager.Model is Model)\n"
            f"print(all(isinstance(getattr(eager, n), types.ModuleType) and getattr(eager, n) is getattr(eager.api, n)\n"
            f"          and getattr(eager, n).__name__ == 'eager.' + n for n in {LAZY_SUBPACKAGES!r}))\n"
            "with contextlib.redirect_stdout(io.StringIO()):  # summary prints its table\n"
            "    params = eager.summary(eager.nn.Linear(3, 2), (1, 3))['total_params']\n"
            "print(params, callable(eager.flops),\n"
            "      callable(eager.viz.make_graph), eager.text.datasets.Imdb is eager.text.Imdb)\n"
            "try:\n"
            "    eager.no_such_name\n"
            "except AttributeError as e:\n"
            "    print(e)\n")
    result = fresh_python.run(code, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["False", "True True True", "True", "8 True True True",
                                          "module 'eager' has no attribute 'no_such_name'"]
