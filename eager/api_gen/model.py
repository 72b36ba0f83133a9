"""ops.yaml / backward.yaml parsed into typed, frozen dataclasses.

Every object knows the file and line it came from, and every error points
there. Unknown keys, leftover text and bad types are rejected at parse time;
cross-entry rules (a backward op that does not exist, names that do not match
the forward op) are checked by :mod:`eager.api_gen.checks`.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

NO_DEFAULT = object()


class SpecError(ValueError):
    """A problem in ops.yaml or backward.yaml, with the file and line."""

    def __init__(self, location: "Location", message: str):
        super().__init__(f"{location}: {message}")
        self.location = location


@dataclass(frozen=True)
class Location:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


# -- argument types (torchgen's BaseType / ListType / OptionalType) -----------

class BaseTy(enum.Enum):
    """The scalar types an argument can have; a list or optional wraps one of them."""

    Tensor = "Tensor"
    Scalar = "Scalar"
    IntArray = "IntArray"
    IntOrIntArray = "IntOrIntArray"  # an int or a list of ints, kept apart (tensor_split's num or indices)
    int = "int"
    float = "float"
    bool = "bool"
    str = "str"
    DataType = "DataType"
    Place = "Place"
    Index = "Index"


@dataclass(frozen=True)
class BaseType:
    name: BaseTy

    def is_tensor_like(self) -> bool:
        return self.name is BaseTy.Tensor

    def is_list_like(self) -> bool:
        return False

    def strip_optional(self) -> "BaseType":
        return self

    def __str__(self) -> str:
        return self.name.value


@dataclass(frozen=True)
class ListType:
    """``T[]``: a Python list (or tuple) of T."""

    elem: BaseType

    def is_tensor_like(self) -> bool:
        return self.elem.is_tensor_like()

    def is_list_like(self) -> bool:
        return True

    def strip_optional(self) -> "ListType":
        return self

    def __str__(self) -> str:
        return f"{self.elem}[]"


@dataclass(frozen=True)
class OptionalType:
    """An argument named in the entry's ``optional:`` key: None is allowed."""

    elem: BaseType | ListType

    def is_tensor_like(self) -> bool:
        return self.elem.is_tensor_like()

    def is_list_like(self) -> bool:
        return self.elem.is_list_like()

    def strip_optional(self):
        return self.elem

    def __str__(self) -> str:
        return f"{self.elem}?"


# Which base types may form a list in the YAML.
_LISTABLE = (BaseTy.Tensor, BaseTy.int, BaseTy.float)


def parse_type(text: str, where: Location, name: str):
    """``Tensor`` -> BaseType, ``Tensor[]`` -> ListType(BaseType); anything else is an error."""
    is_list = text.endswith("[]")
    base_text = text[:-2] if is_list else text
    try:
        base = BaseType(BaseTy(base_text))
    except ValueError:
        known = [name for t in BaseTy for name in (t.value, f"{t.value}[]")[:1 + (t in _LISTABLE)]]
        raise SpecError(where, f"argument {name!r} has unknown type {text!r}; known types: "
                               f"{', '.join(known)}") from None
    if not is_list:
        return base
    if base.name not in _LISTABLE:
        raise SpecError(where, f"argument {name!r}: {text!r} is not a list type; lists are "
                               f"{', '.join(f'{t.value}[]' for t in _LISTABLE)}")
    return ListType(base)


@dataclass(frozen=True)
class Arg:
    type: BaseType | ListType | OptionalType
    name: str
    default: object = NO_DEFAULT

    @property
    def is_tensor(self) -> bool:
        return self.type.is_tensor_like()

    @property
    def is_tensor_list(self) -> bool:
        return self.type.is_tensor_like() and self.type.is_list_like()

    @property
    def optional(self) -> bool:
        return isinstance(self.type, OptionalType)

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@dataclass(frozen=True)
class Output:
    name: str
    is_list: bool = False


@dataclass(frozen=True)
class CallSpec:
    """``fn(a, b, 0)``: an invoke or composite call."""

    func: str
    args: tuple


@dataclass(frozen=True)
class InferMetaSpec:
    func: str
    params: tuple


@dataclass(frozen=True)
class KernelSpec:
    func: str
    params: tuple
    data_type: str | None
    backend: str | None


