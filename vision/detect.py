"""Tile proposals: every tile in a photo as a quadrilateral in the photo's own coordinates.

One interface: `detect(image_bgr, model=None) -> list[DetectedTile]`. OpenCV around a small learned single-class
proposal net (CenterNet-style, `models/tile_detector.onnx`, see its model card), run with onnxruntime:

1. letterbox: the photo is resized (aspect kept) so its long side is the model's input size, and padded on the
   right / bottom to a multiple of the net's largest stride (a 4:3 photo runs at 384 x 288, not 384 x 384);
2. the net gives a centre heatmap and left / top / right / bottom distances on the stride-4 grid;
3. peaks: cells that are the maximum of their 3 x 3 neighbourhood and above the score threshold;
4. boxes from the distances at each peak, non-maximum suppression, mapped back through the letterbox scale;
   then each box is scaled about its centre by the model's size calibration (`calibrate_boxes`: the net's boxes
   are systematically too large, its centres are right), and neighbouring boxes that still overlap side by side
   are split at the midpoint of their centres (tiles touching in a row: see `partition_overlaps`);
5. a closer look when the full view shows almost no tiles or only small ones: the region holding the detections (the
   whole photo when there are none) is run again at up to 3 x the input size (tiles under ~12 px at the input
   are where recall falls off), and both passes go through the suppression together.

Limits: boxes are axis-aligned (the quad is the box's corners; a tile turned ~45 degrees gets its enclosing box),
the smallest tile found at the full view is ~8 px tall at the input (2 % of the photo's long side), about 0.7 %
with the closer look (at 1152 px), and the largest about half the view (extreme close-ups are outside training;
the pipeline looks at a close-up again shrunk: `vision.scale`).
Orientation 'sideways' means the box is wider than tall (a claimed tile lying across its row); whether a tile is
upside down or face down is the classifier's call.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision import sideways
from fanscan.vision.letterbox import letterbox, normalised_blob
from fanscan.vision.onnx_model import call_threads, json_floats, open_model

from fanscan import models

DEFAULT_MODEL = models.model_path(models.DETECTOR)
CLOSE_UP_MODEL = models.model_path(models.CLOSE_UP_DETECTOR)
# A box wider than tall by this factor is a tile lying sideways (tiles are ~0.75 as wide as tall).
SIDEWAYS_ASPECT = 1.0
# Refine when the median tile is shorter than this at the input and the photo has the pixels to zoom in.
REFINE_BELOW_PX = 18.0
REFINE_MIN_ZOOM = 1.5
# A hand shows 13+ tiles: so few at the full view suggests tiles too small to see there (or no tiles at all).
REFINE_FEWER_THAN = 5
REFINE_MAX_FACTOR = 3  # the closer look runs at up to 3 x 384 = 1152 px on the long side
# Neighbours count as side by side when the offset across the row is under this share of the offset along it.
PARTITION_ALIGNMENT = 0.3
# Two boxes that overlap along the row by this share of the narrower one's width, lie in one row (their heights
# overlap by `SPLIT_SAME_ROW` of the shorter) and together make a box no wider than tall are one tile found twice
# (a large flat tile, a white dragon's two bars: `merge_split_tiles`); neighbours in a row overlap far less.
SPLIT_OVERLAP = 0.35
SPLIT_SAME_ROW = 0.7
SPLIT_SPACING = 0.6  # a split tile's two peaks are closer than this share of the photo's tile spacing
# The pair's union must be this wide against its height at least: thin tiles of a squeezed photo stay apart.
SPLIT_UNION_MIN_ASPECT = 0.5
SPACING_FROM = 4  # boxes needed to measure the spacing from the peaks
# ONNX metadata keys of the box-size calibration: factors applied to each box's width / height about its centre.
BOX_SCALE_KEYS = ("box_scale_x", "box_scale_y")
REQUIRED_KEYS = ("input_size", "normalisation_mean", "normalisation_std", "output_stride")


@dataclass(frozen=True, eq=False)
class DetectedTile:
    """One proposed tile. `quad` (4 x 2 float32) in original image pixels, clockwise from top-left;
    `box` (x0, y0, x1, y1); `score` 0..1; `orientation` 'upright' | 'sideways'."""

    quad: np.ndarray
    box: tuple[float, float, float, float]
    score: float
    orientation: str

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    def to_dict(self) -> dict:
        return {
            "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in self.quad],
            "box": [round(float(v), 2) for v in self.box],
            "score": round(float(self.score), 4),
            "orientation": self.orientation,
        }


def box_array(detections: Sequence[DetectedTile]) -> np.ndarray:
    """The tiles' boxes (x0, y0, x1, y1) as an n x 4 float64 array (0 x 4 for none)."""
    return np.array([d.box for d in detections], np.float64).reshape(-1, 4)


