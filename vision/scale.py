"""Tiles large in the frame, found at inference by a second look at the photo shrunk: the scale pass.

The detector learnt from table photos, where a tile is a few percent of the frame; on a close-up (1-9 tiles, a tile
a quarter to two thirds of the frame) it misses tiles or splits a large flat one into several boxes (issue 9). The
pass shows the net the photo shrunk `ZOOM_OUT` times, centred in a canvas of the photo's own size filled with the
colour of its border (a white sheet stays white), so the tiles come out at a size it knows; its boxes are mapped back
and merged with the first pass's:

1. boxes inside boxes: at least `second_look.LINE_PIECES` boxes lying mostly (`INSIDE` of their area) in one line
   inside a box shaped like one tile are that tile's face found in pieces (the rows of a nine's dots: built
   close-ups, precision 0.711 -> 0.755, recall 0.840 -> 0.846; dev and both shared sets unchanged), and they go
   (`second_look.pieces_of_one_tile`); then a box lying mostly inside another box at least `INNER_AREA_RATIO`
   times larger is nested in it. The container goes when its nested boxes together cover `GROUP_COVER` of it
   (tiles side by side taken for one), or when another box lies across its edge (at least `STRADDLED` of it under
   the container, not nested: the shrunk view joining neighbours of a dense grid); otherwise its nested boxes are
   pieces of its tile (a large flat tile split, a face's character taken for a tile), and they go;
2. non-maximum suppression over what is left of both passes at `MERGE_IOU` (a tile's box from each pass is one
   tile).

Its boxes are kept only when they are better than the first pass's (`vision.second_look.better_look`: more boxes,
scored as well, shaped no worse), so that an ordinary close-up of a stranger's tiles never loses a tile to it.

When: the first pass found nothing, or at most `FEW_BOXES` boxes that are weak (scores summing under
the detector's `weak_evidence`) or nested (one mostly inside another: a split tile). A photo of a hand or a
table shows more boxes, or small ones, and is left as it was, so the pass costs only where it fires (one detection
at the net's own size, without the detector's closer look, which magnifies: the opposite of what is needed here).

Chosen on the development split (`python benchmarks/eval_large_tiles.py`, close-ups built from dev photos; see its
docstring and README "The recognition models"): zooming out 2x beat 1.5x and 3x, a canvas of the border colour beat
the letterbox grey, and the inner-box rule raised precision without costing recall; the rules that leave a group's
tiles alone, the weak-evidence condition and `MERGE_IOU` 0.4 come from the dev photos of 8-9 tiles
(`bamboo_family_*`), where earlier settings lost up to 8 of their tiles.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from fanscan.vision.aspect import SQUEEZED_ASPECT
from fanscan.vision.detect import (
    DEFAULT_WEAK_EVIDENCE,
    DetectedTile,
    box_array,
    calibrate_boxes,
    little_evidence,
    long_over_short,
    make_tile,
    nms,
)
from fanscan.vision.second_look import LINE_PIECES, SCORE_SLACK, LookEvidence, better_look, pieces_of_one_tile

ZOOM_OUT = 2.0  # the photo is shown at half its size (tiles of 15-70 % of the frame become 8-35 %)
FEW_BOXES = 9  # a close-up shows 1-9 tiles; more boxes than this are a hand or a table
LARGE_SHARE = 0.12  # median box long side over the photo's long side from which boxes count as large
INSIDE = 0.7  # share of a box's area inside another for it to be nested in it
INNER_AREA_RATIO = 2.0  # a nested box this many times smaller than its container is a fragment of it
# The shrunk view's boxes, mapped back, come out too tall on close-ups (dev close-ups: median height 1.21 x the
# label, width 1.07 x; the detector's own size calibration, 0.95 x 1.1, was chosen on table photos): their height
# is scaled about the centre by this (0.87 and 0.9 measured alike; the rounder, milder one kept).
ZOOMED_HEIGHT_SCALE = 0.9
# A box this long against its width is one tile's shape (3:4 is 1.33, seen at an angle a little more or less); two
# tiles side by side are 1.5 the other way (a long side of two widths against one height: 1.5 : 1.33), which this
# also takes in, but their box holds two boxes that are tiles, not slices.
ONE_TILE_SHAPE = (1.15, 1.6)
GROUP_COVER = 0.5  # nested boxes covering this share of their container are tiles of a group, not pieces of a tile
# Boxes of the two passes overlapping more than this are one tile (0.3 kept 0.6 % more precision on the built
# close-ups, but let a shrunk-view box across a dev grid suppress three well-placed first-pass tiles).
MERGE_IOU = 0.4
STRADDLED = 0.25  # a box with this share of its area (but under INSIDE) under a container lies across its edge
# The merged boxes replace the first pass's only when they are more, as well scored and no worse shaped
# (`second_look.better_look` with no shape slack): on built close-ups (benchmarks/close_ups.py) that kept 25 of the
# pass's 29 tiles gained and none of its losses (the pass always kept: -4 tiles there, -3 on riichi-table-leomiura).
# A slack of 0.2 (`evaluate.py --all`, 2026-12-02) reads the large tiles at recall 0.886 instead of 0.830 (their true
# boxes are themselves a median 0.2 from a 3:4 tile: seen at an angle), but keeps the shrunk view's boxes on a
# bookshelf behind a riichi table (+6 false, -2 tiles) and nets nothing on the other makers' sets; dropping shrunk-view
# boxes over 2.5:1 (the books) also drops a tall close-up tile, and letting a first-look box outscore the box it is
# nested in adds fragments on hk-crops (+7 false). Measured there, not shipped: the gain is the familiar style's.
SHAPE_SLACK = 0.0


def inside_shares(boxes: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
    """[i, j]: the share of box i's area that lies inside box j of `others` (of `boxes` itself when None, with 0 on
    the diagonal)."""
    within = boxes if others is None else others
    ix = np.clip(np.minimum(boxes[:, None, 2], within[None, :, 2]) - np.maximum(boxes[:, None, 0], within[None, :, 0]),
                 0, None)
    iy = np.clip(np.minimum(boxes[:, None, 3], within[None, :, 3]) - np.maximum(boxes[:, None, 1], within[None, :, 1]),
                 0, None)
    area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
    shares = ix * iy / area[:, None]
    if others is None:
        np.fill_diagonal(shares, 0.0)
    return shares


def _large(detections: Sequence[DetectedTile], shape: tuple[int, ...]) -> bool:
    if not detections:
        return False
    boxes = box_array(detections)
    long_sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    return float(np.median(long_sides)) >= LARGE_SHARE * max(shape[:2])


def needs_zoom_out(detections: Sequence[DetectedTile], shape: tuple[int, ...],
                   weak_evidence: float = DEFAULT_WEAK_EVIDENCE) -> bool:
    """Whether the first pass may have missed a close-up: nothing found, or few boxes that are nested or weak
    (scores summing under `weak_evidence`, the detector's bar: the same under which the squeezed-photo search
    starts). Weak boxes need not be large: a large tile's dots or characters come out as small boxes (built
    close-ups: recall 0.816 -> 0.840, precision 0.694 -> 0.717 when small weak boxes fire the pass too; the shared
    sets unchanged).
    What the pass finds is kept only when it is better (`second_look.better_look`)."""
    if not detections:
        return True
    if len(detections) > FEW_BOXES:
        return False
    if little_evidence(detections, weak_evidence):
        return True
    return bool((inside_shares(box_array(detections)) >= INSIDE).any())


@dataclass(frozen=True)
class ScalePass:
    """The detections after the scale pass; whether it fired; how many boxes the shrunk view found."""

    detections: list[DetectedTile] = field(default_factory=list)
    fired: bool = False
    shrunk_view_found: int = 0
    kept: bool = True  # False: the pass ran but its boxes were no better than the first pass's (`better_look`)
    large: bool = True  # the boxes are large in the photo (median long side at least LARGE_SHARE of its long side)
    read_by_close_up_detector: bool = False  # the photo was read again by the close-up detector (`read_close_up`)
    close_up_kept: bool = True  # False: the close-up detector read it, but the first net's reading found more tiles

    @property
    def close_up(self) -> bool:
        """Whether the photo showed itself a close-up rather than a squeezed photo: the shrunk view found tiles, and
        the boxes are shaped like tiles (median long/short side within `aspect.SQUEEZED_ASPECT`). The pipeline then
        does not start the squeezed-photo search for the little evidence a few tiles give (it would shrink them
        along one axis and split them). A squeezed photo's shrunk view finds nothing (dev: all 3 squeezed photos
        whose first-pass boxes looked tile-shaped). The boxes must also be large in the photo: a squeezed strip of
        tiles whose few boxes look tile-shaped is no close-up (a dev photo squeezed 6x lost its 31 tiles so)."""
        if not self.fired or not self.large or not self.shrunk_view_found or not self.detections:
            return False
        return float(np.median(long_over_short(self.detections))) <= SQUEEZED_ASPECT


def shrunk_into_canvas(image: np.ndarray, factor: float = ZOOM_OUT) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The photo shrunk `factor` times, centred in a canvas of its own size filled with the median colour of its
    border; and where the shrunk photo lies in the canvas (x0, y0, x1, y1).

    Other fills, measured with `evaluate.py --all` (session 12; recall / precision / end-to-end; dev, dev squeezed and
    riichi-table-leomiura within 0.005 of the shipped for all): the border colour (shipped) hk-crops .781 / .620 / .699,
    close-ups .849 / .890 / .795; grey 114: hk .863 / .708 / .740, close-ups .777 / .837 / .708; the border colour
    halved: hk .849 / .697 / .753, close-ups .786 / .841 / .711; both canvases, keeping the one whose boxes score
    higher: hk .836 / .693 / .753, close-ups .783 / .841 / .729. An hk crop is one tile filling the frame: its border is
    the tile's own rim, and the shrunk tile vanishes into a canvas of that colour; a tile on a sheet wants the sheet's
    colour around it, and the detector scores its boxes on a dark canvas higher either way."""
    height, width = image.shape[:2]
    small_w, small_h = max(1, round(width / factor)), max(1, round(height / factor))
    small = cv2.resize(image, (small_w, small_h), interpolation=cv2.INTER_AREA)
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    canvas = np.empty_like(image)
    canvas[:] = np.median(border, axis=0).astype(np.uint8)
    x0, y0 = (width - small_w) // 2, (height - small_h) // 2
    canvas[y0:y0 + small_h, x0:x0 + small_w] = small
    return canvas, (x0, y0, x0 + small_w, y0 + small_h)


