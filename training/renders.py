"""Synthetic training patches: rendered tiles in a photo-like scene, cut exactly like real crops.

A tile is an ivory body (rounded, slightly shaded) with a face pasted on, a coloured back layer showing as its
thickness on one side, neighbours touching it at the left or right, on a background cut from the real photos or
made up (felt, wood). The scene gets a random perspective, and the classifier patch is taken with `crop_quad`
through the tile's warped corners (so geometry matches real crops), then light gradients, glare and blur.

Besides faces this makes what real labels lack: `back` (face-down tiles in many back colours, FluffyStuff's back
designs) and `none` (tile sides, gaps between two tiles, bare backgrounds).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

import cv2
import numpy as np
from fanscan.training.classes import BACK, CLASS_INDEX, CLASSES, NONE
from fanscan.training.faces import FACE_H, FACE_W, Face
from fanscan.training.real_data import STORE_SPEC, PatchSet
from fanscan.vision.crops import crop_transform

# Back colours seen on real sets (BGR): greens, blues, yellow, orange, red, pink, purple, black. No white or
# cream: a cream back is indistinguishable from a blank face (the riichi white dragon) in a crop.
BACK_COLOURS = [(60, 140, 40), (40, 90, 20), (170, 110, 30), (200, 160, 90), (40, 190, 230), (30, 120, 230),
                (40, 40, 190), (170, 130, 230), (140, 60, 110), (35, 35, 35), (110, 160, 60)]
RENDER_VERSION = 3  # part of the cache key: bump when rendering changes


def ivory_colour(rng: np.random.Generator) -> np.ndarray:
    base = np.array([225, 238, 242], float) + rng.normal(0, 8, 3)
    base[0] -= rng.uniform(0, 25)  # yellowish ivory has less blue
    return np.clip(base, 150, 255)


def rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    r = max(1, min(radius, w // 2 - 1, h // 2 - 1))
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return mask


def face_on_body(face: Face | None, w: int, h: int, rng: np.random.Generator, colour: np.ndarray) -> np.ndarray:
    """The tile's front, (h, w, 3) float: body colour with a soft edge shading and the face pasted on."""
    body = np.empty((h, w, 3), np.float32)
    body[:] = colour
    # Edges of a real tile are rounded: darker towards the rim.
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    rim = np.minimum.reduce([xx, yy, w - 1 - xx, h - 1 - yy]) / (0.08 * min(w, h))
    body *= (0.82 + 0.18 * np.clip(rim, 0, 1))[..., None]
    if face is None:
        return body
    inset = rng.uniform(0.0, 0.04) if face.full_tile else rng.uniform(0.05, 0.14)
    fw, fh = int(w * (1 - 2 * inset)), int(h * (1 - 2 * inset))
    art = cv2.resize(face.rgba, (fw, fh), interpolation=cv2.INTER_AREA).astype(np.float32)
    x0, y0 = (w - fw) // 2 + int(rng.integers(-2, 3)), (h - fh) // 2 + int(rng.integers(-2, 3))
    x0, y0 = int(np.clip(x0, 0, w - fw)), int(np.clip(y0, 0, h - fh))
    alpha = art[..., 3:4] / 255.0
    ink = art[..., :3]
    if not face.full_tile and rng.random() < 0.3:
        ink = ink * rng.uniform(0.6, 1.1, 3)  # sets differ in ink colour
    region = body[y0:y0 + fh, x0:x0 + fw]
    body[y0:y0 + fh, x0:x0 + fw] = region * (1 - alpha) + ink * alpha
    return body