def box_sides(detections: Sequence[DetectedTile]) -> np.ndarray:
    """(N, 2): each tile's box width and height, floored at 1e-6 (a degenerate box divides by no 0)."""
    return np.array([[d.width, d.height] for d in detections], np.float64).reshape(-1, 2).clip(min=1e-6)


def long_over_short(detections: Sequence[DetectedTile]) -> np.ndarray:
    """Each tile's box, its long side over its short side."""
    sides = box_sides(detections)
    return sides.max(axis=1) / sides.min(axis=1)


def scaled_tiles(tiles: Sequence[DetectedTile], fx: float, fy: float | None = None) -> list[DetectedTile]:
    """The tiles in pixels `fx` (and `fy`, else `fx`) times larger along x (and y); orientation and score kept."""
    fy = fx if fy is None else fy
    factors = np.array([fx, fy], np.float32)
    return [DetectedTile(np.asarray(tile.quad, np.float32) * factors,
                         (tile.box[0] * fx, tile.box[1] * fy, tile.box[2] * fx, tile.box[3] * fy),
                         tile.score, tile.orientation) for tile in tiles]


# The evidence bar of a detector whose metadata names none (the detector of 2026-11-29, for which it was chosen:
# `vision.aspect`). On an ordinary photo of a hand its scores sum to about 6; under 4 on 3 % of the dev photos.
DEFAULT_WEAK_EVIDENCE = 4.0


def little_evidence(detections: Sequence[DetectedTile], weak_evidence: float = DEFAULT_WEAK_EVIDENCE) -> bool:
    """Whether a look found little: its detection scores sum to less than the detector's evidence bar
    (`DetectorInfo.weak_evidence`), under which the scale pass and the squeezed-photo search may start."""
    return sum(d.score for d in detections) < weak_evidence


@dataclass(frozen=True)
class DetectorInfo:
    """What the detector's ONNX metadata says about its input and outputs."""

    input_size: int
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    channel_order: str
    stride: int
    pad_multiple: int
    score_threshold: float
    nms_iou: float
    # Box-size calibration (see `calibrate_boxes`); 1.0 = the net's boxes as they come.
    box_scale_x: float = 1.0
    box_scale_y: float = 1.0
    # Whether overlapping neighbours are split (`partition_overlaps`): a model trained on loose boxes needs it,
    # one trained on tight boxes does not (metadata `partition_overlaps`, "true" when absent: the older model).
    partition: bool = True
    # Two peaks on one tile (a framed white dragon's two bars can raise a second one): a detection whose centre lies
    # in the central `centre_suppression` part of a better-scoring box is dropped (`suppress_inner`); 0 = off.
    # Touching neighbours are a whole tile apart, outside that part. Metadata `centre_suppression`.
    centre_suppression: float = 0.0
    # The first look's scores summing under this say it found little: the scale pass and the squeezed-photo search
    # may start (`vision.scale`, `vision.aspect`). A sum of scores is in the net's own score scale, so the bar comes
    # with the net (metadata `weak_evidence`; DEFAULT_WEAK_EVIDENCE when absent).
    weak_evidence: float = DEFAULT_WEAK_EVIDENCE


