"""When a second look at a photo (the scale pass, the squeezed-photo search) may replace the first: only on evidence.

Issue 18: both passes, chosen on the development split, fired on another maker's ordinary close-ups and threw tiles
away. A second look now keeps its boxes only when they are more tiles, scored as well, and shaped as well as the
first look's (`better_look`); otherwise the first look stands. Measured on the first looks and second looks of dev,
the squeezed dev photos, both shared sets and built close-ups (`benchmarks/close_ups.py`): see `SHAPE_SLACK`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from fanscan.vision.detect import DetectedTile, box_sides

TILE_SHORT_OVER_LONG = 0.75  # a tile's short side over its long side
SCORE_SLACK = 0.95  # the second look's mean detection score may be this share of the first's


@dataclass(frozen=True)
class LookEvidence:
    """What one look at a photo found: how many boxes, their mean detection score, and how far their shape is from
    a tile's (median |log(short / long side / 0.75)|; infinite with no boxes)."""

    boxes: int
    mean_score: float
    shape_error: float

    @classmethod
    def of(cls, detections: Sequence[DetectedTile]) -> LookEvidence:
        if not detections:
            return cls(0, 0.0, float("inf"))
        sides = box_sides(detections)
        short_over_long = sides.min(axis=1) / sides.max(axis=1)
        error = float(np.median(np.abs(np.log(short_over_long / TILE_SHORT_OVER_LONG))))
        return cls(len(detections), float(np.mean([d.score for d in detections])), error)


PIECE_INSIDE = 0.7  # a first-look box lying this share inside a second-look box is a piece of that tile
# A piece this small against the box holding it is a face's dot or character taken for a tile: two whole tiles under
# one box are about half of it each, so they never pass for pieces.
SMALL_PIECE = 0.4


# A box at least this square (short over long side) may be one tile whose face was found in pieces, when at least
# `LINE_PIECES` pieces lie in one line across it: their centres spread across the line by at most `LINE_SPREAD` of
# the box (the rows of a nine's dots).
ONE_TILE_SHAPE = 0.75
LINE_PIECES = 3
LINE_SPREAD = 0.2


def pieces_of_one_tile(box: Sequence[float], pieces: np.ndarray) -> bool:
    """Whether `pieces` (N x 4 boxes) inside `box` are parts of one tile's face rather than tiles of a group: `box`
    is shaped like one tile (`ONE_TILE_SHAPE`) and at least `LINE_PIECES` pieces lie in one line across it. Whole
    tiles in one line make a box longer than one tile (two side by side or stacked: 0.67, three: 0.44); only a
    2 x 2 block is as square as a tile, and its tiles are not in one line."""
    width, height = box[2] - box[0], box[3] - box[1]
    if len(pieces) < LINE_PIECES or min(width, height) < ONE_TILE_SHAPE * max(width, height):
        return False
    centres = (pieces[:, :2] + pieces[:, 2:]) / 2
    spread = (centres.max(axis=0) - centres.min(axis=0)) / np.array([width, height])
    return float(spread.min()) <= LINE_SPREAD


def _inside_share(piece: DetectedTile, box: DetectedTile) -> float:
    x0, y0, x1, y1 = piece.box
    inside = max(0.0, min(x1, box.box[2]) - max(x0, box.box[0])) * max(0.0, min(y1, box.box[3]) - max(y0, box.box[1]))
    return inside / max((x1 - x0) * (y1 - y0), 1e-9)


def joined_pieces(first: Sequence[DetectedTile], second: Sequence[DetectedTile]) -> tuple[bool, bool]:
    """(whether every first-look box the second look does not keep lies mostly inside one of its boxes, so that no
    tile of the first look is lost; whether each of them is also a small piece of the box holding it)."""
    kept = {id(d) for d in second}
    gone = [d for d in first if id(d) not in kept]
    held: dict[int, list[DetectedTile]] = {}
    for piece in gone:
        holders = [i for i, b in enumerate(second) if _inside_share(piece, b) >= PIECE_INSIDE]
        if not holders:
            return False, False
        held.setdefault(holders[0], []).append(piece)
    # Small pieces: each small against the box holding it, or together the pieces of one tile's face.
    small = all(all(p.width * p.height <= SMALL_PIECE * second[i].width * second[i].height for p in pieces)
                or pieces_of_one_tile(second[i].box, np.array([p.box for p in pieces], np.float64))
                for i, pieces in held.items())
    return True, small and bool(gone)


def better_look(first: Sequence[DetectedTile], second: Sequence[DetectedTile], shape_slack: float) -> bool:
    """Whether the second look replaces the first: it found tiles where the first found none; or more boxes, with a
    mean score at least `SCORE_SLACK` of the first's and a shape error at most `shape_slack` above the first's; or
    no more boxes, scored as well, holding every first-look box they replace (`joined_pieces`: a large flat tile
    found in pieces becomes one box), when those are small pieces of them or the new boxes are better shaped."""
    before, after = LookEvidence.of(first), LookEvidence.of(second)
    if before.boxes == 0:
        return after.boxes > 0
    scored = after.mean_score >= SCORE_SLACK * before.mean_score
    if after.boxes > before.boxes:
        return scored and after.shape_error <= before.shape_error + shape_slack
    inside, small = joined_pieces(first, second)
    return after.boxes > 0 and scored and inside and (small or after.shape_error < before.shape_error)
