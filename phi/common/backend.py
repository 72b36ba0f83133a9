"""Backend and DataLayout: two of the three parts of a kernel key."""
import enum


class Backend(enum.Enum):
    CPU = "cpu"
    GPU = "gpu"
    # A kernel registered for ALL_BACKEND is written once against ctx.xp and
    # serves every backend that has no kernel of its own.
    ALL_BACKEND = "all"

    def __str__(self) -> str:
        return self.name


class DataLayout(enum.Enum):
    ALL_LAYOUT = "all"
    NCHW = "NCHW"
    NHWC = "NHWC"

    def __str__(self) -> str:
        return self.name
