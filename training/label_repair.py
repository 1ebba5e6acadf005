"""Undo the upstream rotation / shear of a training photo and recover tight tile boxes from its loose labels.

Roboflow exported three train copies in four rotated (up to 45 degrees) and sheared, the corners filled with one
flat neutral colour, and labelled each copy with the axis-aligned box around the transformed *box* of every tile:
a box of a box, far bigger than the tile (models/tile_detector.md, History). A detector trained on those
learns boxes about 1.5 times too big.

The transform can be read off the photo. The edges between the fill and the content are the images of the source
frame's sides, so their directions are the images u, v of the source x and y axes (rotation and shear; the scale
does not matter). The copy's box of a source box w0 x h0 is then W = |ux| w0 + |vx| h0 by H = |uy| w0 + |vy| h0:
a 2 x 2 system solved for (w0, h0) when it is well conditioned (|det| >= `MIN_DET`, rotations under about 35
degrees), and the box centre maps back through the inverse of A = [u v]. The photo is warped back with the same
inverse, so the repaired boxes sit on upright tiles again.

Public API:
- `fill_colour(image)` -> the flat neutral corner colour, or None (no fill: an untransformed photo);
- `estimate_axes(image)` -> (u, v) unit vectors, or None;
- `repair(image, boxes)` -> `Repair` (warped photo, tight boxes, which boxes are trustworthy) or None.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

MIN_DET = 0.35  # below this the widths and heights of the loose boxes cannot be unmixed
MIN_EDGE_PX = 40.0  # fill edges shorter than this say little about the direction
# A repaired box whose long/short ratio is this many times off the photo's median is an unmixing that blew up
# (relative, because a photo squeezed to 640x640 upstream makes all its tiles thin alike).
MAX_ASPECT_SPREAD = 1.8
MIN_INSIDE = 0.9  # a repaired box must lie this much inside the recovered photo content


@dataclass
class Repair:
    """A photo turned back to its source frame, with its boxes mapped there.

    boxes: (N, 4) float32 tight boxes (x0, y0, x1, y1) in the warped photo.
    good: (N,) bool, False where a box cannot be trusted (cut by the frame, unmixing unstable); use those as
        ignored regions, not as positives or background.
    valid: uint8 mask of the warped photo, 1 where it shows source content (0: fill or outside the copy).
    angle: rotation of the source x axis in the copy, degrees.
    """

    image: np.ndarray
    boxes: np.ndarray
    good: np.ndarray
    valid: np.ndarray
    angle: float


def _corner_pixels(image: np.ndarray) -> list[np.ndarray]:
    h, w = image.shape[:2]
    return [image[1, 1], image[1, w - 2], image[h - 2, 1], image[h - 2, w - 2]]


def fill_colour(image: np.ndarray) -> np.ndarray | None:
    """The fill colour when at least two corners are one flat neutral colour (grey or black), else None."""
    neutral = [c.astype(np.float32) for c in _corner_pixels(image) if int(c.max()) - int(c.min()) <= 2]
    if len(neutral) < 2:
        return None
    colour = np.median(np.array(neutral), axis=0)
    agree = sum(float(np.abs(c - colour).max()) <= 3 for c in neutral)
    return colour if agree >= 2 else None


def _fill_mask(image: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """1 where the photo is the fill: the components of fill-coloured pixels that hold a corner."""
    h, w = image.shape[:2]
    near = (np.abs(image.astype(np.float32) - colour).max(axis=2) <= 6).astype(np.uint8)
    _count, labels = cv2.connectedComponents(near)
    fill = np.zeros_like(near)
    for y, x in ((1, 1), (1, w - 2), (h - 2, 1), (h - 2, w - 2)):
        if near[y, x]:
            fill |= (labels == labels[y, x]).astype(np.uint8)
    return fill


def estimate_axes(image: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Images (u, v) of the source x and y axes in a transformed copy, from the edges of its corner fill."""
    colour = fill_colour(image)
    if colour is None:
        return None
    return _axes_from_content(1 - _fill_mask(image, colour))


