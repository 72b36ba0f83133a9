"""Paddle's own docstring examples, run with ``paddle`` aliased to eager: a conformance probe.

The mission's test is that a Paddle 2.x script runs with ``import eager as paddle``
and nothing else changed. Paddle's docstrings hold ~1,500 such scripts with their
printed outputs (xdoctest style, ``>>>`` lines). This tool reads them from a
checkout of Paddle's source, runs each block with ``import paddle`` giving eager,
and compares what it prints with what Paddle printed (numbers to 2e-3 relative,
Place ignored). Nothing of Paddle's is stored here: point it at a checkout.

    python tools/paddle_examples.py harvest PADDLE_GIT_DIR examples.json
    python tools/paddle_examples.py run examples.json results.json [REGEX]
    python tools/paddle_examples.py report results.json

Out of its verdicts, ``skip`` marks blocks that need a GPU or other device (or
install packages themselves), and
a ``mismatch`` of a block that draws random numbers is expected (another RNG)
unless shapes or dtypes differ; the report lists those separately.
"""
from __future__ import annotations

import ast
import codeop
import collections
import contextlib
import doctest
import importlib
import importlib.abc
import importlib.util
import io
import json
import math
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap

# Paddle's parts that eager does not build: the static graph, its internals, launchers.
_OUT_OF_SCOPE = re.compile(
    r"python/paddle/(fluid|base|static|pir|libs|proto|inference|decomposition|_typing|tests?)/|/tests?/"
    r"|dy2static|jit/sot|auto_parallel|distributed/(fleet|passes|ps|rpc|transpiler|launch)|cpp_extension")
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")
# Examples that install packages themselves (compare_accuracy runs `pip install xlsxwriter`).
_INSTALLS = re.compile(r"\bpip3?[\s'\",]+install\b")  # also ['python', '-m', 'pip', 'install', ...]
_DEVICE_ONLY = re.compile(r"#\s*x?doctest:\s*\+REQUIRES\((?:[^)]*)(GPU|XPU|DISTRIBUTED|CUSTOM|module)")
_RANDOM = re.compile(r"\b(rand\w*|uniform|normal|seed|[dD]ropout|shuffle|multinomial|bernoulli|poisson|"
                     r"standard_normal|gumbel\w*|sample|[rR]R[eE][lL][uU]|rrelu)\b")


def harvest(git_dir: str, out_path: str) -> None:
    """Writes every ``>>>`` code block of Paddle's docstrings at HEAD of ``git_dir`` to ``out_path``."""
    listing = subprocess.run(["git", "-C", git_dir, "ls-tree", "-r", "--name-only", "HEAD", "python/paddle"],
                             capture_output=True, text=True, check=True).stdout.split()
    blocks = []
    for path in listing:
        if not path.endswith(".py") or _OUT_OF_SCOPE.search(path):
            continue
        source = subprocess.run(["git", "-C", git_dir, "show", f"HEAD:{path}"], capture_output=True,
                                text=True, check=True).stdout
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        blocks += _blocks_of(tree, path)
    with open(out_path, "w") as out:
        json.dump(blocks, out, indent=0)
    print(f"{len(blocks)} blocks from {len({b['file'] for b in blocks})} files")