@dataclass(frozen=True)
class ForwardSignature:
    """The ``forward:`` line of a backward op: the op differentiated, with its
    args possibly renamed by position."""

    name: str
    args: tuple
    outputs: tuple


@dataclass(frozen=True)
class OpSpec:
    name: str
    args: tuple
    outputs: tuple
    location: Location
    is_backward: bool
    infer_meta: InferMetaSpec | None = None
    kernel: KernelSpec | None = None
    backward: str | None = None
    forward: ForwardSignature | None = None
    inplace: tuple | None = None  # (input, output)
    view: tuple | None = None
    scalar_tensor: tuple | None = None  # (arg, like): a number for arg becomes a 0-d tensor like `like`
    optional: tuple = ()
    intermediate: tuple = ()
    no_grad_outputs: tuple = ()  # outputs that are never differentiable (an index beside a value)
    returned_if: tuple = ()  # (output, bool attribute): returned only when the attribute is true
    no_need_buffer: tuple = ()
    pass_through: tuple = ()  # backward outputs that are the incoming gradient itself when shapes match
    invoke: CallSpec | None = None
    composite: CallSpec | None = None
    bilinear: str | None = None  # the bilinear forward op whose gradient this differentiates
    operator: str | None = None  # the Tensor operator ("__add__") generated as this op in one frame
    scalar_operator: CallSpec | None = None  # the op the operator runs for a number y on a floating x
    reflected_operator: str | None = None  # the reflected operator ("__radd__") that is the same function
    type_promotion: tuple = ()  # tensor args cast to a common dtype when they differ (Paddle 2.6's rules)
    complex_promotion: tuple = ()  # tensor args cast to one complex dtype when one is complex, the other floating
    doc: str = ""
    key_lines: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def tensor_args(self) -> tuple:
        return tuple(a for a in self.args if a.is_tensor)

    @property
    def attr_args(self) -> tuple:
        return tuple(a for a in self.args if not a.is_tensor)

    @property
    def grad_outputs(self) -> tuple:
        """The differentiable outputs: each is one gradient slot of the grad node."""
        return tuple(o for o in self.outputs if o.name not in self.no_grad_outputs)

    def arg(self, name: str) -> Arg | None:
        return next((a for a in self.args if a.name == name), None)

    def where(self, key: str) -> Location:
        """The location of one key of this entry (the entry's own line if unknown)."""
        return Location(self.location.file, self.key_lines.get(key, self.location.line))


# -- loading YAML with line numbers ------------------------------------------

class _LineLoader(yaml.SafeLoader):
    pass


class _Entry(dict):
    line: int
    key_lines: dict


def _construct_mapping(loader, node, deep=False):
    mapping = _Entry(loader.construct_mapping(node, deep=True))
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {k.value: k.start_mark.line + 1 for k, _ in node.value}
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_entries(path: Path) -> list:
    text = Path(path).read_text()
    data = yaml.load(text, Loader=_LineLoader)
    if data is None:
        return []
    if not isinstance(data, list):
        raise SpecError(Location(str(path), 1), "the file must be a YAML list of op entries")
    return data


# -- parsing the small languages inside values -------------------------------

_ARG_RE = re.compile(r"^\s*([A-Za-z]+(?:\[\])?)\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*(.+?))?\s*$")
_OUTPUT_RE = re.compile(r"^\s*(Tensor(?:\[\])?)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$")
_CALL_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$")
_MAP_RE = re.compile(r"^\s*\(\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)\s*\)\s*$")
_FORWARD_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*->\s*(.+)$")


def split_top_level(text: str) -> list:
    """Splits on commas not inside (), [] or {}."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    return [p.strip() for p in parts]


def parse_default(text: str, type_: str, where: Location):
    """A default value written in the YAML's C++-flavoured syntax, as a Python value."""
    t = text.strip()
    if t in ("true", "True"):
        return True
    if t in ("false", "False"):
        return False
    if t in ("None", "null", "DataType::UNDEFINED"):
        return None
    if t in ("{}", "[]"):
        return ()
    if t.startswith("DataType::"):
        return ("DataType", t.split("::", 1)[1].lower())
    if t in ("CPUPlace()", "Place()"):
        return ("Place", "cpu")
    if t.startswith('"') and t.endswith('"'):
        return t[1:-1]
    if (t.startswith("[") and t.endswith("]")) or (t.startswith("{") and t.endswith("}")):
        return tuple(parse_default(p, type_, where) for p in split_top_level(t[1:-1]))
    number = t[:-1] if t.endswith("f") and t[:-1].replace(".", "", 1).lstrip("-").isdigit() else t
    try:
        return int(number)
    except ValueError:
        pass
    try:
        return float(number)
    except ValueError:
        raise SpecError(where, f"cannot read default value {text!r} of type {type_}") from None


