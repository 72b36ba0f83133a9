"""The Jinja2 filters the templates use, all in one place."""


def suffix(value: str, text: str) -> str:
    """``"out" | suffix("_meta")`` -> ``"out_meta"``."""
    return f"{value}{text}"


FILTERS = {"suffix": suffix}
