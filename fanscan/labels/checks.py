"""The checks a careful labeller makes before a box goes into a dataset, and the report they end in.

Every box that is dropped or changed gets one line in the report: unknown class (a face-down tile and "not a
tile" are said as such), zero size, outside the photo (clipped when mostly inside, dropped when mostly outside),
near-blank (nothing but felt or glare under the box), and duplicates (two boxes over one tile, same label or not).
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from fanscan.labels.classes import BACK, NONE, tile_for_label
from fanscan.labels.model import Box, LabelledPhoto
from fanscan.scoring.errors import FanscanError

# Boxes whose sides are shorter than this (pixels) have no tile in them.
MIN_SIDE_PX = 2.0
# A box sticking out of the photo by less than this (pixels) is rounding in some tool's export: clipped silently.
CLIP_SILENTLY_PX = 0.5
# A box with less than this part of its area inside the photo is dropped; with more, clipped to the photo.
MIN_INSIDE_FRACTION = 0.5
# Boxes overlapping this much (intersection over union) cover the same tile.
DUPLICATE_IOU = 0.9
# Grey-level standard deviation (0-255) under which a box shows nothing. Measured on every third train photo of
# Chinese Mahjong Detection v4 (7 495 boxes): 99.9 % of boxes are above 8.7; below 4.0 are four white dragons
# (blank-faced in some sets: kept, with a line) and one 7s box that shows no tile.
BLANK_STD = 4.0
BLANK_FACED = "P"  # the white dragon: blank-faced in many sets


@dataclass
class Report:
    """What the checks found: one line per dropped or changed box, and counts."""

    lines: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)

    def note(self, photo: str, number: int, label: str, what: str, action: str) -> None:
        self.lines.append(f"{photo}: box {number} ({label}): {what}: {action}")
        self.counts[action.split()[0].rstrip(",")] += 1

    def summary(self, what: str) -> str:
        read, kept = self.counts["read"], self.counts["kept"]
        parts = [f"{read} boxes read on {self.counts['photos']} photos", f"{kept} {what}"]
        for action in ("dropped", "clipped", "flagged", "skipped"):
            if self.counts[action]:
                parts.append(f"{self.counts[action]} {action}")
        return ", ".join(parts)

    def write(self, path: Path, title: str, what: str) -> None:
        text = f"{title}\n{self.summary(what)}\n" + "".join(f"{line}\n" for line in self.lines)
        Path(path).write_text(text, encoding="utf-8")

    def print_summary(self, what: str, report_path: Path | None) -> None:
        where = f" (every dropped or changed box: {report_path})" if report_path is not None else ""
        print(f"fanscan label: {self.summary(what)}{where}", file=sys.stderr)
        for line in self.lines[:10]:
            print(f"  {line}", file=sys.stderr)
        if len(self.lines) > 10:
            print(f"  ... {len(self.lines) - 10} more in the report", file=sys.stderr)


def check_photo(photo: LabelledPhoto, report: Report, pixels: np.ndarray | None = None,
                scale: float = 1.0, drop_unknown: bool = True) -> LabelledPhoto:
    """The photo with its boxes checked: labels turned into tile ids, bad boxes dropped or clipped, each with a
    line in `report`. `pixels` (BGR, the photo scaled by `scale`) lets the blank check look under the boxes.
    A label no table knows is dropped with a line, or with `drop_unknown` False an error (a person's labels: an
    unknown name is a labelling config that does not match, better fixed than lost)."""
    name = photo.name
    report.counts["photos"] += 1
    kept: list[tuple[int, Box]] = []
    for number, box in enumerate(photo.boxes, start=1):
        report.counts["read"] += 1
        checked = _check_box(box, number, photo, name, report, pixels, scale, drop_unknown)
        if checked is not None:
            kept.append((number, checked))
    boxes = _drop_duplicates(kept, name, report)
    report.counts["kept"] += len(boxes)
    return LabelledPhoto(photo.image, photo.width, photo.height, boxes, photo.source)


def _check_box(box: Box, number: int, photo: LabelledPhoto, name: str, report: Report,
               pixels: np.ndarray | None, scale: float, drop_unknown: bool) -> Box | None:
    if not _finite(box):
        report.note(name, number, box.label, "coordinates not finite numbers (NaN, infinite or beyond the "
                    "largest float once placed on the photo)", "dropped")
        return None
    tile = tile_for_label(box.label)
    if tile is None and not drop_unknown and box.label not in (BACK, NONE):
        raise FanscanError(f"{name}: box {number}: unknown class {box.label!r} (known: tile ids 1m..9m 1p..9p "
                           "1s..9s E S W N C F P a..h, their names, dataset names such as sc1; --drop-unknown "
                           "drops such boxes with a line in the report)")
    if tile is None:
        what = {BACK: "a face-down tile, not one of the 42 classes",
                NONE: "read as not a tile"}.get(box.label, f"unknown class {box.label!r}")
        report.note(name, number, box.label, what, "dropped")
        return None
    box = box.with_label(tile)
    if min(box.width, box.height) < MIN_SIDE_PX:
        report.note(name, number, tile, f"zero size ({box.width:.1f} x {box.height:.1f} px)", "dropped")
        return None
    box = _inside(box, number, photo, name, report)
    if box is None:
        return None
    if pixels is not None:
        spread = _grey_spread(box, pixels, scale)
        if spread is not None and spread < BLANK_STD:
            what = f"near-blank crop (grey-level spread {spread:.1f})"
            if tile == BLANK_FACED:
                report.note(name, number, tile, what, "flagged (kept: a white dragon may be blank; look at it)")
            else:
                report.note(name, number, tile, what, "dropped")
                return None
    return box


def _finite(box: Box) -> bool:
    """Whether the box and its corners are finite numbers: NaN compares false with everything, so a NaN box would
    pass every check after this one and be clipped to the whole photo."""
    values = (box.cx, box.cy, box.width, box.height, box.rotation)
    return all(math.isfinite(v) for v in values) and all(math.isfinite(v) for v in box.bounds())


def _inside(box: Box, number: int, photo: LabelledPhoto, name: str, report: Report) -> Box | None:
    x0, y0, x1, y1 = box.bounds()
    over = max(-x0, -y0, x1 - photo.width, y1 - photo.height)
    if over <= 0:
        return box
    cx0, cy0 = max(0.0, x0), max(0.0, y0)
    cx1, cy1 = min(float(photo.width), x1), min(float(photo.height), y1)
    inside = max(0.0, cx1 - cx0) * max(0.0, cy1 - cy0) / ((x1 - x0) * (y1 - y0))
    if inside < MIN_INSIDE_FRACTION:
        report.note(name, number, box.label, f"outside the photo ({inside:.0%} of it inside)", "dropped")
        return None
    clipped = Box.from_bounds(box.label, cx0, cy0, cx1, cy1, box.score)
    if over > CLIP_SILENTLY_PX or box.rotation:
        turned = f", turn of {box.rotation:.1f} degrees dropped" if box.rotation else ""
        report.note(name, number, box.label, f"{over:.1f} px outside the photo",
                    f"clipped to the photo{turned}")
    return clipped


def _grey_spread(box: Box, pixels: np.ndarray, scale: float) -> float | None:
    x0, y0, x1, y1 = (v * scale for v in box.bounds())
    height, width = pixels.shape[:2]
    x0, y0 = max(0, round(x0)), max(0, round(y0))
    x1, y1 = min(width, round(x1)), min(height, round(y1))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    grey = cv2.cvtColor(pixels[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    return float(grey.std())


def overlap(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (turned boxes as polygons)."""
    if a.rotation == 0.0 and b.rotation == 0.0:
        ax0, ay0, ax1, ay1 = a.bounds()
        bx0, by0, bx1, by1 = b.bounds()
        inter = max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))
    else:
        inter, _ = cv2.intersectConvexConvex(a.corners().astype(np.float32), b.corners().astype(np.float32))
    union = a.width * a.height + b.width * b.height - inter
    return float(inter / union) if union > 0 else 0.0


