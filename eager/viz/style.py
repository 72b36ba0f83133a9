"""One palette for every picture: each kind of box has one fill, border and shape.

The legend under each picture is drawn from these same entries, so a colour
can never mean two things.
"""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Look:
    legend: str  # what the legend calls it
    fill: str
    border: str
    shape: str = "box"
    style: str = "rounded,filled"
    font: str = "#1F2933"
    peripheries: int = 1


FONT = "Helvetica"
FONT_SIZE = "11"
SMALL = "9"
MUTED = "#52606D"
EDGE = "#8896A5"

OP = Look("grad op", "#DCE8F7", "#4A78B0")
VIEW = Look("view op", "#EEF4FB", "#4A78B0", style="rounded,filled,dotted")
PARAM = Look("parameter", "#DDF1DD", "#3F8F46")
LEAF = Look("leaf tensor", "#F1F5EC", "#7FA37F")
OUTPUT = Look("output", "#FFF1C9", "#C99400", peripheries=2)
SAVED = Look("saved for backward", "#EFE5F7", "#8E6BB0")
FOLDED = Look("folded scope", "#E9EDF2", "#5B6B7D", shape="box3d", style="filled")
NONFINITE = Look("NaN/Inf grad", "#FBD9D5", "#C62828", font="#8B1A1A")
ZERO = Look("all-zero grad", "#E4E4E4", "#9E9E9E", font="#616161")

# Clusters (name scopes) get lighter tints the deeper they nest.
CLUSTER_FILLS = ("#F5F8FC", "#EDF2F8", "#E5ECF4", "#DDE6F0")
CLUSTER_BORDER = "#A9B8CA"
CLUSTER_FONT = "#34495E"


def cluster_fill(depth: int) -> str:
    return CLUSTER_FILLS[min(depth, len(CLUSTER_FILLS) - 1)]