def parse_args(text, where: Location) -> tuple:
    if not isinstance(text, str) or not text.strip().startswith("(") or not text.strip().endswith(")"):
        raise SpecError(where, f"args must be a string like '(Tensor x, int axis = 0)', got {text!r}")
    args = []
    seen_attr = False
    for part in split_top_level(text.strip()[1:-1]):
        match = _ARG_RE.match(part)
        if not match:
            raise SpecError(where, f"cannot read argument {part!r}; expected 'Type name' or 'Type name = default'")
        type_text, name, default = match.groups()
        type_ = parse_type(type_text, where, name)
        if type_.is_tensor_like() and seen_attr:
            raise SpecError(where, f"tensor argument {name!r} comes after an attribute; tensors go first")
        seen_attr = seen_attr or not type_.is_tensor_like()
        if any(a.name == name for a in args):
            raise SpecError(where, f"argument {name!r} appears twice")
        value = NO_DEFAULT if default is None else parse_default(default, type_text, where)
        args.append(Arg(type_, name, value))
    return tuple(args)


def parse_outputs(text, where: Location) -> tuple:
    if not isinstance(text, str):
        raise SpecError(where, f"output must be a string like 'Tensor(out)', got {text!r}")
    outputs = []
    for part in split_top_level(text):
        match = _OUTPUT_RE.match(part)
        if not match:
            raise SpecError(where, f"cannot read output {part!r}; expected 'Tensor(name)' or 'Tensor[](name)' "
                                   f"(a list's length comes from the kernel, so no size is written)")
        type_, name = match.groups()
        outputs.append(Output(name, type_ == "Tensor[]"))
    return tuple(outputs)


def parse_call(text, where: Location, key: str) -> CallSpec:
    match = _CALL_RE.match(text) if isinstance(text, str) else None
    if not match:
        raise SpecError(where, f"{key} must look like 'fn(arg, ...)', got {text!r}")
    return CallSpec(match.group(1), tuple(split_top_level(match.group(2))))


def parse_mapping(text, where: Location, key: str) -> tuple:
    match = _MAP_RE.match(text) if isinstance(text, str) else None
    if not match:
        raise SpecError(where, f"{key} must look like '(x -> out)', got {text!r}")
    return match.groups()


def parse_name_list(value, where: Location, key: str) -> tuple:
    if isinstance(value, str):
        names = [n.strip() for n in value.split(",") if n.strip()]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        names = value
    else:
        raise SpecError(where, f"{key} must be a comma-separated string or a list of names, got {value!r}")
    return tuple(names)


def parse_flag_map(value, where: Location) -> tuple:
    """``{output: flag, ...}`` as ((output, flag), ...), in the YAML's order."""
    if not isinstance(value, dict) or not value or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise SpecError(where, f"returned_if must be a mapping of outputs to bool attributes, "
                               f"like {{indices : return_index}}, got {value!r}")
    return tuple(value.items())


def parse_forward(text, where: Location) -> ForwardSignature:
    match = _FORWARD_RE.match(text) if isinstance(text, str) else None
    if not match:
        raise SpecError(where, f"forward must look like 'op (Tensor x, ...) -> Tensor(out)', got {text!r}")
    name, args, outputs = match.groups()
    return ForwardSignature(name, parse_args(f"({args})", where), parse_outputs(outputs, where))


def _sub_mapping(entry, key: str, allowed: tuple, where: Location) -> dict:
    value = entry[key]
    if not isinstance(value, dict):
        raise SpecError(where, f"{key} must be a mapping with keys {', '.join(allowed)}, got {value!r}")
    extra = set(value) - set(allowed)
    if extra:
        raise SpecError(where, f"{key} has unknown key(s) {', '.join(sorted(extra))}; allowed: {', '.join(allowed)}")
    return value


