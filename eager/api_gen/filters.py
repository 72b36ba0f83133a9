"""The Jinja2 filters the templates use, all in one place.

They turn plan data into Python source; plan.py itself writes no syntax.
"""
from .model import NO_DEFAULT


def suffix(value: str, text: str) -> str:
    """``"out" | suffix("_meta")`` -> ``"out_meta"``."""
    return f"{value}{text}"


def py_default(value) -> str:
    """A parsed YAML default as Python source: DataType::X -> DataType.X, CPUPlace() -> None
    (the place argument's converter treats None as the CPU)."""
    if value is NO_DEFAULT:
        raise ValueError("py_default: the argument has no default")
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "DataType":
        return f"DataType.{value[1].upper()}"
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "Place":
        return "None"
    return repr(value)


FILTERS = {"suffix": suffix, "py_default": py_default}