def _areas(boxes: np.ndarray) -> np.ndarray:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def covered_share(inside: np.ndarray, inner_areas: np.ndarray, container_area: float) -> float:
    """The share of a container that boxes lying in it cover (`inside`: the share of each inner box's area inside
    it; where they overlap each other, counted twice)."""
    return float((inside * inner_areas).sum()) / max(float(container_area), 1e-9)


def holds_pieces(holders: Sequence[DetectedTile], boxes: Sequence[DetectedTile]) -> bool:
    """Whether some box of `holders` holds at least two of `boxes` (each lying `INSIDE` it) that cover under
    `GROUP_COVER` of it: pieces of one tile (a face's dots or characters), not tiles side by side (the test `merge`
    makes of nested boxes)."""
    if not holders or not boxes:
        return False
    outer, inner = box_array(holders), box_array(boxes)
    shares = inside_shares(inner, outer)  # [i, j]: the share of inner box i inside holder j
    for j in range(len(outer)):
        within = shares[:, j] >= INSIDE
        if within.sum() >= 2 and covered_share(shares[within, j], _areas(inner[within]),
                                               _areas(outer[j:j + 1])[0]) < GROUP_COVER:
            return True
    return False


def splits_a_tile(first: Sequence[DetectedTile], second: Sequence[DetectedTile]) -> bool:
    """Whether `second` cuts one of `first`'s tiles into pieces: a box of `first` shaped like an upright or sideways
    tile (long/short side within `ONE_TILE_SHAPE`) holds at least two boxes of `second`, each lying `INSIDE` it.
    Unlike `holds_pieces`, pieces covering the whole box count: the squeezed-photo search, trying a factor on a large
    tile, slices it across into boxes that fill it (an artwork close-up: one tile read as five)."""
    if not first or not second:
        return False
    aspect = long_over_short(first)
    one_tile = (aspect >= ONE_TILE_SHAPE[0]) & (aspect <= ONE_TILE_SHAPE[1])
    held = (inside_shares(box_array(second), box_array(first)) >= INSIDE).sum(axis=0)
    return bool((one_tile & (held >= 2)).any())


