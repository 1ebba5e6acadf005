"""Augmented views of a calibration tile: what the same tile looks like in other photos of it.

A view warps the tile's context crop with a random homography about the tile's centre (a tile lying flat is
squashed in height; shear, a small rotation and perspective for other camera angles), half of the time turned 180
degrees (tiles lie either way up; never mirrored: no tile face is a mirror image), then cuts the axis-aligned box
around the warped tile with some jitter of its sides (a detector's box is never exact), exactly as the photo
pipeline cuts a detection; last, light, colour, blur, resolution, noise and JPEG jitter (`vision.photometric`).
`OCCLUSION_P` (0: off, the views as they always were) would first hide a strip along one side (left, right or
bottom) of that share of the views by another part of the same crop (`occluded`).

Why the strips, and why they are off: in another player's photos tiles stand close and a neighbour in front hides an
edge of the face (a dots tile losing a column of dots reads as a smaller number); a strip of the same crop, moved,
looks like that neighbour. Measured with `OCCLUSION_P = 0.6` (session 30, `benchmarks/calibration_curve.py`, every
part, against the shipped views; `benchmarks/results/calibration_curve_occlusion_0.6.json`), 1 / 2 / 4 photos a tile:
riichi-table-leomiura 0.966 / 0.969 / 0.974 -> 0.971 / 0.981 / 0.986, but hk-crops 0.986 at 4 -> 0.959 (2 of 73),
the artwork set 0.980 / 0.998 / 0.998 -> 0.976 / 0.996 / 0.996, the development sessions pooled 0.951 / 0.952 / 0.954
-> 0.950 / 0.951 / 0.953 and the composited construction 0.943 -> 0.938 at 4: a gain on one set that costs the
others is not shipped (issue 18).
"""

from __future__ import annotations

import cv2
import numpy as np

from fanscan.calibration.sources import CalibrationTile
from fanscan.vision.crops import CropSpec, crop_box, crop_quad
from fanscan.vision.photometric import photometric

SQUASH = (0.7, 1.0)  # height factor of a tile lying flat, seen from a seated player's angle
SHEAR = 0.1
ROTATION_DEG = 5.0
PERSPECTIVE = 0.0008  # per pixel of the context crop (a 200-px tile)
BOX_JITTER = 0.05  # of the tile's size, per side
OCCLUSION_P = 0.0  # share of the views with a side strip hidden (`occluded`); 0: none (see the module doc)
OCCLUDED_SHARE = (0.1, 0.35)  # how much of the crop's width (or height) the strip covers


def plain_crop(tile: CalibrationTile, spec: CropSpec) -> np.ndarray:
    """The tile cut as the pipeline cuts a detection with exactly this quad."""
    return crop_quad(tile.context, tile.quad, spec)


def random_view(tile: CalibrationTile, spec: CropSpec, rng: np.random.Generator) -> np.ndarray:
    """One augmented view (see the module doc)."""
    centre = tile.quad.mean(axis=0)
    to_centre = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]], np.float64)
    angle = np.radians(rng.normal(0, ROTATION_DEG / 2))
    if rng.random() < 0.5:
        angle += np.pi
    cos_a, sin_a = np.cos(angle), np.sin(angle)
    rotate = np.array([[cos_a, -sin_a, 0], [sin_a, cos_a, 0], [0, 0, 1]], np.float64)
    shape = np.array([[1, rng.uniform(-SHEAR, SHEAR), 0], [0, rng.uniform(*SQUASH), 0],
                      [rng.uniform(-PERSPECTIVE, PERSPECTIVE), rng.uniform(-PERSPECTIVE, PERSPECTIVE), 1]],
                     np.float64)
    height, width = tile.context.shape[:2]
    back = np.array([[1, 0, width / 2], [0, 1, height / 2], [0, 0, 1]], np.float64)
    matrix = back @ shape @ rotate @ to_centre
    warped = cv2.warpPerspective(tile.context, matrix, (width, height), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    corners = cv2.perspectiveTransform(tile.quad[None].astype(np.float64), matrix)[0]
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    w, h = x1 - x0, y1 - y0
    jitter = rng.uniform(-BOX_JITTER, BOX_JITTER, 4) * np.array([w, h, w, h])
    box = (x0 + jitter[0], y0 + jitter[1], max(x0 + jitter[0] + 2, x1 + jitter[2]),
           max(y0 + jitter[1] + 2, y1 + jitter[3]))
    crop = crop_box(warped, box, spec)
    if OCCLUSION_P and rng.random() < OCCLUSION_P:  # off: no draw, so the views are exactly as before
        crop = occluded(crop, rng)
    return photometric(crop, rng)


def occluded(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop with a strip along its left, right or bottom side (a share `OCCLUDED_SHARE` of it) replaced by the
    same strip of the crop rolled at least that far along the axis: another part of the same face, as a neighbour
    standing in front of the tile shows it."""
    side = int(rng.integers(3))  # 0 left, 1 right, 2 bottom (a tile in front hides the lower edge, not the top)
    axis = 1 if side < 2 else 0
    length = crop.shape[axis]
    strip = max(1, round(length * rng.uniform(*OCCLUDED_SHARE)))
    shift = int(rng.integers(strip, max(strip + 1, length - strip + 1)))
    hidden = np.arange(strip) if side == 0 else np.arange(length - strip, length)
    out = crop.copy()
    # the lines along `axis` first (views, not copies): line i of the crop rolled by `shift` is line i - shift
    np.moveaxis(out, axis, 0)[hidden] = np.moveaxis(crop, axis, 0)[(hidden - shift) % length]
    return out


def tile_views(tile: CalibrationTile, spec: CropSpec, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The plain crop, then `count` augmented views."""
    return [plain_crop(tile, spec)] + [random_view(tile, spec, rng) for _ in range(count)]