def _drop_duplicates(kept: list[tuple[int, Box]], name: str, report: Report) -> list[Box]:
    """Of boxes over one tile, the one with the higher score (else the first) stays. Each box, in score order, is
    dropped for the first box chosen before it that it overlaps by `DUPLICATE_IOU`; only chosen boxes whose
    bounds meet its own can (a grid finds those), so 8 000 boxes cost thousands of comparisons, not millions."""
    order = sorted(kept, key=lambda item: -(item[1].score if item[1].score is not None else 0.0))
    chosen: list[tuple[int, Box]] = []
    grid = _BoundsGrid([box for _, box in kept])
    for number, box in order:
        twin, iou = None, 0.0
        area = box.width * box.height
        for index in grid.meeting(box):  # in the order they were chosen: the first twin, as pairwise would find
            other = chosen[index][1]
            larger = max(area, other.width * other.height)
            # IoU is at most the smaller area over the larger (the intersection is at most the one, the union at
            # least the other); the margin covers the float32 polygon intersection of turned boxes.
            if larger <= 0 or min(area, other.width * other.height) / larger < DUPLICATE_IOU * 0.99:
                continue
            iou = overlap(box, other)
            if iou >= DUPLICATE_IOU:
                twin = chosen[index]
                break
        if twin is None:
            grid.add(box, len(chosen))
            chosen.append((number, box))
            continue
        if twin[1].label == box.label:
            what = f"duplicate of box {twin[0]} (IoU {iou:.2f})"
        else:
            what = (f"on the same tile as box {twin[0]} labelled {twin[1].label} (IoU {iou:.2f}): "
                    "two labels for one tile")
        report.note(name, number, box.label, what, f"dropped, box {twin[0]} kept")
    return [box for _, box in sorted(chosen, key=lambda item: item[0])]


class _BoundsGrid:
    """Boxes filed under every grid cell their axis-aligned bounds touch. Two boxes that overlap at all have
    bounds that meet, so they share a cell: a box's candidates are the boxes of its cells. The cell is the median
    box's longer side, and at least 1/256 of the boxes' whole extent (a box covers at most 257 x 257 cells)."""

    def __init__(self, boxes: list[Box]) -> None:
        bounds = [box.bounds() for box in boxes]
        sides = sorted(max(x1 - x0, y1 - y0) for x0, y0, x1, y1 in bounds) or [1.0]
        extent = max((max(x1, y1) - min(x0, y0) for x0, y0, x1, y1 in bounds), default=1.0)
        self.cell = max(sides[len(sides) // 2], extent / 256, 1e-9)
        self.cells: dict[tuple[int, int], list[int]] = {}

    def _keys(self, box: Box) -> list[tuple[int, int]]:
        x0, y0, x1, y1 = (int(v // self.cell) for v in box.bounds())
        return [(i, j) for i in range(x0, x1 + 1) for j in range(y0, y1 + 1)]

    def add(self, box: Box, index: int) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(index)

    def meeting(self, box: Box) -> list[int]:
        """Indices of the filed boxes sharing a cell with `box`, in the order they were added."""
        return sorted({index for key in self._keys(box) for index in self.cells.get(key, ())})