def found_more_tiles(one: Sequence[DetectedTile], other: Sequence[DetectedTile]) -> bool:
    """Whether reading `one` found more tiles than reading `other`: more boxes, scored as well (a mean score at
    least `second_look.SCORE_SLACK` of the other's, as `better_look` asks), and not the pieces of one of `other`'s
    tiles (`holds_pieces`).

    The slack matters here more than anywhere: the two readings come from two nets, whose scores are not on one
    scale. Two tiles the close-up net fused into one box scored 0.411 (first net, two boxes) against 0.418 (close-up
    net, one). With the slack instead of "no lower" (`evaluate.py --all`, session 14): close-ups recall 0.886 ->
    0.904, precision 0.891 -> 0.898, end-to-end 0.822 -> 0.843; large tiles 0.870 -> 0.872, 0.878 -> 0.876, 0.814
    -> 0.815; dev, dev squeezed and both other makers' sets as they were (dev precision -0.0002). A wider slack lets
    the first net's pieces of a tile through (replayed readings of the built close-ups, precision 0.900 at 0.95,
    0.886 at 0.9, 0.851 at 0.8)."""
    before, after = LookEvidence.of(other), LookEvidence.of(one)
    return (after.boxes > before.boxes and after.mean_score >= SCORE_SLACK * before.mean_score
            and not holds_pieces(other, one))