class TileDetector:
    """The proposal model in an onnxruntime session; `detect(image_bgr)` gives the tiles.

    `box_scale` (sx, sy) sets the box-size calibration explicitly (for choosing it, or to switch it off with
    (1, 1)); left None, it comes from the model's metadata (`box_scale_x`, `box_scale_y`), else 1.0.
    `one_call_at_a_time`: calls from several threads run one after another (`onnx_model.OneCallAtATime`).
    """

    def __init__(self, model_path: str | Path | None = None, threads: int | None = None,
                 box_scale: tuple[float, float] | None = None, one_call_at_a_time: bool = False) -> None:
        model = open_model(Path(model_path) if model_path is not None else DEFAULT_MODEL, "detector",
                           threads or call_threads(), one_call_at_a_time)
        self.path, self.session = model.path, model.session
        self.info = model.read_info("tile detector", REQUIRED_KEYS, _parse_info)
        if box_scale is not None:
            sx, sy = (_check_box_scale(f"box_scale[{i}]", v) for i, v in enumerate(box_scale))
            self.info = replace(self.info, box_scale_x=sx, box_scale_y=sy)
        self.input_name = self.session.get_inputs()[0].name
        # A local look at upright boxes that may lie sideways (`vision.sideways`); False: the net's boxes only.
        self.sideways_check = True
        # One tile found as two overlapping halves becomes one box (`merge_split_tiles`); False only to measure it.
        self.merge_splits = True

    def run(self, image_bgr: np.ndarray, size: int | None = None, flip_average: bool = False
            ) -> tuple[np.ndarray, np.ndarray, float]:
        """Letterboxed forward pass: (heatmap (H, W), distances (4, H, W) in input pixels, scale input/original).
        `flip_average`: the mean of the net's outputs over the blob as it is, mirrored and upside down
        (`flip_averaged`), at three times the cost."""
        blob, scale = input_blob(image_bgr, size or self.info.input_size, self.info)
        heat, distances = flip_averaged(self._forward, blob) if flip_average else self._forward(blob)
        return heat, distances, scale

    def _forward(self, blob: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        heat, distances = self.session.run(None, {self.input_name: blob})
        return heat[0, 0], distances[0]

    def detect(self, image_bgr: np.ndarray, score_threshold: float | None = None, refine: bool = True,
               partition: bool | None = None, merge_splits: bool | None = None, flip_average: bool = False
               ) -> list[DetectedTile]:
        """`merge_splits` None: as `self.merge_splits` says; `flip_average`: the full view's pass as `run` says."""
        boxes, scores, centres = self.proposals(image_bgr, score_threshold, refine, flip_average)
        tiles = self.finish(boxes, scores, centres, image_bgr.shape[:2], partition, merge_splits)
        return self.recheck_sideways(image_bgr, tiles) if self.sideways_check else tiles

    def recheck_sideways(self, image_bgr: np.ndarray, tiles: list[DetectedTile]) -> list[DetectedTile]:
        """The tiles, with each upright box that a local look shows lying sideways replaced by its turned box
        (`vision.sideways`: the candidates' patches in one mosaic, one forward pass)."""
        boxes = np.array([t.box for t in tiles], np.float32).reshape(-1, 4)
        chosen = sideways.candidates(boxes)
        if len(chosen) == 0:
            return tiles
        mosaic, patches = sideways.build_mosaic(image_bgr, boxes[chosen])
        heat, distances, scale = self.run(mosaic, max(mosaic.shape[:2]))
        found, _, centres = decode(heat, distances, self.info.stride, sideways.LOCAL_THRESHOLD)
        local = sideways.local_boxes(found / scale, centres / scale, patches)
        local = calibrate_boxes(np.nan_to_num(local), self.info.box_scale_x, self.info.box_scale_y)
        h, w = image_bgr.shape[:2]
        local = np.clip(local, 0, np.array([w, h, w, h], np.float32))
        tiles = list(tiles)
        for k in np.flatnonzero(sideways.turned(local)):
            tiles[chosen[k]] = make_tile(local[k], tiles[chosen[k]].score)
        return tiles

    def proposals(self, image_bgr: np.ndarray, score_threshold: float | None = None, refine: bool = True,
                  flip_average: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The net's boxes (x0, y0, x1, y1, photo pixels, uncalibrated), scores and peak centres after
        suppression, best score first: everything `detect` does before `finish`."""
        check_image(image_bgr)
        threshold = self.info.score_threshold if score_threshold is None else score_threshold
        heat, distances, scale = self.run(image_bgr, flip_average=flip_average)
        boxes, scores, centres = decode(heat, distances, self.info.stride, threshold)
        boxes, centres = boxes / scale, centres / scale
        if refine:
            # Twice at most: a photo with only tiny tiles first gets a closer look at the whole, then at the
            # region where that look found them.
            for whole in (True, False):
                count = len(boxes)
                boxes, scores, centres, scale = self._refine(image_bgr, boxes, scores, centres, scale, threshold,
                                                             whole)
                if len(boxes) == count:
                    break
        keep = nms(boxes, scores, self.info.nms_iou)
        return boxes[keep], scores[keep], centres[keep]

    def finish(self, boxes: np.ndarray, scores: np.ndarray, centres: np.ndarray, shape: tuple[int, ...],
               partition: bool | None = None, merge_splits: bool | None = None) -> list[DetectedTile]:
        """Proposals → tiles: size calibration, then the split of overlapping neighbours, then the photo's frame.

        The calibration comes first because it corrects the net's own (systematic) size error; the split only
        resolves the overlaps that remain between correctly sized boxes, and scaling after it would move the
        shared edges it set off the midpoints. Suppression ran before, on the boxes the threshold was chosen with.
        """
        h, w = shape[:2]
        if self.merge_splits if merge_splits is None else merge_splits:
            boxes, scores, centres = merge_split_tiles(boxes, scores, centres)
        if self.info.centre_suppression > 0 and len(boxes) > 1:
            keep = suppress_inner(boxes, scores, self.info.centre_suppression)
            boxes, scores, centres = boxes[keep], scores[keep], centres[keep]
        boxes = calibrate_boxes(boxes, self.info.box_scale_x, self.info.box_scale_y)
        if self.info.partition if partition is None else partition:
            boxes = partition_overlaps(boxes, centres)
        boxes = np.clip(boxes, 0, np.array([w, h, w, h], np.float32))
        return [make_tile(boxes[i], float(scores[i])) for i in range(len(boxes))
                if boxes[i, 2] > boxes[i, 0] + 1 and boxes[i, 3] > boxes[i, 1] + 1]

    def _refine(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, centres: np.ndarray, scale: float,
                threshold: float, whole: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """A second, closer look when the full view shows fewer than `REFINE_FEWER_THAN` tiles or only small ones.

        The whole photo (`whole`, or when nothing was found) or the region holding the tiles found is run again at a
        larger input,
        up to `REFINE_MAX_FACTOR` x the model's size, if that magnifies it at least `REFINE_MIN_ZOOM` times.
        `scale` is the view's scale (view pixels per photo pixel); the closer view's scale is returned with the boxes.
        """
        if len(boxes) >= REFINE_FEWER_THAN:
            sides = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * scale
            if float(np.median(sides)) >= REFINE_BELOW_PX:
                return boxes, scores, centres, scale
        h, w = image.shape[:2]
        x0, y0, x1, y1 = 0, 0, w, h
        if len(boxes) and not whole:
            margin = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) * 2
            x0 = int(max(0, boxes[:, 0].min() - margin))
            y0 = int(max(0, boxes[:, 1].min() - margin))
            x1 = int(min(w, boxes[:, 2].max() + margin))
            y1 = int(min(h, boxes[:, 3].max() + margin))
        region = image[y0:y1, x0:x1]
        long_side = max(region.shape[:2])
        size = min(long_side, self.info.input_size * REFINE_MAX_FACTOR)
        size = max(self.info.input_size, size - size % self.info.pad_multiple)
        if size / long_side / scale < REFINE_MIN_ZOOM:
            return boxes, scores, centres, scale
        heat, distances, region_scale = self.run(region, size)
        fine_boxes, fine_scores, fine_centres = decode(heat, distances, self.info.stride, threshold)
        fine_boxes = fine_boxes / region_scale + np.array([x0, y0, x0, y0], np.float32)
        fine_centres = fine_centres / region_scale + np.array([x0, y0], np.float32)
        return (np.concatenate([boxes, fine_boxes]), np.concatenate([scores, fine_scores]),
                np.concatenate([centres, fine_centres]), region_scale)


def _parse_info(meta: dict[str, str]) -> DetectorInfo:
    return DetectorInfo(
        input_size=int(meta["input_size"]),
        mean=json_floats(meta["normalisation_mean"]),  # type: ignore[arg-type]
        std=json_floats(meta["normalisation_std"]),  # type: ignore[arg-type]
        channel_order=meta.get("channel_order", "RGB"),
        stride=int(meta["output_stride"]),
        pad_multiple=int(meta.get("pad_multiple", 32)),
        score_threshold=float(meta.get("score_threshold", 0.3)),
        nms_iou=float(meta.get("nms_iou", 0.5)),
        box_scale_x=_check_box_scale(f"metadata {BOX_SCALE_KEYS[0]}", meta.get(BOX_SCALE_KEYS[0], 1.0)),
        box_scale_y=_check_box_scale(f"metadata {BOX_SCALE_KEYS[1]}", meta.get(BOX_SCALE_KEYS[1], 1.0)),
        partition=_check_flag("metadata partition_overlaps", meta.get("partition_overlaps", "true")),
        centre_suppression=_check_number("metadata centre_suppression", meta.get("centre_suppression", "0"), 1.5),
        weak_evidence=_check_number("metadata weak_evidence", meta.get("weak_evidence", str(DEFAULT_WEAK_EVIDENCE)),
                                    100.0, "a sum of scores"),
    )


def _check_number(where: str, value: str, high: float, what: str = "a number") -> float:
    """A metadata value that must be a number in 0..high (NaN and text are refused)."""
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not 0.0 <= number <= high:
        raise FanscanError(f"{where} is {value!r}, not {what} in 0..{high:g}")
    return number


def _check_flag(where: str, value: str) -> bool:
    if value.strip().lower() not in ("true", "false"):
        raise FanscanError(f"{where} is {value!r}, not 'true' or 'false'")
    return value.strip().lower() == "true"


def _check_box_scale(where: str, value: object) -> float:
    """A size calibration factor: a finite number in (0, 4]; anything else is a bad model file or argument."""
    try:
        factor = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise FanscanError(f"{where}: box scale {value!r} is not a number") from None
    if not (math.isfinite(factor) and 0 < factor <= 4):
        raise FanscanError(f"{where}: box scale {factor} is outside (0, 4]")
    return factor


def calibrate_boxes(boxes: np.ndarray, scale_x: float, scale_y: float) -> np.ndarray:
    """Each box (x0, y0, x1, y1) scaled about its own centre: width x `scale_x`, height x `scale_y`.

    Why: the net's centres are accurate but its sizes are biased (it learnt from loose boxes around rotated
    boxes, see the model card), so a per-axis factor chosen on held-out photos with tight labels corrects them.
    """
    if scale_x == 1.0 and scale_y == 1.0:
        return boxes
    centre_x = (boxes[:, 0] + boxes[:, 2]) / 2
    centre_y = (boxes[:, 1] + boxes[:, 3]) / 2
    half_w = (boxes[:, 2] - boxes[:, 0]) * (scale_x / 2)
    half_h = (boxes[:, 3] - boxes[:, 1]) * (scale_y / 2)
    return np.stack([centre_x - half_w, centre_y - half_h, centre_x + half_w, centre_y + half_h],
                    axis=1).astype(boxes.dtype).reshape(-1, 4)


def check_image(image: np.ndarray) -> None:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise FanscanError("detect: expected a BGR uint8 image of shape (H, W, 3)")
    if min(image.shape[:2]) < 1:
        raise FanscanError("detect: the image is empty")


def input_blob(image_bgr: np.ndarray, size: int, info: DetectorInfo) -> tuple[np.ndarray, float]:
    """NCHW float32 blob: long side resized to `size`, aspect kept, padded right / bottom to `pad_multiple`;
    and the scale (input pixels per photo pixel).

    The channel swap, the normalisation and the HWC → NCHW layout are one OpenCV call (`blobFromImageWithParams`)
    over the uint8 canvas: done in numpy they cost twice the resize (three passes over float32 copies)."""
    canvas, scale = letterbox(image_bgr, size, size, info.pad_multiple)
    # Scale from the resize only: the padding adds no offset because it sits right / bottom.
    return normalised_blob([canvas], info.mean, info.std, info.channel_order), scale


# The distances' channels (left, top, right, bottom) as a mirrored or upside-down view sees them: its left is the
# photo's right, its top the photo's bottom.
MIRRORED_SIDES = [2, 1, 0, 3]
UPSIDE_DOWN_SIDES = [0, 3, 2, 1]


def flip_averaged(forward: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], blob: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The mean of `forward`'s (heatmap (H, W), distances (4, H, W)) over the NCHW `blob` as it is, mirrored
    left to right and turned upside down, each view's outputs flipped back (and their sides swapped) onto the blob's
    cells. The whole padded blob is flipped, so that every view's grid lands on the same cells. The net learnt with
    flips, so each view is as valid a look; their mean is surer than any one where a single look is unsure (a
    stranger's large tile, found in pieces on one view and whole on another)."""
    heat, distances = forward(blob)
    mirrored_heat, mirrored = forward(np.ascontiguousarray(blob[:, :, :, ::-1]))
    upside_heat, upside = forward(np.ascontiguousarray(blob[:, :, ::-1, :]))
    mean_heat = (heat + mirrored_heat[:, ::-1] + upside_heat[::-1, :]) / 3
    mean_distances = (distances + mirrored[MIRRORED_SIDES][:, :, ::-1] + upside[UPSIDE_DOWN_SIDES][:, ::-1, :]) / 3
    return np.ascontiguousarray(mean_heat, np.float32), np.ascontiguousarray(mean_distances, np.float32)


def decode(heat: np.ndarray, distances: np.ndarray, stride: int, threshold: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Peaks of the heatmap (3 x 3 max) above `threshold` → boxes (x0, y0, x1, y1) in input pixels, scores, and
    the peak centres (x, y) refined to a fraction of a cell by a parabola through the peak and its neighbours."""
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peaks)
    scores = heat[ys, xs].astype(np.float32)
    cx = (xs.astype(np.float32) + 0.5) * stride
    cy = (ys.astype(np.float32) + 0.5) * stride
    left, top, right, bottom = (distances[i, ys, xs] for i in range(4))
    boxes = np.stack([cx - left, cy - top, cx + right, cy + bottom], axis=1).astype(np.float32).reshape(-1, 4)
    h, w = heat.shape
    dx = _parabola_offset(heat[ys, np.maximum(xs - 1, 0)], heat[ys, xs], heat[ys, np.minimum(xs + 1, w - 1)])
    dy = _parabola_offset(heat[np.maximum(ys - 1, 0), xs], heat[ys, xs], heat[np.minimum(ys + 1, h - 1), xs])
    centres = np.stack([cx + dx * stride, cy + dy * stride], axis=1).astype(np.float32).reshape(-1, 2)
    return boxes, scores, centres


def _parabola_offset(before: np.ndarray, peak: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Sub-cell position of a maximum from three samples, in cells (-0.5 .. 0.5)."""
    curvature = before - 2 * peak + after
    safe = np.where(np.abs(curvature) > 1e-6, curvature, -1.0)
    return np.where(np.abs(curvature) > 1e-6, 0.5 * (before - after) / safe, 0.0).clip(-0.5, 0.5)


def partition_overlaps(boxes: np.ndarray, centres: np.ndarray, along: float = PARTITION_ALIGNMENT) -> np.ndarray:
    """Split the overlap of neighbouring boxes at the midpoint of their centres.

    Two tiles cannot share space, yet where tiles touch in a row the net's boxes tend to spill over the neighbours
    (the training photos were all rotated, so their boxes are loose). For every two overlapping boxes whose centres
    lie side by side (or one above the other) within `along` of the row direction, each box's edge is moved back to
    the midpoint between the two centres. Tiles in a row at ~45 degrees are left alone: there the enclosing boxes of
    neighbours overlap legitimately.
    """
    if len(boxes) < 2:
        return boxes
    out = boxes.copy()
    dx = centres[None, :, 0] - centres[:, None, 0]  # [i, j]: j's centre minus i's
    dy = centres[None, :, 1] - centres[:, None, 1]
    overlap_x = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    overlap_y = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    overlapping = (overlap_x > 0) & (overlap_y > 0)
    mid_x = (centres[:, None, 0] + centres[None, :, 0]) / 2
    mid_y = (centres[:, None, 1] + centres[None, :, 1]) / 2
    right = overlapping & (dx > 0) & (np.abs(dy) < along * dx)
    left = overlapping & (dx < 0) & (np.abs(dy) < along * -dx)
    below = overlapping & (dy > 0) & (np.abs(dx) < along * dy)
    above = overlapping & (dy < 0) & (np.abs(dx) < along * -dy)
    out[:, 2] = np.minimum(out[:, 2], np.where(right, mid_x, np.inf).min(axis=1))
    out[:, 0] = np.maximum(out[:, 0], np.where(left, mid_x, -np.inf).max(axis=1))
    out[:, 3] = np.minimum(out[:, 3], np.where(below, mid_y, np.inf).min(axis=1))
    out[:, 1] = np.maximum(out[:, 1], np.where(above, mid_y, -np.inf).max(axis=1))
    return out


def merge_split_tiles(boxes: np.ndarray, scores: np.ndarray, centres: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of boxes that are one tile found twice, each pair made one box (their union, the better score, the
    mean of the peaks): upright, in one row, overlapping along it by at least `SPLIT_OVERLAP` of the narrower box,
    together no wider than tall (and at least `SPLIT_UNION_MIN_ASPECT` as wide), and with peaks closer than
    `SPLIT_SPACING` of the photo's tile spacing (the median
    distance from a peak to its nearest other peak; the median box width with fewer than `SPACING_FROM` boxes).
    The spacing is what tells a split tile from neighbours whose boxes came out too wide: in such a photo every
    neighbour is as close. Closest pairs first; a box joins one pair at most."""
    if len(boxes) < 2:
        return boxes, scores, centres
    widths, heights = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    distance = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    np.fill_diagonal(distance, np.inf)
    spacing = float(np.median(distance.min(axis=1))) if len(boxes) >= SPACING_FROM else float(np.median(widths))
    overlap_x = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    overlap_y = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    union_w = np.maximum(boxes[:, None, 2], boxes[None, :, 2]) - np.minimum(boxes[:, None, 0], boxes[None, :, 0])
    union_h = np.maximum(boxes[:, None, 3], boxes[None, :, 3]) - np.minimum(boxes[:, None, 1], boxes[None, :, 1])
    upright = widths < heights
    split = ((overlap_x >= SPLIT_OVERLAP * np.minimum(widths[:, None], widths[None, :]))
             & (overlap_y >= SPLIT_SAME_ROW * np.minimum(heights[:, None], heights[None, :]))
             & (union_w < union_h) & (union_w >= SPLIT_UNION_MIN_ASPECT * union_h)
             & upright[:, None] & upright[None, :] & (distance < SPLIT_SPACING * spacing))
    if not split.any():
        return boxes, scores, centres
    boxes, scores, centres = boxes.copy(), scores.copy(), centres.copy()
    used = np.zeros(len(boxes), bool)
    gone = np.zeros(len(boxes), bool)
    pairs = np.argwhere(np.triu(split))
    for i, j in pairs[np.argsort(distance[pairs[:, 0], pairs[:, 1]], kind="stable")]:
        if used[i] or used[j]:
            continue
        keep, drop = (i, j) if scores[i] >= scores[j] else (j, i)
        boxes[keep] = [min(boxes[i, 0], boxes[j, 0]), min(boxes[i, 1], boxes[j, 1]),
                       max(boxes[i, 2], boxes[j, 2]), max(boxes[i, 3], boxes[j, 3])]
        centres[keep] = (centres[i] + centres[j]) / 2
        used[i] = used[j] = gone[drop] = True
    kept = np.flatnonzero(~gone)
    return boxes[kept], scores[kept], centres[kept]


def suppress_inner(boxes: np.ndarray, scores: np.ndarray, fraction: float) -> np.ndarray:
    """Indices kept (in their order) when every box whose centre lies within the central `fraction` of a
    better-scoring kept box (|dx| <= fraction * width / 2 and |dy| <= fraction * height / 2) is dropped."""
    order = np.argsort(-scores, kind="stable")
    rank = np.empty(len(boxes), int)
    rank[order] = np.arange(len(boxes))
    centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    half = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1) * fraction / 2
    dropped = np.zeros(len(boxes), bool)
    for i in order:
        if dropped[i]:
            continue
        # Only boxes later in the order: one already kept is never dropped afterwards (equal scores included).
        dropped |= np.all(np.abs(centres - centres[i]) <= half[i], axis=1) & (rank > rank[i])
    return np.flatnonzero(~dropped)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Indices kept by non-maximum suppression, best score first."""
    if len(boxes) == 0:
        return []
    xywh = [[float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])] for b in boxes]
    keep = cv2.dnn.NMSBoxes(xywh, [float(s) for s in scores], 0.0, iou)
    return [int(i) for i in np.array(keep).reshape(-1)]