def _background(shape: tuple[int, int], rng: np.random.Generator, photos: list[np.ndarray]) -> np.ndarray:
    h, w = shape
    kind = rng.random()
    if photos and kind < 0.5:
        photo = photos[rng.integers(len(photos))]
        ph, pw = photo.shape[:2]
        scale = max(h / ph, w / pw) * rng.uniform(1.0, 2.5)
        big = cv2.resize(photo, (int(pw * scale) + 1, int(ph * scale) + 1))
        y, x = rng.integers(0, big.shape[0] - h + 1), rng.integers(0, big.shape[1] - w + 1)
        return big[y:y + h, x:x + w].astype(np.float32)
    colour = np.array(
        [(50, 120, 40), (120, 70, 20), (60, 110, 160), (40, 40, 40), (180, 180, 180), (30, 60, 120)][
            rng.integers(6)], float) + rng.normal(0, 15, 3)
    bg = np.empty((h, w, 3), np.float32)
    bg[:] = colour
    if kind < 0.75:  # felt: fine noise
        bg += rng.normal(0, rng.uniform(3, 12), (h, w, 1)).astype(np.float32)
    else:  # wood: stripes along one axis
        stripes = np.sin(np.linspace(0, rng.uniform(10, 60), w) + rng.normal(0, 0.3, w).cumsum() * 0.1)
        bg += (stripes[None, :, None] * rng.uniform(5, 20)).astype(np.float32)
        if rng.random() < 0.5:
            bg = np.ascontiguousarray(bg.transpose(1, 0, 2))[:h, :w] if h == w else cv2.flip(bg, 0)
    return bg