def merge(first: Sequence[DetectedTile], zoomed: Sequence[DetectedTile]) -> list[DetectedTile]:
    """Both passes' detections as one set, best score first (see the module docstring: boxes inside boxes are
    settled first, so that suppression does not let a group's box outscore its tiles)."""
    pooled = [*first, *zoomed]
    if not pooled:
        return []
    boxes = box_array(pooled)
    area = _areas(boxes)
    shares = inside_shares(boxes)
    inside = shares >= INSIDE  # [i, j]: i lies mostly inside j
    nested = inside & (area[None, :] >= INNER_AREA_RATIO * area[:, None])  # [i, j]: i nested in j
    dropped = np.zeros(len(boxes), bool)
    for container in np.flatnonzero(inside.sum(axis=0) >= LINE_PIECES):
        # One tile's face found in pieces (the rows of a nine's dots, some as large as half the tile): they go.
        within = inside[:, container]
        if pieces_of_one_tile(boxes[container], boxes[within]):
            dropped |= within
    for container in np.flatnonzero(nested.any(axis=0) & ~dropped):
        inner = nested[:, container] & ~dropped
        cover = covered_share(shares[inner, container], area[inner], area[container])
        # Boxes only partly under the container: it lies across tiles, not around one.
        straddled = (shares[:, container] >= STRADDLED) & ~inner & ~dropped
        if (inner.sum() >= 2 and cover >= GROUP_COVER) or straddled.any():
            dropped[container] = True
        else:
            dropped |= inner
    survivors = np.flatnonzero(~dropped)
    kept = nms(boxes[survivors], np.array([pooled[i].score for i in survivors], np.float32), MERGE_IOU)
    return [pooled[survivors[k]] for k in kept]


def zoom_out(image: np.ndarray, detect: Callable[[np.ndarray], list[DetectedTile]], first: list[DetectedTile],
             weak_evidence: float = DEFAULT_WEAK_EVIDENCE) -> ScalePass:
    """The detections with the scale pass (the first pass's as they are when it does not fire). `detect` is the
    detector's call on a photo (the pipeline passes it without the closer look), `weak_evidence` its bar
    (`DetectorInfo.weak_evidence`)."""
    if not needs_zoom_out(first, image.shape, weak_evidence):
        return ScalePass(first)
    canvas, (x0, y0, x1, y1) = shrunk_into_canvas(image)
    height, width = image.shape[:2]
    factor_x, factor_y = width / (x1 - x0), height / (y1 - y0)
    limits = np.array([width, height, width, height], np.float64)
    found = detect(canvas)
    boxes = (box_array(found) - [x0, y0, x0, y0]) * [factor_x, factor_y, factor_x, factor_y]
    boxes = np.clip(calibrate_boxes(boxes, 1.0, ZOOMED_HEIGHT_SCALE), 0, limits)
    zoomed = [make_tile(box, tile.score) for box, tile in zip(boxes, found, strict=True)
              if box[2] - box[0] > 1 and box[3] - box[1] > 1]
    merged = merge(first, zoomed)
    kept = better_look(first, merged, SHAPE_SLACK)
    detections = merged if kept else first
    return ScalePass(detections, True, len(zoomed), kept, _large(detections, image.shape))