def _axes_from_content(content_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """`estimate_axes` from the mask (1 = photo content, 0 = fill) the fill leaves."""
    h, w = content_mask.shape[:2]
    content = (content_mask * 255).astype(np.uint8)
    content = cv2.morphologyEx(content, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(content, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    poly = cv2.approxPolyDP(hull, 3.0, True).reshape(-1, 2).astype(np.float32)

    def on_frame(p: np.ndarray) -> bool:
        return bool(p[0] <= 2 or p[1] <= 2 or p[0] >= w - 3 or p[1] >= h - 3)

    angles, lengths = [], []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        if on_frame(a) and on_frame(b) and (abs(a[0] - b[0]) < 3 or abs(a[1] - b[1]) < 3):
            continue  # a piece of the photo's own border, not an edge of the transformed frame
        length = float(np.hypot(*(b - a)))
        if length >= MIN_EDGE_PX:
            angles.append(math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 180)
            lengths.append(length)
    if not angles:
        return None
    ang, weight = np.array(angles), np.array(lengths)
    # Two families of edge directions: the longest edge's, and the rest (about 90 degrees away, give or take shear).
    ref = ang[np.argmax(weight)]
    diff = (ang - ref + 90) % 180 - 90
    first = np.abs(diff) < 45
    a1 = ref + np.average(diff[first], weights=weight[first])
    if (~first).any():
        diff2 = (ang[~first] - (a1 + 90) + 90) % 180 - 90
        a2 = a1 + 90 + np.average(diff2, weights=weight[~first])
    else:
        a2 = a1 + 90  # only one family seen: assume no shear
    t1, t2 = (a1 + 90) % 180 - 90, (a2 + 90) % 180 - 90
    ax, ay = (t1, a2) if abs(t1) <= abs(t2) else (t2, a1)  # the x axis is the family nearer horizontal
    u = np.array([math.cos(math.radians(ax)), math.sin(math.radians(ax))])
    v = np.array([math.cos(math.radians(ay)), math.sin(math.radians(ay))])
    if v[1] < 0:
        v = -v
    return u, v


def repair(image: np.ndarray, boxes: np.ndarray) -> Repair | None:
    """The photo warped back to its source frame and its loose boxes unmixed; None when no transform is seen or
    it is too close to 45 degrees to unmix (leave such a photo out of box training)."""
    colour = fill_colour(image)
    if colour is None:
        return None
    content = 1 - _fill_mask(image, colour)  # found once: it gives the axes and, warped, the valid region
    axes = _axes_from_content(content)
    if axes is None:
        return None
    u, v = axes
    mix = np.array([[abs(u[0]), abs(v[0])], [abs(u[1]), abs(v[1])]])
    if abs(np.linalg.det(mix)) < MIN_DET:
        return None
    h, w = image.shape[:2]
    inverse = np.linalg.inv(np.stack([u, v], axis=1))
    centre = np.array([w / 2, h / 2])
    warp = np.concatenate([inverse, (centre - inverse @ centre)[:, None]], axis=1).astype(np.float32)
    warped = cv2.warpAffine(image, warp, (w, h), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    valid = cv2.warpAffine(content, warp, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    # What is not source content (old fill, and what the copy had cut off) becomes one flat fill again.
    warped[valid == 0] = np.asarray(colour, np.uint8)
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    out = np.zeros_like(boxes)
    good = np.zeros(len(boxes), bool)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        bw, bh = np.linalg.solve(mix, [x1 - x0, y1 - y0])
        cx, cy = inverse @ (np.array([(x0 + x1) / 2, (y0 + y1) / 2]) - centre) + centre
        if bw <= 2 or bh <= 2:
            # No stable size: mark the region the loose box covers, mapped back, as untrustworthy.
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) - centre
            mapped = corners @ inverse.T + centre
            out[i] = (*mapped.min(axis=0), *mapped.max(axis=0))
            continue
        out[i] = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
        cut = min(x0, y0) <= 1 or x1 >= w - 1 or y1 >= h - 1  # clipped by the copy's frame: size is wrong
        good[i] = not cut
    sides = np.stack([out[:, 2] - out[:, 0], out[:, 3] - out[:, 1]], axis=1)
    aspect = sides.max(axis=1) / np.maximum(sides.min(axis=1), 1e-6)
    if good.any():
        typical = float(np.median(aspect[good]))
        good &= (aspect <= typical * MAX_ASPECT_SPREAD) & (aspect >= typical / MAX_ASPECT_SPREAD)
    for i in np.flatnonzero(good):
        x0, y0, x1, y1 = np.round(out[i]).astype(int)
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            good[i] = False
            continue
        inside = float(valid[y0:y1, x0:x1].mean()) if x1 > x0 and y1 > y0 else 0.0
        good[i] = inside >= MIN_INSIDE
    angle = math.degrees(math.atan2(u[1], u[0]))
    return Repair(warped, out, good, valid, angle)