def _blocks_of(tree: ast.AST, path: str, prefix: str = "") -> list:
    found = []
    for node in ast.iter_child_nodes(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        name = prefix + node.name
        doc = ast.get_docstring(node) or ""
        sections = re.split(r"\.\. code-block::\s*python[^\n]*\n", doc)
        for index, section in enumerate(sections[1:] if len(sections) > 1 else sections):
            text = _indented_block(section)
            if ">>>" in text:
                found.append({"file": path, "name": name, "block": index, "text": text})
        found += _blocks_of(node, path, name + ".")
    return found


def _indented_block(section: str) -> str:
    """The code block at the start of a docstring section: its indented lines."""
    body = []
    for line in section.split("\n"):
        if line.strip() and not line[:1].isspace() and any(">>>" in b for b in body):
            break
        if not line.strip() or line[:1].isspace():
            body.append(line)
    return textwrap.dedent("\n".join(body)).strip("\n")


class _PaddleIsEager(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import paddle.nn.functional as F`` gives eager.nn.functional."""

    def find_spec(self, name, path=None, target=None):
        if name == "paddle" or name.startswith("paddle."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("eager" + spec.name[len("paddle"):])

    def exec_module(self, module):
        pass


def _normalized(text: str) -> str:
    text = text.replace("<BLANKLINE>", "")  # doctest's report marks blank lines so
    text = re.sub(r"place=\w*Place\([^)]*\)", "place=P", text)
    text = re.sub(r"\b(inf|nan)\.", r"\1", text)  # Paddle prints `inf.`
    text = re.sub(r"\s+", " ", text).strip()
    for spaced, tight in (("[ ", "["), (" ]", "]"), ("( ", "("), (" )", ")")):
        text = text.replace(spaced, tight)
    return text


def _shape_of(text: str) -> str:
    return re.sub(r"\s+", "", _NUMBER.sub("#", _normalized(text)))


def _same_output(want: str, got: str) -> bool:
    want, got = _normalized(want), _normalized(got)
    if want == got:
        return True
    wanted, gotten = _NUMBER.findall(want), _NUMBER.findall(got)
    if _shape_of(want) != _shape_of(got) or len(wanted) != len(gotten):
        return False
    return all((math.isnan(float(a)) and math.isnan(float(b)))
               or math.isclose(float(a), float(b), rel_tol=2e-3, abs_tol=2e-4) for a, b in zip(wanted, gotten))


class _Checker(doctest.OutputChecker):
    def check_output(self, want, got, optionflags):
        if not want.strip():
            return True  # xdoctest leaves output without an expected text unchecked
        if "..." in want and super().check_output(want, got, optionflags):
            return True
        return _same_output(want, got)


def _as_doctest(text: str) -> str | None:
    """xdoctest's dialect in doctest's: skip directives applied, '>>>' continuations as '...'."""
    if _DEVICE_ONLY.search(text) or _INSTALLS.search(text):
        return None
    lines, skipping, statement, statement_start = [], False, None, 0
    source = text.split("\n")
    i = 0
    while i < len(source):
        line, bare = source[i], source[i].strip()
        i += 1
        if re.match(r">>>\s*#\s*x?doctest:\s*([+-])SKIP", bare):
            skipping = "+SKIP" in bare.replace(" ", "")
            continue
        if skipping:
            continue
        if re.search(r"#\s*x?doctest:\s*\+SKIP", line):  # this statement and its output only
            if bare.startswith("...") and statement is not None:  # on a continuation: the whole statement
                del lines[statement_start:]
                statement = None
            while i < len(source) and source[i].strip() and not source[i].lstrip().startswith(">>>"):
                i += 1
            continue
        line = re.sub(r"#\s*x?doctest:.*$", "", line)
        bare = line.lstrip()
        if bare.startswith(">>>"):
            code = bare[4:] if bare.startswith(">>> ") else bare[3:]
            if statement is not None and _unfinished(statement):
                lines.append("... " + code)
                statement += "\n" + code
                continue
            statement, statement_start = code, len(lines)
        elif bare.startswith("...") and statement is not None:
            statement += "\n" + (bare[4:] if bare.startswith("... ") else bare[3:])
        else:
            statement = None
        lines.append(line)
    return "\n".join(lines)


def _unfinished(statement: str) -> bool:
    try:
        return codeop.compile_command(statement, symbol="exec") is None
    except (SyntaxError, ValueError, OverflowError):
        return False


def _timed_out(*_):
    raise TimeoutError("the example ran over 30 s")


def _run_block(block: dict) -> dict:
    import eager
    verdict = {key: block[key] for key in ("file", "name", "block")}
    text = _as_doctest(block["text"])
    if text is None:
        return dict(verdict, status="skip")
    eager.set_default_dtype("float32")
    eager.seed(0)
    try:
        test = doctest.DocTestParser().get_doctest(text, {"__name__": "__main__"}, block["name"], block["file"], 0)
    except ValueError as error:
        return dict(verdict, status="unparsed", detail=str(error))
    report = io.StringIO()
    runner = doctest.DocTestRunner(checker=_Checker(), optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS | doctest.REPORT_ONLY_FIRST_FAILURE)
    signal.signal(signal.SIGALRM, _timed_out)
    signal.alarm(30)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            outcome = runner.run(test, out=report.write, clear_globs=True)
    except BaseException as error:  # noqa: BLE001  (an example may raise anything, SystemExit included)
        return dict(verdict, status="crash", detail=repr(error))
    finally:
        signal.alarm(0)
    if not outcome.failed:
        return dict(verdict, status="pass")
    detail = report.getvalue()
    status = "exception" if "Exception raised:" in detail else "mismatch"
    if status == "mismatch" and _RANDOM.search(block["text"]):
        found = re.search(r"Expected:\n(.*?)\nGot:\n(.*)", detail, re.S)
        if found and _shape_of(found.group(1)) == _shape_of(found.group(2)):
            status = "random"
    return dict(verdict, status=status, detail=detail[-3000:])


def run(examples_path: str, out_path: str, pattern: str = "") -> None:
    """Runs the harvested blocks (those whose ``file:name`` matches ``pattern``) in worker processes."""
    import warnings
    warnings.filterwarnings("ignore")
    sys.meta_path.insert(0, _PaddleIsEager())
    import eager  # noqa: F401  (loaded once, before the workers fork)
    with open(examples_path) as f:
        blocks = [b for b in json.load(f) if re.search(pattern, f"{b['file']}:{b['name']}")]
    out_path = os.path.abspath(out_path)
    # The examples write files (checkpoints, images, wav) into the current directory: a scratch one.
    with tempfile.TemporaryDirectory(prefix="paddle_examples_") as scratch, contextlib.chdir(scratch), \
            multiprocessing.get_context("fork").Pool(2, maxtasksperchild=40) as pool:
        verdicts = pool.map(_run_block, blocks, chunksize=4)
    with open(out_path, "w") as out:
        json.dump(verdicts, out, indent=0)
    print(collections.Counter(v["status"] for v in verdicts))


def report(results_path: str) -> None:
    """Prints the counts and, per failing block, its first error line."""
    with open(results_path) as f:
        verdicts = json.load(f)
    print(collections.Counter(v["status"] for v in verdicts))
    for v in sorted(verdicts, key=lambda v: (v["file"], v["name"])):
        if v["status"] in ("pass", "skip", "random"):
            continue
        error = re.search(r"Exception raised:\n(?:.*\n)*?    (\w[\w.]*(?:Error|Exception)[^\n]*)", v.get("detail", ""))
        print(f"{v['file'].removeprefix('python/paddle/'):40} {v['name']:40} {v['status']:9} "
              f"{error.group(1)[:120] if error else ''}")


if __name__ == "__main__":
    commands = {"harvest": harvest, "run": run, "report": report}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](*sys.argv[2:])
