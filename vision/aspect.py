"""Photos squeezed along one axis, undone at inference: dataset exports and some apps squeeze a strip of tiles or a
screenshot into a square, so its tiles come out 3-8 times longer than wide and the detector, which learnt tile-shaped
boxes, finds few of them.

The search runs when the first pass finds little (its detection scores sum to less than the detector's evidence bar,
`DetectorInfo.weak_evidence`), when its boxes are mostly long and thin the same way (median long/short side over
`SQUEEZED_ASPECT`, where a real tile is 1.2-1.5 even at a slant), or when the photo is longer than a camera frames
(`NATURAL_ASPECT`: it was cut or squeezed; a better-trained detector can find tile-shaped pieces in a squeezed photo
with scores over the bar). The photo is then shrunk along one axis (the boxes' long axis when they show one, else
the photo's long side when it is longer than a camera frames, else both in turn) by each factor of `FACTORS` and
detected again; the try with the most tile-shaped evidence (the sum of the scores of boxes whose long/short side is
within `TILE_SHAPED`) wins if it has `MIN_GAIN` times the first pass's and is a better look
(`vision.second_look.better_look`: more boxes, scored as well, shaped about as well). An ordinary photo of a hand
(14 tiles found, scores summing to about 6) does not start it, so it costs a median there (0.09 ms); the factors are
tried on a copy at most `SEARCH_SIDE` long, which is cheap to detect.

The classifier's crops are cut where the tiles have their shape back (with an earlier setting of this search,
end-to-end 0.405 on the squeezed development photos against 0.381 when cut from the squeezed photo with the crop's
own de-stretch, `CropSpec.max_aspect`), but not from the shrunk photo the detector looked at: from the photo with its
squeezed side stretched back instead (`restored_for_crops`), which keeps the pixels the shrink averaged away along the
other side (see `RESTORED_MAX_SIDE`). `stretched_back` then maps the detections to the photo's own pixels.

Chosen on the development split (`python benchmarks/evaluate.py --data ../shared/data/chinese-mahjong-v4/train
--split dev [--squeeze]`, the shipped models): on its 40 photos with published tight labels, each squeezed 3-8x along
one axis, recall 0.089 -> 0.749 and end-to-end 0.035 -> 0.411; on the 234 dev photos as they are, recall
0.856 -> 0.854, precision 0.855 -> 0.850, whole hands unchanged (49 of 141). An evidence bar of 6 reached 0.806 on the
squeezed photos but started the search on 16 % of the ordinary ones (precision 0.844); 4 starts it on 3 %.
Searching every photo longer than a camera frames (2026-12-02, `python benchmarks/evaluate.py --all`): the squeezed
dev photos 0.746 -> 0.792 recall, 0.428 -> 0.480 end-to-end; dev, both other-maker sets and the close-ups unchanged
(none is that long). A photo cropped to its hand row is that long and is searched too: 15 such crops of train-folder
photos read the same with and without it, at a median 86 ms against 22 ms (the search's tries), which is its cost.
On such a photo the winner may be shaped worse than the first look by more (`LONG_PHOTO_SHAPE_SLACK`, 2026-12-04:
the squeezed dev photos' recall 0.792 -> 0.823, end-to-end 0.480 -> 0.515), with less gain (`LONG_PHOTO_MIN_GAIN`:
0.823 -> 0.837, 0.515 -> 0.528).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from fanscan.vision.detect import (
    DEFAULT_WEAK_EVIDENCE,
    DetectedTile,
    box_sides,
    little_evidence,
    long_over_short,
    scaled_tiles,
)
from fanscan.vision.load import WORKING_MAX_SIDE
from fanscan.vision.second_look import better_look

SQUEEZED_ASPECT = 3.0  # median long/short side of the first pass's boxes above which the photo looks squeezed
FACTORS = (2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)  # shrink factors tried along the boxes' long axis
TILE_SHAPED = (1.0, 3.0)  # long/short side of a box that may be a tile (upright, sideways, slanted, a little squeezed)
MIN_BOXES = 3  # fewer boxes than this say nothing about the photo's shape
MIN_GAIN = 1.5  # a shrunk photo must show this many times the evidence of the first pass to replace it
SEARCH_SIDE = 640  # the factors are tried on a copy this long at most
MIN_SIDE = 32  # no shrinking below this many pixels
# A camera's frame is at most this long against its width (21:9 is 2.33); a longer photo was cut or squeezed.
NATURAL_ASPECT = 2.4
CAMERA_MIN_ASPECT = 1.2  # and at least this long (4:3 is 1.33; 5:4, 1.25): a square is an export's frame
# The winner replaces the first pass only when `second_look.better_look` says so, its boxes' shape allowed this much
# worse than the first pass's (a squeezed photo's few first boxes are often pieces that look tile-shaped): 0.2 kept
# 519 of the search's 522 tiles gained on the squeezed dev photos (0: 413) and turned riichi-table-leomiura's
# -42 tiles (its frames, squeezed 1.5x, were shrunk 8x into squares) into +3.
SHAPE_SLACK = 0.2
# The same allowance on a photo longer than a camera frames, which was cut or squeezed: a camera's tiles seen from
# above at a slant are far from a tile's shape (the labels of dev photos hand_012 / hand_023 / hand_024 lie 0.41 /
# 0.36 / 0.64 from it), and squeezed, the first look found pieces closer to it, so the shrink that gave the photo its
# shape back lost to them. Measured (`python benchmarks/evaluate.py --all`), 0.2 / 0.35 / 0.5 / 0.8 / 1.5: the
# squeezed dev photos' recall 0.792 / 0.801 / 0.823 / 0.823 / 0.823 (end-to-end 0.480 -> 0.515 at 0.5, precision
# 0.833 -> 0.858, whole hands 0 -> 2 of 40); every other set unchanged (none is that long). 118 camera photos cropped
# to their labelled tiles and longer than 2.4:1 (12 dev, 8 riichi-table-leomiura, 78 of the train side, 20 samples:
# a check of session 22, in issue 18's note) read the same at 0.2 and 0.5.
LONG_PHOTO_SHAPE_SLACK = 0.5
# And it may win with less gain in evidence: squeezed, the first look's pieces carry scores of their own (dev photo
# 385505934: 5.34, the right shrink 7.87, under 1.5x). With the slack above (`evaluate.py --all --sets "dev
# squeezed"`), 1.5 / 1.3 / 1.15: the squeezed dev photos' recall 0.823 / 0.837 / 0.837, end-to-end 0.515 / 0.528 /
# 0.528; the 118 long crops the same.
LONG_PHOTO_MIN_GAIN = 1.3
# The crops after a shrink are cut from the photo with its squeezed side stretched back, up to this long side, not
# from the shrunk photo: they keep the photo's pixels along the side that was not squeezed. Measured 2026-12-05
# (`python benchmarks/evaluate.py --all`): the squeezed dev photos' end-to-end 0.528 -> 0.589 (recall 0.837 and
# precision 0.867 as before: detection still runs on the shrunk photo; detecting on the stretched photo instead read
# 0.819 / 0.840 / 0.565); dev end-to-end 0.837 -> 0.838; riichi-table-leomiura, hk-crops-justinchan, the close-ups
# and the large tiles unchanged (none is searched into a shrink). A photo the search leaves alone costs nothing.
RESTORED_MAX_SIDE = WORKING_MAX_SIDE  # the photo as the pipeline works at it, no larger (2048 when measured)


@dataclass(frozen=True)
class AspectFix:
    """How the photo was shrunk before detection: working pixels / `(fx, fy)` = corrected pixels."""

    fx: float = 1.0
    fy: float = 1.0

    @property
    def changed(self) -> bool:
        return (self.fx, self.fy) != (1.0, 1.0)


def squeezed_axis(detections: Sequence[DetectedTile]) -> str | None:
    """'y' when the boxes are mostly tall and thin (the photo was squeezed across), 'x' when mostly flat and wide,
    None when they look like tiles."""
    if len(detections) < MIN_BOXES:
        return None
    sides = box_sides(detections)
    tall = sides[:, 1] / sides[:, 0]
    if float(np.median(tall)) > SQUEEZED_ASPECT:
        return "y"
    if float(np.median(1.0 / tall)) > SQUEEZED_ASPECT:
        return "x"
    return None


def tile_evidence(detections: Sequence[DetectedTile]) -> float:
    """Sum of the scores of the boxes shaped like a tile."""
    if not detections:
        return 0.0
    aspect = long_over_short(detections)
    shaped = (aspect >= TILE_SHAPED[0]) & (aspect <= TILE_SHAPED[1])
    return float(sum(d.score for d, ok in zip(detections, shaped, strict=True) if ok))


def natural_aspect(shape: tuple[int, ...]) -> bool:
    """Whether a photo of this shape could be a camera's own frame (long side at most NATURAL_ASPECT x the short)."""
    height, width = shape[:2]
    return max(height, width) <= NATURAL_ASPECT * max(1, min(height, width))


