"""Tile geometry: which tiles stand in one row, and where a row breaks into groups at gaps.

Works on quadrilaterals alone (no tile ids): the row direction is estimated from the tiles themselves, so a tilted
camera is fine; positions are then measured along the row (u) and across it (n).

Gap thresholds are relative to the tile width and to the row's own spacing: in real photos tiles of one hand are often
placed with small spaces between them (up to a quarter of a tile width in the bundled samples), while a tile set apart
on purpose (the winning tile, a meld) is at least about half a tile width away.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from fanscan.scoring.disjoint_sets import DisjointSets

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]

# A gap splits a row when it exceeds the row's typical gap (median, counted as at most TYPICAL_GAP_CAP) by
# GAP_ABOVE_TYPICAL tile widths, and is at least MIN_SPLIT_GAP: so the threshold lies between 0.3 and 0.6 tile widths.
GAP_ABOVE_TYPICAL = 0.3
TYPICAL_GAP_CAP = 0.3
MIN_SPLIT_GAP = 0.3
# Tiles whose long side is at least this many times their short side show which way they lie.
DISTINCT_SIDES = 1.15
# Two tiles share a row when their extents across the row overlap by this share of the smaller extent.
ROW_OVERLAP = 0.5


@dataclass(frozen=True)
class TilePlacement:
    """One tile in row coordinates: u along the row (left to right), n across it (top to bottom), in pixels."""

    index: int
    u0: float
    u1: float
    n0: float
    n1: float

    @property
    def u_center(self) -> float:
        return (self.u0 + self.u1) / 2


@dataclass(frozen=True)
class Row:
    """Tiles of one row, split into groups at gaps; `gaps` holds the gap before each group but the first,
    in tile widths."""

    groups: tuple[tuple[int, ...], ...]
    gaps: tuple[float, ...]

    @property
    def tiles(self) -> tuple[int, ...]:
        return tuple(i for group in self.groups for i in group)


@dataclass(frozen=True)
class Layout:
    """Rows top to bottom; `angle_deg` is the row direction (0 = horizontal); `tile_width` and `tile_height`
    (pixels) are the median short and long sides of the tiles; `across[i]` says whether tile i lies across its row
    (its long side along the row: a claimed tile turned sideways), or None when tiles are too square to tell."""

    rows: tuple[Row, ...]
    angle_deg: float
    tile_width: float
    tile_height: float = 0.0
    across: tuple[bool, ...] | None = None


def quad_center(quad: Sequence[Point]) -> Point:
    return (sum(p[0] for p in quad) / len(quad), sum(p[1] for p in quad) / len(quad))


def row_direction(centers: Sequence[Point]) -> float:
    """The row direction in radians, from each tile's nearest neighbour: in a row of tiles the nearest neighbour is
    the next tile along the row (a tile is narrower than it is tall). Directions steeper than 45° are ignored (those
    neighbours sit in the row above or below)."""
    angles = []
    for i, (x, y) in enumerate(centers):
        best, best_d = None, math.inf
        for j, (x2, y2) in enumerate(centers):
            d = (x2 - x) ** 2 + (y2 - y) ** 2
            if j != i and d < best_d:
                best, best_d = (x2 - x, y2 - y), d
        if best is None:
            continue
        dx, dy = best
        if dx < 0:
            dx, dy = -dx, -dy
        if abs(dy) <= abs(dx):
            angles.append(math.atan2(dy, dx))
    return statistics.median(angles) if angles else 0.0


def place_tiles(quads: Sequence[Sequence[Point]], angle: float) -> list[TilePlacement]:
    """Each quad's extent along (u) and across (n) a row running at `angle` radians."""
    cos_a, sin_a = math.cos(angle), math.sin(angle)
    placements = []
    for index, quad in enumerate(quads):
        us = [x * cos_a + y * sin_a for x, y in quad]
        ns = [-x * sin_a + y * cos_a for x, y in quad]
        placements.append(TilePlacement(index, min(us), max(us), min(ns), max(ns)))
    return placements


def _same_row(a: TilePlacement, b: TilePlacement) -> bool:
    overlap = min(a.n1, b.n1) - max(a.n0, b.n0)
    return overlap >= ROW_OVERLAP * min(a.n1 - a.n0, b.n1 - b.n0)


def _cluster_rows(placements: list[TilePlacement]) -> list[list[TilePlacement]]:
    """Connected components of the 'overlaps across the row' relation (union-find; a hand has few tiles)."""
    groups = DisjointSets(len(placements))
    for i in range(len(placements)):
        for j in range(i + 1, len(placements)):
            if _same_row(placements[i], placements[j]):
                groups.union(i, j)
    clusters: dict[int, list[TilePlacement]] = {}
    for i, placement in enumerate(placements):
        clusters.setdefault(groups.find(i), []).append(placement)
    rows = [sorted(c, key=lambda p: p.u_center) for c in clusters.values()]
    rows.sort(key=lambda r: statistics.median((p.n0 + p.n1) / 2 for p in r))
    return rows


def _split_at_gaps(row: list[TilePlacement], tile_width: float) -> Row:
    gaps = [(b.u0 - a.u1) / tile_width for a, b in itertools.pairwise(row)]
    typical = min(TYPICAL_GAP_CAP, statistics.median(gaps)) if gaps else 0.0
    threshold = max(MIN_SPLIT_GAP, typical + GAP_ABOVE_TYPICAL)
    groups: list[list[int]] = [[row[0].index]]
    group_gaps: list[float] = []
    for placement, gap in zip(row[1:], gaps, strict=True):
        if gap > threshold:
            groups.append([])
            group_gaps.append(gap)
        groups[-1].append(placement.index)
    return Row(tuple(tuple(g) for g in groups), tuple(group_gaps))


def find_rows(quads: Sequence[Sequence[Point]]) -> Layout:
    """Rows (top to bottom) and groups (left to right) of tiles given as quadrilaterals in image coordinates."""
    if not quads:
        return Layout((), 0.0, 0.0)
    angle = row_direction([quad_center(q) for q in quads])
    placements = place_tiles(quads, angle)
    # The short side of a tile's extent is its width whether it stands upright or lies sideways.
    tile_width = statistics.median(min(p.u1 - p.u0, p.n1 - p.n0) for p in placements) or 1.0
    tile_height = statistics.median(max(p.u1 - p.u0, p.n1 - p.n0) for p in placements) or 1.0
    across = None
    if tile_height >= DISTINCT_SIDES * tile_width:
        middle = (tile_width + tile_height) / 2
        across = tuple(p.u1 - p.u0 > middle and p.n1 - p.n0 < middle for p in placements)
    rows = tuple(_split_at_gaps(row, tile_width) for row in _cluster_rows(placements))
    return Layout(rows, math.degrees(angle), tile_width, tile_height, across)