_FORWARD_KEYS = ("op", "args", "output", "infer_meta", "kernel", "backward", "inplace", "view",
                 "scalar_tensor", "optional", "intermediate", "no_grad_outputs", "returned_if", "invoke",
                 "operator", "scalar_operator", "reflected_operator", "type_promotion", "complex_promotion", "doc")
_BACKWARD_KEYS = ("backward_op", "forward", "args", "output", "infer_meta", "kernel", "backward",
                  "composite", "bilinear", "no_need_buffer", "optional", "inplace", "pass_through", "doc")


def parse_entry(entry, file: str, is_backward: bool) -> OpSpec:
    name_key = "backward_op" if is_backward else "op"
    allowed = _BACKWARD_KEYS if is_backward else _FORWARD_KEYS
    if not isinstance(entry, dict) or not hasattr(entry, "line"):
        raise SpecError(Location(file, 0), f"each entry must be a mapping, got {entry!r}")
    loc = Location(file, entry.line)

    def at(key):
        return Location(file, entry.key_lines.get(key, entry.line))

    extra = [k for k in entry if k not in allowed]
    if extra:
        raise SpecError(at(extra[0]), f"unknown key {extra[0]!r} in {entry.get(name_key, '?')}; "
                                      f"allowed keys: {', '.join(allowed)}")
    for required in (name_key, "args", "output"):
        if required not in entry:
            raise SpecError(loc, f"entry {entry.get(name_key, '?')!r} is missing the key {required!r}")
    name = entry[name_key]
    if not isinstance(name, str) or not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise SpecError(at(name_key), f"op name must be a snake_case string, got {name!r}")
    args = parse_args(entry["args"], at("args"))
    outputs = parse_outputs(entry["output"], at("output"))

    infer_meta = kernel = None
    if "infer_meta" in entry:
        im = _sub_mapping(entry, "infer_meta", ("func", "param"), at("infer_meta"))
        if "func" not in im:
            raise SpecError(at("infer_meta"), "infer_meta needs func")
        params = parse_name_list(im.get("param", [a.name for a in args]), at("infer_meta"), "infer_meta.param")
        infer_meta = InferMetaSpec(im["func"], params)
    if "kernel" in entry:
        k = _sub_mapping(entry, "kernel", ("func", "param", "data_type", "backend"), at("kernel"))
        if "func" not in k:
            raise SpecError(at("kernel"), "kernel needs func")
        params = parse_name_list(k.get("param", [a.name for a in args]), at("kernel"), "kernel.param")
        kernel = KernelSpec(k["func"], params, k.get("data_type"), k.get("backend"))

    optional = parse_name_list(entry.get("optional", []), at("optional"), "optional")
    args = tuple(Arg(OptionalType(a.type) if a.name in optional else a.type, a.name, a.default)
                 for a in args)
    spec = OpSpec(
        name=name, args=args, outputs=outputs, location=loc, is_backward=is_backward,
        infer_meta=infer_meta, kernel=kernel,
        backward=_optional_str(entry, "backward", at),
        forward=parse_forward(entry["forward"], at("forward")) if "forward" in entry else None,
        inplace=parse_mapping(entry["inplace"], at("inplace"), "inplace") if "inplace" in entry else None,
        view=parse_mapping(entry["view"], at("view"), "view") if "view" in entry else None,
        scalar_tensor=(parse_mapping(entry["scalar_tensor"], at("scalar_tensor"), "scalar_tensor")
                       if "scalar_tensor" in entry else None),
        optional=optional,
        intermediate=parse_name_list(entry.get("intermediate", []), at("intermediate"), "intermediate"),
        no_grad_outputs=parse_name_list(entry.get("no_grad_outputs", []), at("no_grad_outputs"), "no_grad_outputs"),
        returned_if=parse_flag_map(entry["returned_if"], at("returned_if")) if "returned_if" in entry else (),
        no_need_buffer=parse_name_list(entry.get("no_need_buffer", []), at("no_need_buffer"), "no_need_buffer"),
        pass_through=parse_name_list(entry.get("pass_through", []), at("pass_through"), "pass_through"),
        invoke=parse_call(entry["invoke"], at("invoke"), "invoke") if "invoke" in entry else None,
        composite=parse_call(entry["composite"], at("composite"), "composite") if "composite" in entry else None,
        bilinear=_optional_str(entry, "bilinear", at),
        operator=_optional_str(entry, "operator", at),
        scalar_operator=(parse_call(entry["scalar_operator"], at("scalar_operator"), "scalar_operator")
                         if "scalar_operator" in entry else None),
        reflected_operator=_optional_str(entry, "reflected_operator", at),
        type_promotion=parse_name_list(entry.get("type_promotion", []), at("type_promotion"), "type_promotion"),
        complex_promotion=parse_name_list(entry.get("complex_promotion", []), at("complex_promotion"),
                                          "complex_promotion"),
        doc=_optional_str(entry, "doc", at) or "",
        key_lines=dict(entry.key_lines),
    )
    if is_backward and spec.forward is None:
        raise SpecError(loc, f"backward op {name!r} needs a forward: line")
    if spec.invoke is None and spec.kernel is None and spec.composite is None and spec.bilinear is None:
        raise SpecError(loc, f"op {name!r} needs a kernel (or invoke / composite / bilinear)")
    if spec.bilinear is not None and (spec.kernel or spec.composite or spec.backward):
        raise SpecError(at("bilinear"), f"op {name!r} is generated from the bilinear op "
                                        f"{spec.bilinear!r}, so it takes no kernel, composite or backward")
    if spec.kernel is not None and spec.infer_meta is None:
        raise SpecError(loc, f"op {name!r} has a kernel but no infer_meta")
    if spec.operator is not None and (
            not re.fullmatch(r"__[a-z]+__", spec.operator) or [a.name for a in args] != ["x", "y"]
            or not all(a.is_tensor and not a.is_tensor_list and not a.optional for a in spec.args)
            or spec.kernel is None or spec.composite is not None):
        raise SpecError(at("operator"), f"op {name!r}: operator {spec.operator!r} must be a Tensor operator "
                                        f"('__add__') of an op (x: Tensor, y: Tensor) with a kernel and no composite")
    if spec.operator is None and (spec.scalar_operator is not None or spec.reflected_operator is not None):
        key = "scalar_operator" if spec.scalar_operator is not None else "reflected_operator"
        raise SpecError(at(key), f"op {name!r}: {key} needs an operator")
    if spec.reflected_operator is not None and not re.fullmatch(r"__r[a-z]+__", spec.reflected_operator):
        raise SpecError(at("reflected_operator"), f"op {name!r}: reflected_operator must be a reflected Tensor "
                                                  f"operator ('__radd__'), got {spec.reflected_operator!r}")
    for key in ("type_promotion", "complex_promotion"):
        names = getattr(spec, key)
        tensors = [a for a in args if a.is_tensor]
        # complex_promotion also takes an op's one Tensor[] argument (stack: x)
        one_list = (key == "complex_promotion" and len(names) == 1 and len(tensors) == 1
                    and tensors[0].is_tensor_list and list(names) == [tensors[0].name])
        if names and not one_list and (
                list(names) != [a.name for a in tensors] or len(names) != 2
                or any(a.is_tensor_list or a.optional for a in spec.args)):
            raise SpecError(at(key), f"op {name!r}: {key} must name the op's two tensor arguments (x, y)"
                                     f"{' or its one Tensor[] argument' if key == 'complex_promotion' else ''}, "
                                     f"got {', '.join(names)!r}")
        if names and (spec.kernel is None or len(spec.outputs) != 1 or spec.outputs[0].is_list):
            raise SpecError(at(key), f"op {name!r}: {key} needs an op with a kernel and one Tensor output")
    if spec.type_promotion and spec.complex_promotion:
        raise SpecError(at("complex_promotion"), f"op {name!r}: type_promotion already promotes complex "
                                                 f"with real; give one of the two")
    if spec.invoke is not None and (spec.kernel or spec.infer_meta or spec.backward):
        raise SpecError(at("invoke"), f"op {name!r} uses invoke, so it takes no kernel, infer_meta or backward")
    return spec


def _optional_str(entry, key, at):
    if key not in entry:
        return None
    value = entry[key]
    if not isinstance(value, str):
        raise SpecError(at(key), f"{key} must be a string, got {value!r}")
    return value


def parse_file(path, is_backward: bool) -> list:
    names = set()
    specs = []
    for entry in load_entries(path):
        spec = parse_entry(entry, str(path), is_backward)
        if spec.name in names:
            raise SpecError(spec.location, f"op {spec.name!r} is defined twice")
        names.add(spec.name)
        specs.append(spec)
    return specs