# A first look that calls for the scale pass (`needs_zoom_out`) with fewer boxes than this is a close-up of one or a
# few tiles, and the close-up detector (models/tile_detector_close_up.onnx: the shipped net fine-tuned on one to four
# large tiles on a sheet) reads the photo again, its own first look and scale pass. Chosen on dev, dev squeezed,
# both other makers' sets and the built close-ups (`benchmarks/evaluate.py --all`, session 11): routing every photo
# the pass fires on (at most `FEW_BOXES` boxes) cost riichi-table-leomiura 3 of its 580 tiles (its frames of 8-9
# tiles at the edge of the table), fewer than 5 lost the precision on hk-crops (0.620 -> 0.543); fewer than 8 left
# dev, dev squeezed and riichi as they were. A photo of a hand or a table never reaches it.
# Tried for hk-crops (one tile filling the frame, its pips taken for tiles): a tile-shaped close-up with no box over
# half the frame, whose whole frame the classifier reads as one tile with probability >= 0.8, made that one box: hk
# .781 / .620 -> .959 / .921 (recall / precision), but close-ups .849 / .890 -> .765 / .830 and large tiles
# .846 / .874 -> .769 / .830 (at >= 0.95: hk .863 / .759, close-ups .813 / .868): the classifier reads two to four
# large tiles, or a tile with its sheet around it, as one tile as confidently (session 12).
CLOSE_UP_FEWER_THAN = 8
# The close-up detector's look at the photo averages its outputs over the photo as it is, mirrored and upside down
# (`detect.flip_averaged`; session 38, `python benchmarks/evaluate.py --all`, by the session-9 rule, recall /
# precision / end-to-end, one view -> three): hk-crops-justinchan .849 / .705 / .740 -> .918 / .779 / .794, the
# close-ups .910 / .904 / .846 -> .931 / .914 / .876, the large tiles .886 / .897 / .828 -> .895 / .908 / .830,
# riichi-table-leomiura and dev as they were or up; the artwork close-ups .984 / .944 -> .979 / .916 (one tile
# fewer, five boxes more; end-to-end as it was). Mirrored views alone (two) read hk-crops .904 / .733 but the large
# tiles' end-to-end 0.826 and riichi one tile fewer; the two views' maximum instead of their mean, or views of the
# shrunk looks instead of the photo's, read hk-crops worse (.753 / .579, .808 / .634). It costs two more passes
# of the close-up net, only on the photos it reads.
FLIP_AVERAGE = True


def read_close_up(image: np.ndarray, detector: Any, first: list[DetectedTile],
                  close_up: Callable[[], Any] | None = None) -> ScalePass:
    """The scale pass over `detector`'s first look `first` (`zoom_out`). With `close_up` (a call that gives the
    close-up detector, opened on first use), a first look of a close-up (`needs_zoom_out`, fewer than
    `CLOSE_UP_FEWER_THAN` boxes) is read again: the close-up detector looks at the photo, then its own scale pass
    runs, and `read_by_close_up_detector` says so. Its reading replaces the first net's (with its scale pass) unless
    the first net's found more tiles (`found_more_tiles`, `close_up_kept` False): a close-up of a run of small tiles
    that the close-up net, which learnt large ones, takes for one box (built close-ups, session 13: recall 0.849 ->
    0.874, precision 0.890 -> 0.892; large tiles 0.846 -> 0.859, 0.874 -> 0.872; hk-crops precision 0.620 ->
    0.626; dev and riichi-table-leomiura unchanged, dev squeezed recall 0.795 -> 0.792; "scored as well" with
    `second_look.SCORE_SLACK`, session 14: close-ups 0.886 -> 0.904). Keeping it only when it
    found more by `second_look.better_look` lost tiles the close-up net found (close-ups recall 0.865, precision
    0.808), as did the two readings merged (0.852 / 0.835)."""
    weak_evidence = detector.info.weak_evidence
    own_pass = functools.partial(zoom_out, image, functools.partial(detector.detect, refine=False), first,
                                 weak_evidence)
    if close_up is None or len(first) >= CLOSE_UP_FEWER_THAN or not needs_zoom_out(first, image.shape,
                                                                                       weak_evidence):
        return own_pass()
    reader = close_up()
    # Its look at the photo itself is the mean of three views (`detect.flip_averaged`, FLIP_AVERAGE); its look at
    # the photo shrunk is one view.
    close_first = reader.detect(image, refine=False, flip_average=FLIP_AVERAGE)
    read = zoom_out(image, functools.partial(reader.detect, refine=False), close_first, reader.info.weak_evidence)
    own = own_pass()
    if found_more_tiles(own.detections, read.detections):
        return replace(own, read_by_close_up_detector=True, close_up_kept=False)
    return replace(read, read_by_close_up_detector=True)
