"""``python -m eager.api_gen``: regenerates the committed code from the YAML."""
import sys

from .model import SpecError
from .render import write_all


def main() -> int:
    try:
        written = write_all()
    except SpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("\n".join(f"wrote {path}" for path in written) or "generated code is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
