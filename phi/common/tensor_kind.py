"""TensorKind: how a tensor stores its values, the fourth part of a kernel key."""
import enum


class TensorKind(enum.Enum):
    """DENSE: every element in one array (DenseTensor). SELECTED_ROWS: some rows
    of a tall tensor (SelectedRows), as an embedding's sparse gradient has."""

    DENSE = "dense"
    SELECTED_ROWS = "selected_rows"

    def __str__(self) -> str:
        return self.value