def camera_frame(shape: tuple[int, ...]) -> bool:
    """Whether a photo of this shape looks like a camera's own frame (4:3, 3:2, 16:9 ...): natural (`natural_aspect`)
    and at least `CAMERA_MIN_ASPECT` long. A square is left out: that is how dataset exports frame their photos
    (chinese-mahjong-v4's 640 x 640; riichi-table-leomiura's wide frames squeezed into squares), and those are the
    photos that come squeezed."""
    height, width = shape[:2]
    return natural_aspect(shape) and max(height, width) >= CAMERA_MIN_ASPECT * max(1, min(height, width))


def stretched_back(tiles: Sequence[DetectedTile], fix: AspectFix) -> list[DetectedTile]:
    """Detections of the shrunk photo in the pixels of the photo before shrinking (orientation kept: it was judged
    where the tiles have their shape)."""
    return scaled_tiles(tiles, fix.fx, fix.fy) if fix.changed else list(tiles)


def _shrink(image: np.ndarray, fix: AspectFix, scale: float = 1.0) -> np.ndarray | None:
    height, width = image.shape[:2]
    size = (round(width * scale / fix.fx), round(height * scale / fix.fy))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA) if min(size) >= MIN_SIDE else None


def _axes_to_try(shape: tuple[int, ...]) -> tuple[str, ...]:
    """Along which axes to shrink a photo whose boxes show no squeeze: a photo longer than a camera frames was
    squeezed across its long side if at all, so shrinking that side gives the frame back; any other, both."""
    if natural_aspect(shape):
        return ("x", "y")
    height, width = shape[:2]
    return ("y",) if height > width else ("x",)


