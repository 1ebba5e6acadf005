"""Cut one tile out of a photo as a fixed-size, upright, letterboxed image for the classifier.

A tile is given as an axis-aligned box or as a quadrilateral (four corners, e.g. from the detector). The quad is
rectified with one perspective warp straight into the output size, so the tile is resampled once. The scale is
uniform: a tile's aspect ratio is kept (stretching turns dots into ellipses, which the classifier never saw) and the
space left over around it is filled with the photo around the tile, not with bars, so a crop looks the same whether
the tile touches its neighbours or lies alone. A tile whose quad is wider than tall is turned upright first; which
way it turns cannot be known from the quad, so the classifier is trained to read tiles upside down too.

Public API (all coordinates are pixels of the image passed in):
- `quad_from_box(x0, y0, x1, y1)` -> (4, 2) float32 corners (top-left, top-right, bottom-right, bottom-left);
- `order_quad(points)` -> the same four corners in that order, whatever order they came in;
- `crop_quad(image, quad, spec)` -> (spec.height, spec.width, 3) uint8 crop of one tile;
- `crop_box(image, box, spec)` -> the same for an (x0, y0, x1, y1) box;
- `crop_tiles(image, quads, spec)` -> (N, height, width, 3) uint8 batch, ready for `TileClassifier.classify`.
`CropSpec` says the output size, the margin around the tile and whether sideways tiles are turned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision.letterbox import PAD_GREY


@dataclass(frozen=True)
class CropSpec:
    """How a tile becomes a classifier input.

    width, height: output size in pixels (the classifier's input size; its model metadata says which).
    pad: margin added on every side, as a fraction of the tile's own width / height, before fitting the output.
    turn_sideways: turn a tile whose quad is wider than tall by 90 degrees so that it stands upright.
    border: 'replicate' or 'constant' (grey) for the parts of the output that fall outside the photo.
    max_aspect: a tile face is about 1.3-1.5 times as tall as wide; a quad more than `max_aspect` times taller
        than wide (after turning) can only come from a photo that was stretched non-uniformly (dataset exports
        squeeze every photo to 640x640: a strip photo of one row becomes tiles 12 times taller than wide). Such a
        quad is resampled to `stretched_aspect`, undoing the stretch, instead of shrinking the tile to a sliver.
        0 turns this off. 2.4 measured against lower bars (session 18, issue 18; `evaluate.py --all` and
        `eval_classifier.py` with the bar patched): riichi-table-leomiura's frames, squeezed 1.5x by their export,
        show standing tiles about 2.4 times taller than wide, so a crop widened to the model's aspect shows the
        neighbours' faces; at 2.2 its labelled boxes read 0.912 -> 0.938 and end to end 0.817 -> 0.831, but its
        precision fell 0.843 -> 0.836 (false boxes, de-stretched, read as tiles instead of `none`), large tiles end
        to end 0.828 -> 0.826 and dev squeezed 0.480 -> 0.477 (dev 0.9248 -> 0.9246 on labelled boxes; 2.0 and
        1.8: 0.9238 and 0.9231, riichi 0.938 and 0.947): not changed.
    """

    width: int = 64
    height: int = 80
    pad: float = 0.08
    turn_sideways: bool = True
    border: str = "replicate"
    max_aspect: float = 2.4
    stretched_aspect: float = 1.45

    def __post_init__(self) -> None:
        if self.width < 4 or self.height < 4:
            raise FanscanError(f"crop size {self.width}x{self.height} is too small (at least 4x4)")
        if not 0.0 <= self.pad < 2.0:
            raise FanscanError(f"crop padding {self.pad} is outside 0..2")
        if self.border not in ("replicate", "constant"):
            raise FanscanError(f"crop border {self.border!r} is not 'replicate' or 'constant'")
        if self.max_aspect and not 1.0 <= self.stretched_aspect <= self.max_aspect:
            raise FanscanError(f"stretched_aspect {self.stretched_aspect} is outside 1..max_aspect ({self.max_aspect})")


DEFAULT_SPEC = CropSpec()
_GREY = (PAD_GREY,) * 3  # a constant border is the letterbox grey


def quad_from_box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """The four corners (tl, tr, br, bl) of an axis-aligned box."""
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)


def order_quad(points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """Four corners in the order top-left, top-right, bottom-right, bottom-left (image coordinates, y down)."""
    pts = np.asarray(points, dtype=np.float32).reshape(-1, 2)
    if pts.shape != (4, 2):
        raise FanscanError(f"a tile quad needs 4 finite (x, y) corners, got shape {tuple(np.shape(points))}")
    return order_quads(pts[None])[0]


def order_quads(quads: np.ndarray) -> np.ndarray:
    """`order_quad` of each of N quads (N, 4, 2) at once (a hand's 14 in one pass, not 14)."""
    pts = np.asarray(quads, dtype=np.float32)
    if pts.ndim != 3 or pts.shape[1:] != (4, 2) or not np.all(np.isfinite(pts)):
        raise FanscanError(f"a tile quad needs 4 finite (x, y) corners, got {pts.shape[1:]} or a non-finite one")
    offsets = pts - pts.mean(axis=1, keepdims=True)
    angles = np.arctan2(offsets[..., 1], offsets[..., 0])
    # Clockwise on screen (y down), starting anywhere; then from the top-left corner, the one of smallest x + y.
    pts = np.take_along_axis(pts, np.argsort(angles, axis=1)[..., None], axis=1)
    start = np.argmin(pts[..., 0] + pts[..., 1], axis=1)
    turn = (start[:, None] + np.arange(4)) % 4
    return np.take_along_axis(pts, turn[..., None], axis=1)


def quad_size(quad: np.ndarray) -> tuple[float, float]:
    """Mean width (top and bottom edges) and mean height (left and right edges) of an ordered quad."""
    tl, tr, br, bl = quad
    width = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    height = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    return float(width), float(height)


def crop_transform(quad: np.ndarray, spec: CropSpec = DEFAULT_SPEC) -> np.ndarray:
    """The 3x3 homography taking image coordinates to crop coordinates for an ordered quad (see `crop_quad`)."""
    quad = np.asarray(quad, dtype=np.float32)
    width, height = quad_size(quad)
    if width < 1.0 or height < 1.0:
        raise FanscanError(f"tile quad of {width:.1f}x{height:.1f} px is too small to crop")
    if spec.turn_sideways and width > height:
        # Corner order (bl, tl, tr, br): the tile's left edge becomes the top, i.e. a quarter turn clockwise.
        quad = np.roll(quad, 1, axis=0)
        width, height = height, width
    if spec.max_aspect and height > spec.max_aspect * width:
        # A stretched photo: give the tile a plausible shape back (the one non-uniform resampling we allow).
        width = height / spec.stretched_aspect
    padded_w, padded_h = width * (1 + 2 * spec.pad), height * (1 + 2 * spec.pad)
    # One scale for both axes: the padded tile fits the output; the longer output side gets extra photo around it.
    scale = min(spec.width / padded_w, spec.height / padded_h)
    half_w, half_h = width * scale / 2, height * scale / 2
    cx, cy = spec.width / 2, spec.height / 2
    left, right, top, bottom = cx - half_w, cx + half_w, cy - half_h, cy + half_h
    target = np.array([[left, top], [right, top], [right, bottom], [left, bottom]], dtype=np.float32)
    return cv2.getPerspectiveTransform(quad, target)


def _check_image(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise FanscanError("crop source must be a non-empty H x W (x 3) image array")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def crop_quad(
    image: np.ndarray, quad: np.ndarray | Sequence[Sequence[float]], spec: CropSpec = DEFAULT_SPEC
) -> np.ndarray:
    """One tile, rectified, upright and letterboxed: a (spec.height, spec.width, 3) uint8 array.

    `quad` is four (x, y) corners in any order; they are put in tl, tr, br, bl order first. The tile keeps its
    aspect ratio and is centred with `spec.pad` of its size as margin on every side at least.
    """
    return _crop_ordered(_check_image(image), order_quad(quad), spec)


def _crop_ordered(image: np.ndarray, quad: np.ndarray, spec: CropSpec) -> np.ndarray:
    matrix = crop_transform(quad, spec)
    scale = np.sqrt(abs(np.linalg.det(matrix[:2, :2])))
    if scale < 0.5:
        # Big tile, small output: shrink the neighbourhood with area averaging first, then warp (no aliasing).
        image, matrix = _shrink_around(image, matrix, spec, scale)
    border = cv2.BORDER_REPLICATE if spec.border == "replicate" else cv2.BORDER_CONSTANT
    return cv2.warpPerspective(
        image, matrix, (spec.width, spec.height), flags=cv2.INTER_LINEAR, borderMode=border, borderValue=_GREY
    )


def _shrink_around(
    image: np.ndarray, matrix: np.ndarray, spec: CropSpec, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """The part of `image` the crop reads, downscaled by about `scale`, and the warp adjusted to it."""
    corners = np.array([[0, 0], [spec.width, 0], [spec.width, spec.height], [0, spec.height]], dtype=np.float32)
    source = cv2.perspectiveTransform(corners[None], np.linalg.inv(matrix))[0]
    h, w = image.shape[:2]
    x0, y0 = (int(max(0, np.floor(v) - 2)) for v in source.min(axis=0))
    x1, y1 = int(min(w, np.ceil(source[:, 0].max()) + 2)), int(min(h, np.ceil(source[:, 1].max()) + 2))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return image, matrix
    factor = min(1.0, 2.0 * scale)  # leave the final warp a 2x reduction, which bilinear handles well
    region = image[y0:y1, x0:x1]
    size = (max(1, round(region.shape[1] * factor)), max(1, round(region.shape[0] * factor)))
    small = cv2.resize(region, size, interpolation=cv2.INTER_AREA)
    fx, fy = size[0] / region.shape[1], size[1] / region.shape[0]
    to_region = np.array([[fx, 0, -x0 * fx], [0, fy, -y0 * fy], [0, 0, 1]], dtype=np.float64)
    return small, matrix @ np.linalg.inv(to_region)


def crop_box(image: np.ndarray, box: Sequence[float], spec: CropSpec = DEFAULT_SPEC) -> np.ndarray:
    """`crop_quad` for an axis-aligned (x0, y0, x1, y1) box."""
    if len(box) != 4:
        raise FanscanError(f"a tile box needs 4 numbers (x0, y0, x1, y1), got {len(box)}")
    x0, y0, x1, y1 = (float(v) for v in box)
    return crop_quad(image, quad_from_box(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)), spec)


def crop_tiles(
    image: np.ndarray, quads: Sequence[np.ndarray | Sequence[Sequence[float]]], spec: CropSpec = DEFAULT_SPEC
) -> np.ndarray:
    """Every quad of one image as a (N, spec.height, spec.width, 3) uint8 batch (N may be 0)."""
    image = _check_image(image)
    if len(quads) == 0:
        return np.zeros((0, spec.height, spec.width, 3), dtype=np.uint8)
    if any(np.size(quad) != 8 for quad in quads):
        shapes = sorted({np.shape(quad) for quad in quads})
        raise FanscanError(f"a tile quad needs 4 finite (x, y) corners, got shapes {shapes}")
    ordered = order_quads(np.array([np.asarray(quad, np.float32).reshape(4, 2) for quad in quads]))
    return np.stack([_crop_ordered(image, quad, spec) for quad in ordered])


def zoom_crop(crop: np.ndarray, zoom: float) -> np.ndarray:
    """The centre 1/zoom of a cut crop, scaled back to the crop's size (zoom >= 1; 1: the crop itself). A set profile
    reads its set's crops this way when that set's boxes sit looser around the faces than the classifier learnt
    (`fanscan.calibration.fit`, `CROP_ZOOMS`)."""
    if zoom == 1.0:
        return crop
    if not zoom > 1.0 or not np.isfinite(zoom):
        raise FanscanError(f"a crop zoom must be a finite number of at least 1, got {zoom}")
    height, width = crop.shape[:2]
    # scale by `zoom` about the crop's centre: its centre 1/zoom fills the output
    matrix = np.array([[zoom, 0, (1 - zoom) * width / 2], [0, zoom, (1 - zoom) * height / 2]], np.float64)
    return cv2.warpAffine(np.ascontiguousarray(crop), matrix, (width, height), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