def make_tile(box: np.ndarray, score: float) -> DetectedTile:
    x0, y0, x1, y1 = (float(v) for v in box)
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    orientation = "sideways" if (x1 - x0) > SIDEWAYS_ASPECT * (y1 - y0) else "upright"
    return DetectedTile(quad, (x0, y0, x1, y1), score, orientation)


# A cache, not state: the shipped model never changes while the process runs, and opening its session costs about
# as much as detecting one photo, so every default user (`detect`, each `Pipeline()`, a batch of photos) shares one.
@functools.cache
def default_detector() -> TileDetector:
    """The shipped model, loaded once per process."""
    return TileDetector()


class DetectorOnFirstUse:
    """A `TileDetector` opened the first time it is asked for (`get`): a model most photos never need (the close-up
    detector) then costs no load time and no session memory in a process that never reads a close-up. Thread-safe:
    readers sharing a pipeline open it once."""

    def __init__(self, model_path: str | Path, threads: int | None = None, one_call_at_a_time: bool = False) -> None:
        self.model_path = Path(model_path)
        self._settings = {"threads": threads, "one_call_at_a_time": one_call_at_a_time}
        self._lock = threading.Lock()
        self._detector: TileDetector | None = None

    @property
    def opened(self) -> bool:
        return self._detector is not None

    def get(self) -> TileDetector:
        with self._lock:
            if self._detector is None:
                self._detector = TileDetector(self.model_path, **self._settings)
            return self._detector


def shipped_close_up_detector(threads: int | None = None,
                              one_call_at_a_time: bool = False) -> DetectorOnFirstUse | None:
    """The shipped close-up model (`CLOSE_UP_MODEL`), opened on first use; None where the file is not installed."""
    return DetectorOnFirstUse(CLOSE_UP_MODEL, threads, one_call_at_a_time) if CLOSE_UP_MODEL.is_file() else None


def detect(image_bgr: np.ndarray, model: TileDetector | None = None) -> list[DetectedTile]:
    """Every tile proposed in a BGR photo, best score first (see the module doc for the method and its limits)."""
    return (model or default_detector()).detect(image_bgr)
