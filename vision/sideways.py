"""Sideways tiles (a claimed tile lying across its row): a second, local look at boxes that may lie sideways.

Why: in a row of upright tiles the proposal net puts a peak on a tile lying across the row, but gives it about the
box of its upright neighbours (measured on rows re-laid from development-split photos,
`benchmarks/eval_backs_sideways.py`: of the sideways tiles missed, most were covered by a detection with an
upright-shaped box at IoU 0.2-0.5). The row's context pulls the box's shape. Seen in a patch a little larger than
itself, without the rest of the row, the same net mostly gives the tile its turned box, and upright tiles keep their
upright box.

How: the candidates are upright-shaped boxes still wider for their height than the photo's median box by
`CANDIDATE_RELATIVE_ASPECT` (a sideways tile's box comes out wider than its neighbours'). Each is cut as a square
patch of `CONTEXT` x its long side around its centre, the patches are laid side by side in one mosaic (one forward
pass for all of them; the model takes one image at a time), and in each cell the peak nearest the centre gives the
local box. A local box wider than tall by `TURNED_ASPECT` replaces the upright one.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from fanscan.vision.letterbox import PAD_GREY

# The settings were chosen on the development split's re-laid rows (benchmarks/eval_backs_sideways.py, a grid over
# cell 64-128 and margin, context 1.4-2.5, turned aspect 1.1-1.25, threshold 0.1-0.2, candidate aspect 1.0-1.2, at
# most 4-9 candidates): the other tiles' and the backs' recall unchanged, then speed. 1.0 and 9 found 0.676 of the
# sideways tiles but looked at half the tiles of every photo (+55 % detection time); 1.2 and 4 find 0.657 and cost
# nothing on a photo without wide boxes.
# A box is a candidate when its width / height exceeds the photo's median box's by this factor (and it is upright).
CANDIDATE_RELATIVE_ASPECT = 1.2
# The local box replaces the upright one when it is this much wider than tall.
TURNED_ASPECT = 1.1
# Patch side: this many times the box's long side (a little of its neighbours is in view, the rest of the row not).
CONTEXT = 1.6
# Mosaic cell side in pixels (a multiple of the net's 32-px padding), and the patch's side in it (a tile ~60 px long).
# Patches fill their cells: a flat margin between them (cells of 128) found fewer sideways tiles on the dev split.
CELL = 96
PATCH = 96
# At most this many candidates a photo get the local look (a 2 x 2 mosaic, a quarter of a full view's pixels),
# those most wider than their neighbours first: a bound on the time it costs.
MAX_CANDIDATES = 4
# The peak read in a cell must lie within this share of the cell's side of the cell's centre.
CENTRE_REACH = 0.25
# Peaks in the mosaic count from this score: the candidate is a tile already; the look is for its shape.
LOCAL_THRESHOLD = 0.2


def candidates(boxes: np.ndarray) -> np.ndarray:
    """Indices of the boxes (x0, y0, x1, y1) worth a local look, most wider than the median first."""
    if len(boxes) == 0:
        return np.zeros(0, int)
    widths, heights = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    aspect = widths / np.maximum(heights, 1e-6)
    relative = aspect / max(float(np.median(aspect)), 1e-6)
    chosen = np.flatnonzero((relative > CANDIDATE_RELATIVE_ASPECT) & (widths < heights) & (heights >= 4))
    return chosen[np.argsort(-relative[chosen], kind="stable")][:MAX_CANDIDATES]


def build_mosaic(image_bgr: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The square patch around each box (side `CONTEXT` x its long side), each scaled into a `CELL` x `CELL` cell
    of one mosaic, row by row (`PATCH` px, centred in `CELL` px cells). Returns the mosaic and each patch's
    (x0, y0, side) in photo pixels. Only the patches' pixels are read (a 12-MP photo costs what a small one does)."""
    count = len(boxes)
    columns = math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    mosaic = np.full((rows * CELL, columns * CELL, 3), PAD_GREY, np.uint8)  # unused cells: flat, tile-free
    patches = np.zeros((count, 3), np.float32)
    h, w = image_bgr.shape[:2]
    margin = (CELL - PATCH) // 2
    for k, (x0, y0, x1, y1) in enumerate(boxes):
        side = CONTEXT * max(x1 - x0, y1 - y0)
        left, top = int(np.rint((x0 + x1) / 2 - side / 2)), int(np.rint((y0 + y1) / 2 - side / 2))
        size = max(1, int(np.rint(side)))
        # Cut the patch (edge pixels repeated where it leaves the photo), then shrink or enlarge it into its cell.
        region = image_bgr[max(0, top):min(h, top + size), max(0, left):min(w, left + size)]
        if region.size == 0:
            continue
        region = cv2.copyMakeBorder(region, max(0, -top), max(0, top + size - h), max(0, -left),
                                    max(0, left + size - w), cv2.BORDER_REPLICATE)
        flags = cv2.INTER_AREA if size > PATCH else cv2.INTER_LINEAR
        r, c = divmod(k, columns)
        at_y, at_x = r * CELL + margin, c * CELL + margin
        mosaic[at_y:at_y + PATCH, at_x:at_x + PATCH] = cv2.resize(region, (PATCH, PATCH), interpolation=flags)
        patches[k] = (left, top, size)
    return mosaic, patches


def local_boxes(found: np.ndarray, centres: np.ndarray, patches: np.ndarray) -> np.ndarray:
    """For each patch, the box (photo pixels) of the mosaic detection whose centre is nearest its cell's centre and
    within `CENTRE_REACH` of it; NaN where there is none. `found` and `centres` are in mosaic pixels."""
    out = np.full((len(patches), 4), np.nan, np.float32)
    if len(found) == 0:
        return out
    columns = math.ceil(math.sqrt(len(patches)))
    for k, (left, top, side) in enumerate(patches):
        r, c = divmod(k, columns)
        middle = np.array([(c + 0.5) * CELL, (r + 0.5) * CELL], np.float32)
        distance = np.abs(centres - middle).max(axis=1)
        nearest = int(np.argmin(distance))
        if distance[nearest] <= CENTRE_REACH * PATCH:
            margin = (CELL - PATCH) // 2
            in_patch = found[nearest] - np.array([c * CELL + margin, r * CELL + margin] * 2, np.float32)
            out[k] = in_patch * (side / PATCH) + np.array([left, top] * 2, np.float32)
    return out


def turned(local: np.ndarray) -> np.ndarray:
    """Which local boxes lie sideways: wider than tall by `TURNED_ASPECT` (NaN boxes never)."""
    widths, heights = local[:, 2] - local[:, 0], local[:, 3] - local[:, 1]
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(widths) > TURNED_ASPECT * np.nan_to_num(heights, nan=np.inf)