def paste_masked(canvas: np.ndarray, image: np.ndarray, mask: np.ndarray, x: int, y: int) -> None:
    """Alpha-paste `image` with 0..255 `mask` at (x, y), clipped to the canvas."""
    h, w = image.shape[:2]
    ch, cw = canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(cw, x + w), min(ch, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    m = (mask[y0 - y:y1 - y, x0 - x:x1 - x].astype(np.float32) / 255.0)[..., None]
    canvas[y0:y1, x0:x1] = canvas[y0:y1, x0:x1] * (1 - m) + image[y0 - y:y1 - y, x0 - x:x1 - x] * m


def tile_with_thickness(
    front: np.ndarray, rng: np.random.Generator, back_colour: np.ndarray, depth: tuple[int, int], side_colour=None
) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """A tile image with its side showing (offset back layers), its mask and where the front starts in it."""
    h, w = front.shape[:2]
    dx, dy = depth
    total_w, total_h = w + abs(dx), h + abs(dy)
    image = np.zeros((total_h, total_w, 3), np.float32)
    mask = np.zeros((total_h, total_w), np.uint8)
    fx, fy = (abs(dx) if dx < 0 else 0), (abs(dy) if dy < 0 else 0)
    radius = int(0.1 * w)
    body = rounded_mask(w, h, radius)
    steps = max(abs(dx), abs(dy))
    side = side_colour if side_colour is not None else back_colour
    for s in range(steps, 0, -1):
        ox, oy = fx + round(dx * s / steps), fy + round(dy * s / steps)
        layer = np.empty((h, w, 3), np.float32)
        # The back part of the thickness shows the back colour, the front part the ivory body.
        layer[:] = side if s > steps * 0.45 else front[h // 2, w // 2] * 0.85
        paste_masked(image, layer * rng.uniform(0.75, 0.9), body, ox, oy)
        mask[oy:oy + h, ox:ox + w] = np.maximum(mask[oy:oy + h, ox:ox + w], body)
    paste_masked(image, front, body, fx, fy)
    mask[fy:fy + h, fx:fx + w] = np.maximum(mask[fy:fy + h, fx:fx + w], body)
    return image, mask, (fx, fy)


class Renderer:
    """Draws patches of rendered tiles; faces and backgrounds are given once."""

    def __init__(self, faces: dict[str, list[Face]], backs: list[Face], photos: list[np.ndarray], seed: int) -> None:
        self.faces = faces
        self.backs = backs
        self.photos = photos
        self.rng = np.random.default_rng(seed)
        self.all_faces = [f for fs in faces.values() for f in fs]

    def _front(self, tile: str, w: int, h: int, ivory: np.ndarray, back_colour: np.ndarray) -> np.ndarray:
        rng = self.rng
        if tile == BACK:
            # A back is one colour edge to edge (a faint texture at most). No inner frames or logos: an ivory rim
            # around a coloured rectangle is what a white dragon looks like, and real backs are plain.
            front = np.empty((h, w, 3), np.float32)
            front[:] = back_colour
            if rng.random() < 0.4:
                front += rng.normal(0, rng.uniform(2, 8), (h, w, 1)).astype(np.float32)
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            rim = np.minimum.reduce([xx, yy, w - 1 - xx, h - 1 - yy]) / (0.08 * min(w, h))
            return front * (0.8 + 0.2 * np.clip(rim, 0, 1))[..., None]
        if tile == "blank":
            return face_on_body(None, w, h, rng, ivory)
        choices = self.faces.get(tile) or []
        face = choices[rng.integers(len(choices))] if choices else None
        return face_on_body(face, w, h, rng, ivory)

    def render(self, label: str) -> np.ndarray:
        """One (120, 96, 3) uint8 patch of class `label` (a tile id, `back` or `none`)."""
        rng = self.rng
        w = int(rng.integers(66, 90))
        h = int(w / rng.uniform(0.68, 0.82))
        ivory = ivory_colour(rng)
        back_colour = np.array(BACK_COLOURS[rng.integers(len(BACK_COLOURS))], float) + rng.normal(0, 12, 3)
        canvas_w, canvas_h = w * 4, h * 3
        canvas = _background((canvas_h, canvas_w), rng, self.photos)
        depth = (int(rng.integers(-1, 2) * rng.integers(0, int(0.35 * w))),
                 int(rng.integers(-1, 2) * rng.integers(0, int(0.35 * h))))
        target = label if label != NONE else ("blank" if rng.random() < 0.5 else None)
        gap = int(rng.integers(0, 6)) if rng.random() < 0.7 else int(rng.integers(6, w))
        ox, oy = (canvas_w - w) // 2, (canvas_h - h) // 2
        # Neighbours left and right (a row of tiles), drawn before the tile itself.
        for side in (-1, 1):
            if rng.random() < 0.6:
                other = rng.choice([*list(self.faces), BACK]) if self.faces else BACK
                n_front = self._front(str(other), w, h, ivory, back_colour)
                n_img, n_mask, (fx, fy) = tile_with_thickness(n_front, rng, back_colour, depth)
                paste_masked(canvas, n_img, n_mask, ox + side * (w + gap) - fx, oy - fy + int(rng.integers(-3, 4)))
        quad = np.array([[ox, oy], [ox + w, oy], [ox + w, oy + h], [ox, oy + h]], np.float32)
        if target is not None:
            side_colour = ivory * 0.8 if label == BACK else None
            front = self._front(target, w, h, ivory, back_colour)
            t_img, t_mask, (fx, fy) = tile_with_thickness(front, rng, back_colour, depth, side_colour)
            paste_masked(canvas, t_img, t_mask, ox - fx, oy - fy)
        if label == NONE:
            quad = self._none_quad(quad, w, h, depth, gap, target)
        # Perspective: move the corners, keep the tile roughly where it was.
        jitter = rng.normal(0, 0.06, (4, 2)) * np.array([w, h])
        angle = np.deg2rad(rng.normal(0, 6))
        centre = quad.mean(axis=0)
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        warped = ((quad - centre) @ rot.T + centre + jitter).astype(np.float32)
        homography = cv2.getPerspectiveTransform(quad, warped)
        # Where the crop sees the tile: the warped corners, slightly off (a detector's box is never exact).
        seen = warped + (rng.normal(0, 0.03, (4, 2)) * np.array([w, h])).astype(np.float32)
        matrix = crop_transform(seen, STORE_SPEC) @ homography
        patch = cv2.warpPerspective(canvas, matrix, (STORE_SPEC.width, STORE_SPEC.height),
                                    flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
        return self._light(patch)

    def _none_quad(self, quad: np.ndarray, w: int, h: int, depth: tuple[int, int], gap: int,
                   target: str | None) -> np.ndarray:
        """Where a `none` crop looks: a gap between tiles, a tile's side, or the bare table."""
        rng = self.rng
        kind = rng.random()
        if kind < 0.4:  # straddle the gap to a neighbour
            shift = (w + gap) * rng.uniform(0.42, 0.58) * rng.choice([-1, 1])
            return quad + np.array([shift, 0], np.float32)
        if kind < 0.7 and target is not None and (depth[0] or depth[1]):  # the tile's side strip
            x0, y0 = quad[0]
            if depth[1] > 0:
                return np.array([[x0, y0 + h], [x0 + w, y0 + h], [x0 + w, y0 + h + depth[1] + 4],
                                 [x0, y0 + h + depth[1] + 4]], np.float32)
            if depth[0] > 0:
                return np.array([[x0 + w, y0], [x0 + w + depth[0] + 4, y0], [x0 + w + depth[0] + 4, y0 + h],
                                 [x0 + w, y0 + h]], np.float32)
        # bare table beside the row
        return quad + np.array([0, rng.choice([-1, 1]) * h * rng.uniform(1.05, 1.4)], np.float32)

    def _light(self, patch: np.ndarray) -> np.ndarray:
        rng = self.rng
        h, w = patch.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        direction = rng.normal(0, 1, 2)
        gradient = (xx / w - 0.5) * direction[0] + (yy / h - 0.5) * direction[1]
        patch = patch * (rng.uniform(0.7, 1.15) + 0.25 * gradient)[..., None]
        patch = patch * rng.uniform(0.85, 1.15, 3)  # white balance
        if rng.random() < 0.3:  # glare: a soft bright spot
            cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(6, 30)
            spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
            patch = patch + (spot * rng.uniform(60, 200))[..., None]
        if rng.random() < 0.4:
            patch = cv2.GaussianBlur(patch, (0, 0), rng.uniform(0.4, 1.4))
        patch = patch + rng.normal(0, rng.uniform(0, 6), patch.shape)
        return np.clip(patch, 0, 255).astype(np.uint8)


def render_set(
    renderer: Renderer, per_tile: int, per_back: int, per_none: int,
    progress: Callable[[str], None] | None = None, boost: Collection[str] = (), boost_factor: float = 1.5,
) -> PatchSet:
    """`per_tile` patches of every tile class that has faces (`boost_factor` times as many for the `boost` tiles),
    and the given numbers of `back` and `none`."""
    plan: list[str] = []
    for name in CLASSES:
        if name == BACK:
            plan += [name] * per_back
        elif name == NONE:
            plan += [name] * per_none
        elif renderer.faces.get(name):
            # Flowers and seasons vary most between sets, and the white dragon (blank, framed, double-framed) must
            # not pass for a back: twice the renders.
            count = per_tile * (2 if name in "abcdefghP" else 1)
            plan += [name] * (round(count * boost_factor) if name in boost else count)
    patches = []
    for i, name in enumerate(plan, start=1):
        patches.append(renderer.render(name))
        if progress is not None and (i % 2000 == 0 or i == len(plan)):
            progress(f"renders: {i}/{len(plan)}")
    if not patches:
        return PatchSet.empty()
    labels = np.array([CLASS_INDEX[n] for n in plan], np.int64)
    return PatchSet(np.stack(patches), labels, np.full(len(plan), -1, np.int64), np.zeros(len(plan), bool), [])


def background_photos(split_dir: Path, count: int, seed: int) -> list[np.ndarray]:
    """A few real photos to cut backgrounds from (downscaled; tiles in them act as realistic clutter)."""
    images = sorted((Path(split_dir) / "images").glob("*.jpg"))
    if not images:
        return []
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(images), size=min(count, len(images)), replace=False)
    photos = []
    for i in picks:
        image = cv2.imread(str(images[i]), cv2.IMREAD_COLOR)
        if image is not None:
            photos.append(cv2.resize(image, (320, 320), interpolation=cv2.INTER_AREA))
    return photos


__all__ = ["FACE_H", "FACE_W", "Renderer", "background_photos", "render_set"]
