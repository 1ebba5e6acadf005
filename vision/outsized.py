"""A box far larger than the photo's tiles, lying behind them, is no tile: dropped before it is cut and read.

Issue 18: on riichi-table-leomiura 85 of the 99 false kept boxes lay away from every labelled tile: the spines of
books on a shelf behind the table, read as faces. The tiles of one photo are one set seen from one camera: further
away a tile looks smaller and lies higher in the frame. So a box whose long side is over `OUTSIZED_LONG_SIDE` times
the median of the photo's boxes and which lies behind them (its bottom edge above their median centre) is dropped.
The large tiles in front are kept: a hand photographed from the seat is larger than the many discards behind it.

Measured through the whole pipeline (`python benchmarks/evaluate.py --all`, recall / precision / end-to-end, the
rule off (`--keep-outsized-boxes`) → on at 1.4): riichi-table-leomiura .9172 / .8429 / .8172 → .9172 / .9349 /
.8172 (849 → 667 boxes); dev .8564 / .8559 / .8373 → .8564 / .8570 / .8373, its whole hands as before; dev
squeezed, hk-crops-justinchan, the built close-ups and the large tiles unchanged. On the composed table scenes of
`benchmarks/eval_hand_apart.py` (a hand row in front of up to 20 discards, some turned at any angle) every found
hand tile stays (785 of 2794 not found either way) and fewer discards are pulled into the hand (41 → 29 of 2035),
but five turned discards near the hand are lost (detection recall .5568 → .5558).

The bar, measured at 1.8 / 1.6 / 1.4: riichi's precision .8762 / .8985 / .9349, nothing else lower but those
discards (1.6: one). Without the "behind" condition 1.4 lost riichi's recall (−0.003) and the squeezed dev photos'
(−0.002), and a hand row in front of more discards than its tiles would be lost whole. Why not lower: a tile seen
standing is a third taller than one lying (`second_look.TILE_SHORT_OVER_LONG`), so a standing row behind lying
tiles may be up to 1.33x their size.

A box at the photo's edge is not measured (`at_the_edge`): the frame may cut a tile short, and a crop's cut
neighbours made two whole large tiles look 2.4x too large (the large-tile close-ups lost 4 of 845 tiles so). It can
still be dropped: the books reach the top of the frame (measured and dropped only inside, riichi's precision was
.847). A photo with fewer than `OUTSIZED_FROM` whole boxes has no median worth the name, and the pipeline does not
judge a photo its scale pass looked at: a close-up's few large tiles are not measured against their fragments.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from fanscan.vision.detect import DetectedTile, box_array

OUTSIZED_LONG_SIDE = 1.4  # a box whose long side is over this many times the photo's median is no tile of it
OUTSIZED_FROM = 5  # whole boxes a photo needs before their median long side says how large its tiles are
EDGE_MARGIN = 0.01  # a box within this share of the photo's side from its edge is cut by the frame, or may be


def at_the_edge(boxes: np.ndarray, shape: tuple[int, ...], margin: float = EDGE_MARGIN) -> np.ndarray:
    """A boolean per box (n x 4, x0 y0 x1 y1): it reaches the photo's edge (within `margin` of its width or
    height)."""
    height, width = shape[:2]
    dx, dy = margin * width, margin * height
    return (boxes[:, 0] <= dx) | (boxes[:, 1] <= dy) | (boxes[:, 2] >= width - dx) | (boxes[:, 3] >= height - dy)


def outsized(detections: Sequence[DetectedTile], shape: tuple[int, ...], factor: float = OUTSIZED_LONG_SIDE,
             at_least: int = OUTSIZED_FROM) -> np.ndarray:
    """A boolean per box of a photo of `shape`: its long side is over `factor` times the median of the photo's
    whole boxes, and it lies behind them (its bottom edge above their median centre). A box at the photo's edge is
    not measured: the frame may cut its tile short (the large-tile close-ups: a crop's cut neighbours made two whole
    tiles look 2.4x too large). Only what lies behind counts: further from the camera a tile looks smaller, so a
    large box there is no tile, while the large tiles in front (a hand before its discards) are the nearest.
    Never so with fewer than `at_least` whole boxes."""
    if not factor > 1:  # NaN fails too
        raise ValueError(f"outsized box bar {factor}: expected a ratio of long sides over 1")
    boxes = box_array(detections)
    whole = ~at_the_edge(boxes, shape)
    if whole.sum() < at_least:
        return np.zeros(len(boxes), bool)
    long_sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    middle = float(np.median((boxes[whole, 1] + boxes[whole, 3]) / 2))
    return (long_sides > factor * float(np.median(long_sides[whole]))) & (boxes[:, 3] < middle)


def without_outsized(detections: Sequence[DetectedTile], shape: tuple[int, ...], factor: float = OUTSIZED_LONG_SIDE,
                     at_least: int = OUTSIZED_FROM) -> list[DetectedTile]:
    """The boxes in their order less those `outsized` calls too large for the photo's tiles."""
    drop = outsized(detections, shape, factor, at_least)
    return [d for d, dropped in zip(detections, drop, strict=True) if not dropped]