def unsqueeze(
    image: np.ndarray, detect: Callable[[np.ndarray], list[DetectedTile]], first: list[DetectedTile],
    search_when_weak: bool = True, weak_evidence: float = DEFAULT_WEAK_EVIDENCE,
) -> tuple[np.ndarray, AspectFix, list[DetectedTile]]:
    """The photo as best shrunk (itself when no shrinking helps), how it was shrunk, and its detections in it.

    `search_when_weak` False: only boxes that look squeezed start the search, not little evidence (a close-up of a
    few large tiles, `vision.scale`, has little evidence and is not squeezed: shrinking it splits its tiles);
    `weak_evidence`: the detector's bar (scores summing under it are little evidence: `DetectorInfo.weak_evidence`).
    The factors are tried on a copy at most SEARCH_SIDE pixels long (the net looks at 384 px anyway), and only the
    winner is detected again at full size, so that a large photo costs little more than a small one."""
    axis = squeezed_axis(first)
    weak = search_when_weak and little_evidence(first, weak_evidence)
    if axis is None and not weak and natural_aspect(image.shape):
        return image, AspectFix(), first
    scale = min(1.0, SEARCH_SIDE / max(image.shape[:2]))
    small = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    long_photo = not natural_aspect(image.shape)
    gain = LONG_PHOTO_MIN_GAIN if long_photo else MIN_GAIN
    best_evidence, best_fix, best_found = tile_evidence(first) * gain, AspectFix(), first
    slack = LONG_PHOTO_SHAPE_SLACK if long_photo else SHAPE_SLACK
    for along in (axis,) if axis else _axes_to_try(image.shape):
        for factor in FACTORS:
            fix = AspectFix(factor, 1.0) if along == "x" else AspectFix(1.0, factor)
            shrunk = _shrink(small, fix)
            if shrunk is None:
                break
            found = detect(shrunk)
            evidence = tile_evidence(found)
            if evidence > best_evidence and better_look(first, found, slack):
                best_evidence, best_fix, best_found = evidence, fix, found
    if not best_fix.changed:
        return image, best_fix, first
    shrunk = _shrink(image, best_fix)
    return shrunk, best_fix, best_found if scale == 1.0 else detect(shrunk)


def restoring_fix(shape: tuple[int, ...], shrink: AspectFix, max_side: int = RESTORED_MAX_SIDE) -> AspectFix:
    """The search's winning shrink (tiles get their shape back when one side is shrunk) as a stretch of the
    squeezed side instead, as far as `max_side` allows: the same shape, with the pixels the photo has along its
    other side kept (see `RESTORED_MAX_SIDE`). Never smaller than the shrink itself."""
    height, width = shape[:2]
    factor = max(shrink.fx, shrink.fy)
    shrunk_long = max(width / shrink.fx, height / shrink.fy)
    grow = min(factor, max(1.0, max_side / max(shrunk_long, 1.0)))
    return AspectFix(shrink.fx / grow, shrink.fy / grow)


def restored_photo(image: np.ndarray, fix: AspectFix) -> np.ndarray:
    """The photo resized by `fix` (working pixels / fix = restored pixels): a side shrunk is averaged (INTER_AREA),
    then a side stretched is interpolated (INTER_LINEAR), so that neither aliases."""
    height, width = image.shape[:2]
    target = (max(1, round(width / fix.fx)), max(1, round(height / fix.fy)))
    first = (min(width, target[0]), min(height, target[1]))
    if first != (width, height):
        image = cv2.resize(image, first, interpolation=cv2.INTER_AREA)
    if first != target:
        image = cv2.resize(image, target, interpolation=cv2.INTER_LINEAR)
    return image


def restored_for_crops(
    image: np.ndarray, shrink: AspectFix, tiles: Sequence[DetectedTile], max_side: int = RESTORED_MAX_SIDE,
) -> tuple[np.ndarray, list[DetectedTile]]:
    """The photo to cut the classifier's crops from after the search shrank it by `shrink`, and the shrunk photo's
    detections in its pixels: the squeezed side stretched back (`restoring_fix`), so that a crop keeps the pixels
    the photo has along its other side where the shrunk photo averaged them away."""
    if not shrink.changed:
        return image, list(tiles)
    restore = restoring_fix(image.shape, shrink, max_side)
    return restored_photo(image, restore), scaled_tiles(tiles, shrink.fx / restore.fx, shrink.fy / restore.fy)
