"""Training samples for the tile-proposal net: augmented crops of labelled photos and their CenterNet targets.

numpy + OpenCV only (no torch), so the augmentation can be inspected and tested without the training extra.

Each sample is a random square crop of a training photo, resized so tiles appear at the sizes the detector meets at
inference (a 640-px photo letterboxed to 384 px, plus close-ups), with colour / blur / noise / JPEG jitter.
Before cropping, some samples get composites the labels never show (see `composite_extras`): rendered face-down
backs pasted over labelled tiles, and tiles turned sideways; both are tiles the detector must propose (a concealed
kong shows two backs, a claimed tile lies sideways), while the photos' own unlabelled backs teach the opposite.
"""

from __future__ import annotations

import math
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from fanscan.training.faces import Face
from fanscan.training.label_repair import fill_colour, repair
from fanscan.training.renders import face_on_body, ivory_colour, paste_masked, rounded_mask, tile_with_thickness
from fanscan.vision.photometric import jpeg_roundtrip
from fanscan.vision.splits import source_of
from fanscan.vision.yolo_data import iter_split

STRIDE = 4
# Where a photo's scale lands: mostly the range of a 640-px photo seen at 384 px, a tail of close-ups.
SCALE_RANGE = (0.42, 0.95)
CLOSEUP_SCALE_RANGE = (0.95, 2.2)
CLOSEUP_PROBABILITY = 0.2
# A large crop (`random_sample`'s `large_crop`): one labelled tile's long side this share of the crop, its
# neighbours around it as the photo shows them. The close-up net read the large tiles built from dev windows
# (benchmarks/eval_large_tiles.py) with two touching tiles in one box, or a box across two halves (session 20: 64 of
# 96 misses), and its sheets show a run cut out alone; the shares span what its input shows at 384 px (a tile of
# 15-70 % of the frame, and half that in its scale pass's shrunk view).
LARGE_CROP_SHARE = (0.12, 0.85)
# Largest width:height change of a squeezed photo. Sized from the test split's squeezed photo (about 6x), a use of
# test logged in benchmarks/TEST-LOG.md; the development split has squeezed copies too (evaluate.py's group).
MAX_STRETCH = 8.0
# A box cut by the crop edge stays a positive if this much of it is still inside; less, and it is ignored.
MIN_VISIBLE_FRACTION = 0.5
# Back colours of common sets (BGR): light blue, dark blue, green, yellow, orange, red, black, pink.
BACK_COLOURS = (
    (225, 190, 110), (150, 80, 20), (60, 130, 40), (40, 190, 230), (30, 120, 235),
    (40, 40, 200), (35, 35, 35), (180, 150, 235), (200, 200, 90),
)
IVORY = (225, 238, 244)
# `restyle_tiles`: share of a tile's box kept as the photo shows it on each side (its rim, the side showing), and
# the least side a tile needs to be worth repainting.
RESTYLE_INSET = (0.0, 0.04)
RESTYLE_MIN_SIDE = 8


@dataclass
class TrainImage:
    """One training photo in memory, with its boxes in pixels (x0, y0, x1, y1)."""

    name: str
    image: np.ndarray
    boxes: np.ndarray  # float32 (N, 4)
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))  # labels not to be trusted
    repaired: bool = False  # turned back by label_repair: its boxes are unmixed estimates, its corners fill


@dataclass
class Sample:
    image: np.ndarray  # uint8 BGR, size x size
    boxes: np.ndarray  # float32 (N, 4) pixels in the crop, positives
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))  # regions neither pos nor neg
    restyled: bool = False  # its tiles or table wear colours or faces the photo does not (`restyle_tiles`, `turn_hue`)


def load_split(split_dir: Path, exclude_groups: set[str] | None = None, repair_labels: bool = False
               ) -> list[TrainImage]:
    """All photos of a YOLO split with their boxes; polygon labels count as boxes (see `vision.yolo_data`).

    With `repair_labels`, a photo the upstream export rotated or sheared is turned back and its loose boxes made
    tight (`fanscan.training.label_repair`); boxes that cannot be trusted become ignored regions, and a transformed
    photo whose transform cannot be undone is left out. Polygon-labelled photos keep their boxes: those were taken
    around the transformed polygon, so they are already tight.
    """
    images: list[TrainImage] = []
    for item in iter_split(Path(split_dir)):
        group = source_of(item.image_path.name)
        if exclude_groups and group in exclude_groups:
            continue
        image = cv2.imread(str(item.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        boxes = np.array([b.to_pixels(w, h) for b in item.boxes], np.float32).reshape(-1, 4)
        ignore = np.zeros((0, 4), np.float32)
        turned_back = repair_labels and not any(b.from_polygon for b in item.boxes) and fill_colour(image) is not None
        if turned_back:
            repaired = repair(image, boxes)
            if repaired is None:
                continue
            image, boxes, ignore = repaired.image, repaired.boxes[repaired.good], repaired.boxes[~repaired.good]
        images.append(TrainImage(item.image_path.name, image, boxes, ignore, repaired=turned_back))
    return images


def rasterise_backs(svg_paths: list[Path], cache_dir: Path, height: int = 200) -> list[np.ndarray]:
    """Alpha masks (float32 0..1) of the tile-back artwork, rendered once with `rsvg-convert` and cached as PNG."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    masks = []
    for svg in svg_paths:
        png = cache_dir / f"{svg.parent.name}-{svg.stem}-{height}.png"
        if not png.exists():
            subprocess.run(
                ["rsvg-convert", "-h", str(height), str(svg), "-o", str(png)], check=True, capture_output=True
            )
        rgba = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
            raise RuntimeError(f"{png}: expected an RGBA rendering of {svg}")
        masks.append(rgba[:, :, 3].astype(np.float32) / 255.0)
    return masks


def rounded_rect_mask(height: int = 200, width: int = 150) -> np.ndarray:
    """A stand-in back shape for when no rendered artwork is at hand (smoke runs, no librsvg)."""
    mask = np.zeros((height, width), np.uint8)
    r = width // 10
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in ((r, r), (width - 1 - r, r), (r, height - 1 - r), (width - 1 - r, height - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return mask.astype(np.float32) / 255.0


def render_back(mask: np.ndarray, width: int, height: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A face-down tile seen from above, `width` x `height` px: coloured back, maybe an ivory edge, shading.

    Returns (BGR float32 image, alpha float32).
    """
    portrait = height >= width
    long_side, short_side = (height, width) if portrait else (width, height)
    alpha = cv2.resize(mask, (short_side, long_side), interpolation=cv2.INTER_AREA)
    colour = np.array(BACK_COLOURS[rng.integers(len(BACK_COLOURS))], np.float32)
    colour = np.clip(colour * rng.uniform(0.75, 1.2) + rng.normal(0, 12, 3), 0, 255)
    tile = np.empty((long_side, short_side, 3), np.float32)
    tile[:] = colour
    if rng.random() < 0.7:
        # The front (ivory) layer shows along the edge nearest the camera on two-layer tiles.
        band = max(1, int(long_side * rng.uniform(0.05, 0.25)))
        tile[long_side - band:] = np.array(IVORY, np.float32) * rng.uniform(0.8, 1.05)
    # Light falls across the tile: a linear gradient and a soft highlight.
    ramp = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(0.9, 1.15), long_side, dtype=np.float32)[:, None, None]
    tile *= ramp
    tile += rng.normal(0, 4, tile.shape).astype(np.float32)
    if not portrait:
        k = 1 if rng.random() < 0.5 else 3
        tile, alpha = np.rot90(tile, k).copy(), np.rot90(alpha, k).copy()
    elif rng.random() < 0.5:
        tile, alpha = tile[::-1].copy(), alpha[::-1].copy()
    return np.clip(tile, 0, 255), alpha


def paste(image: np.ndarray, patch: np.ndarray, alpha: np.ndarray, x0: int, y0: int) -> None:
    """Alpha-blend `patch` into `image` at (x0, y0), clipped to the image."""
    h, w = alpha.shape
    ih, iw = image.shape[:2]
    ax0, ay0, ax1, ay1 = max(0, x0), max(0, y0), min(iw, x0 + w), min(ih, y0 + h)
    if ax1 <= ax0 or ay1 <= ay0:
        return
    a = alpha[ay0 - y0:ay1 - y0, ax0 - x0:ax1 - x0, None]
    p = patch[ay0 - y0:ay1 - y0, ax0 - x0:ax1 - x0]
    region = image[ay0:ay1, ax0:ax1].astype(np.float32)
    image[ay0:ay1, ax0:ax1] = np.clip(region * (1 - a) + p * a, 0, 255).astype(np.uint8)


def box_overlap_fraction(boxes: np.ndarray, region: tuple[float, float, float, float]) -> np.ndarray:
    """For each box, the fraction of its area inside `region`."""
    if len(boxes) == 0:
        return np.zeros(0, np.float32)
    ix0 = np.maximum(boxes[:, 0], region[0])
    iy0 = np.maximum(boxes[:, 1], region[1])
    ix1 = np.minimum(boxes[:, 2], region[2])
    iy1 = np.minimum(boxes[:, 3], region[3])
    inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
    area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-6)
    return inter / area


def _tight_tile_indices(boxes: np.ndarray) -> np.ndarray:
    """Boxes whose aspect says the tile lies along the image axes (a tile turned 45 degrees has a square box)."""
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    ratio = np.maximum(w, h) / np.maximum(np.minimum(w, h), 1e-6)
    return np.flatnonzero((ratio > 1.15) & (ratio < 1.8) & (np.minimum(w, h) >= 6))


def composite_extras(
    image: np.ndarray, boxes: np.ndarray, back_masks: list[np.ndarray], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paste face-down backs and sideways tiles into a photo. Returns (image, positive boxes, ignored boxes).

    - backs over 1-3 labelled tiles (same box: the row context of a concealed kong stays real);
    - one labelled tile turned a quarter and pasted where it was (a claimed tile lying sideways in its row);
      neighbours it mostly covers are ignored rather than called background;
    - a few backs on free table space.
    """
    image = image.copy()
    boxes = boxes.copy()
    ignore: list[np.ndarray] = []
    keep = np.ones(len(boxes), bool)
    tight = _tight_tile_indices(boxes) if len(boxes) else np.zeros(0, int)
    if len(tight) and rng.random() < 0.5:
        start = int(rng.integers(len(tight)))
        for index in tight[start:start + int(rng.integers(1, 4))]:
            x0, y0, x1, y1 = boxes[index]
            w, h = round(float(x1 - x0)), round(float(y1 - y0))
            patch, alpha = render_back(back_masks[rng.integers(len(back_masks))], w, h, rng)
            paste(image, patch, alpha, round(float(x0)), round(float(y0)))
    if len(tight) and rng.random() < 0.35:
        index = int(tight[rng.integers(len(tight))])
        x0, y0, x1, y1 = boxes[index].round().astype(int)
        tile = image[max(0, y0):y1, max(0, x0):x1].copy()
        if tile.size:
            turned = np.rot90(tile, 1 if rng.random() < 0.5 else 3).copy()
            th, tw = turned.shape[:2]
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            nx0, ny0 = round(float(cx - tw / 2)), round(float(cy - th / 2))
            region = (nx0, ny0, nx0 + tw, ny0 + th)
            covered = box_overlap_fraction(boxes, region)
            for other in np.flatnonzero(covered > 0.25):
                if other != index:
                    keep[other] = False
                    ignore.append(boxes[other].copy())
            paste(image, turned.astype(np.float32), np.ones((th, tw), np.float32), nx0, ny0)
            boxes[index] = np.array(region, np.float32)
    extra_boxes = []
    if rng.random() < 0.3:
        ih, iw = image.shape[:2]
        typical = np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])) if len(boxes) else 50
        for _ in range(int(rng.integers(1, 4))):
            long_side = float(np.clip(typical * rng.uniform(0.7, 1.3), 10, min(ih, iw) / 2))
            short_side = long_side * rng.uniform(0.68, 0.8)
            w, h = (short_side, long_side) if rng.random() < 0.6 else (long_side, short_side)
            x0, y0 = rng.uniform(0, iw - w), rng.uniform(0, ih - h)
            region = (x0, y0, x0 + w, y0 + h)
            if len(boxes) and box_overlap_fraction(boxes, region).max() > 0.05:
                continue
            patch, alpha = render_back(back_masks[rng.integers(len(back_masks))], int(w), int(h), rng)
            paste(image, patch, alpha, int(x0), int(y0))
            extra_boxes.append(np.array([int(x0), int(y0), int(x0) + int(w), int(y0) + int(h)], np.float32))
    positives = boxes[keep]
    if extra_boxes:
        positives = np.concatenate([positives, np.stack(extra_boxes)])
    ignored = np.stack(ignore) if ignore else np.zeros((0, 4), np.float32)
    return image, positives.astype(np.float32), ignored.astype(np.float32)


def row_of(boxes: np.ndarray, index: int) -> list[int]:
    """Indices of the upright boxes that touch `index`'s box in one horizontal row, left to right."""
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    same = (np.abs(cy - cy[index]) < 0.25 * h[index]) & (np.abs(h - h[index]) < 0.2 * h[index]) & (h > w)
    members = sorted(np.flatnonzero(same), key=lambda i: boxes[i, 0])

    def touching(a: int, b: int) -> bool:  # b is the next box to the right of a
        return abs(boxes[b, 0] - boxes[a, 2]) <= 0.35 * w[index]

    left = right = members.index(index)
    while left > 0 and touching(members[left - 1], members[left]):
        left -= 1
    while right < len(members) - 1 and touching(members[right], members[right + 1]):
        right += 1
    return [int(i) for i in members[left:right + 1]]


def relay_row(image: np.ndarray, boxes: np.ndarray, back_masks: list[np.ndarray], rng: np.random.Generator
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A row of touching upright tiles laid out again from its own crops, with one or two face down (rendered
    backs) and maybe one turned a quarter (a claimed tile), all on the row's bottom line.

    The row's strip is first covered with the strip just above it; that strip is returned as ignored (it may copy
    unlabelled parts of other tiles). Returns (image, boxes, ignored) or None without a suitable row.
    """
    upright = np.flatnonzero((boxes[:, 3] - boxes[:, 1]) > 1.15 * (boxes[:, 2] - boxes[:, 0]))
    if len(upright) == 0:
        return None
    row = row_of(boxes, int(upright[rng.integers(len(upright))]))
    if len(row) < 4:
        return None
    tight = boxes[row].round().astype(int)
    top, bottom = int(tight[:, 1].min()), int(tight[:, 3].max())
    height = bottom - top
    x_start, x_end = int(max(0, tight[:, 0].min())), int(tight[:, 2].max())
    if top - height < 0 or height < 6:
        return None
    picture = image.copy()
    crops = [image[max(0, y0):y1, max(0, x0):x1].copy() for x0, y0, x1, y1 in tight]
    picture[top:bottom, x_start:x_end] = image[top - height:top, x_start:x_end]
    first_back = int(rng.integers(len(crops)))
    backs = {first_back, first_back + 1} if rng.random() < 0.6 else {first_back}
    sideways = int(rng.integers(len(crops))) if rng.random() < 0.7 else -1
    new_boxes = []
    x = x_start
    for i, crop in enumerate(crops):
        if crop.size == 0:
            continue
        if i == sideways:
            crop = np.rot90(crop, 1 if rng.random() < 0.5 else 3).copy()
        h, w = crop.shape[:2]
        if x + w > picture.shape[1]:
            break
        y = max(0, bottom - h)
        if i in backs:
            patch, alpha = render_back(back_masks[int(rng.integers(len(back_masks)))], w, bottom - y, rng)
            paste(picture, patch, alpha, x, y)
        else:
            picture[y:bottom, x:x + w] = crop[h - (bottom - y):]
        new_boxes.append([x, y, x + w, bottom])
        x += w
    keep = np.ones(len(boxes), bool)
    keep[row] = False
    # Tiles partly under the rebuilt strip are neither positives nor background.
    strip = (x_start, top, max(x, x_end), bottom)
    covered = box_overlap_fraction(boxes, strip) > 0
    ignored = [boxes[i] for i in np.flatnonzero(covered & keep)]
    keep &= ~covered
    positives = np.concatenate([boxes[keep], np.array(new_boxes, np.float32).reshape(-1, 4)])
    ignored.append(np.array(strip, np.float32))
    return picture, positives.astype(np.float32), np.stack(ignored).astype(np.float32)


# Close-ups on paper (issue 18: another maker's phone photos are mostly one large tile on white paper; the table
# photos' close-up tail, 0.95-2.2x, never shows a tile a third of the frame or more): a run of 1-4 neighbouring tiles
# cut out of a training photo and laid on a sheet, its long side this share of the crop.
PAPER_RUN_SHARE = (0.22, 0.95)
PAPER_RUN_LENGTHS = (1, 1, 1, 2, 3, 4)
PAPER_MARGIN = 0.06  # the cut reaches this share of the run's tile height beyond its boxes
PAPER_SHEET = 1.5  # the sheet's side over the crop's, so that a turn of the view shows no corners
RENDERED_SHARE = 0.5  # of the sheets, when rendered faces are at hand
PAPER_NEIGHBOUR = 0.08  # the most of a neighbour's area a cut may show (a sliver at the edge, left ignored)


def paper_sheet(side: int, rng: np.random.Generator) -> np.ndarray:
    """A plain sheet to lay tiles on: mostly white or grey paper, sometimes a coloured cloth or board; with a light
    gradient across it and fine grain."""
    paper = rng.random() < 0.7
    base = rng.uniform(185, 252) + rng.normal(0, 6, 3) if paper else rng.uniform(30, 235, 3)
    ramp = np.linspace(-1, 1, side, dtype=np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    gradient = 1 + rng.uniform(0, 0.18) * (math.cos(angle) * ramp[None, :] + math.sin(angle) * ramp[:, None])
    sheet = base[None, None, :].astype(np.float32) * gradient[:, :, None]
    sheet += rng.normal(0, rng.uniform(1, 5), (side, side, 1)).astype(np.float32)
    return np.clip(sheet, 0, 255).astype(np.uint8)


def cuttable(item: TrainImage) -> bool:
    """Whether `paper_close_up` may cut tiles out of `item`: a photo with its published labels, all trusted (a
    repaired photo's boxes are estimates and its corners show the fill)."""
    return len(item.boxes) > 0 and not item.repaired and not len(item.ignore)


def paper_close_up(item: TrainImage, size: int, rng: np.random.Generator,
                   run_share: tuple[float, float] = PAPER_RUN_SHARE
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A run of 1-4 neighbouring tiles of `item` cut out and laid on a sheet (`paper_sheet`), the run's long side
    `run_share` of `size` (default `PAPER_RUN_SHARE`), somewhere in the sheet's central `size` x `size`; a faint
    shadow under it.

    Returns (sheet image of side `PAPER_SHEET` x `size`, the run's boxes, ignored boxes: other tiles the cut shows
    a part of), or None when the photo has no tile to cut cleanly. Only `cuttable` photos are cut, and a cut another
    tile reaches into by more than `PAPER_NEIGHBOUR` of that tile's area is not used: the sheet is to show whole
    tiles."""
    if not cuttable(item):
        return None
    boxes = item.boxes
    index = int(rng.integers(len(boxes)))
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    if min(w[index], h[index]) < 8:
        return None
    run = [index]
    if h[index] > w[index]:
        row = row_of(boxes, index)
        length = min(len(row), int(rng.choice(PAPER_RUN_LENGTHS)))
        at = row.index(index)
        first = int(rng.integers(max(0, at - length + 1), min(at, len(row) - length) + 1))
        run = row[first:first + length]
    tiles = boxes[run]
    others = np.ones(len(boxes), bool)
    others[run] = False
    ih, iw = item.image.shape[:2]
    # The margin shrinks to nothing before a neighbour is let into the cut.
    for margin in (PAPER_MARGIN * float(max(h[run].max(), w[run].max())), 0.0):
        x0, y0 = tiles[:, 0].min() - margin, tiles[:, 1].min() - margin
        x1, y1 = tiles[:, 2].max() + margin, tiles[:, 3].max() + margin
        cx0, cy0 = int(max(0, math.floor(x0))), int(max(0, math.floor(y0)))
        cx1, cy1 = int(min(iw, math.ceil(x1))), int(min(ih, math.ceil(y1)))
        reach = box_overlap_fraction(boxes[others], (cx0, cy0, cx1, cy1))
        if not len(reach) or reach.max() <= PAPER_NEIGHBOUR:
            break
    else:
        return None
    if cx1 - cx0 < 8 or cy1 - cy0 < 8:
        return None
    cut = item.image[cy0:cy1, cx0:cx1]
    scale = rng.uniform(*run_share) * size / max(cx1 - cx0, cy1 - cy0)
    out_w, out_h = max(2, round((cx1 - cx0) * scale)), max(2, round((cy1 - cy0) * scale))
    if out_w > size or out_h > size:
        return None
    cut = cv2.resize(cut, (out_w, out_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    side = round(size * PAPER_SHEET)
    sheet = paper_sheet(side, rng)
    low = (side - size) // 2
    px = low + int(rng.integers(0, size - out_w + 1))
    py = low + int(rng.integers(0, size - out_h + 1))
    # A soft shadow: tiles stand on the sheet.
    shadow = np.zeros((side, side), np.float32)
    offset = int(rng.integers(0, max(1, out_h // 12) + 1))
    shadow[py + offset:py + offset + out_h, px + offset:px + offset + out_w] = rng.uniform(0.1, 0.4)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, out_h / 25))
    sheet = (sheet.astype(np.float32) * (1 - shadow[:, :, None])).astype(np.uint8)
    sheet[py:py + out_h, px:px + out_w] = cut
    shift = np.array([px - cx0 * scale, py - cy0 * scale] * 2, np.float32)
    inside = box_overlap_fraction(boxes, (cx0, cy0, cx1, cy1)) > 0
    parts = np.clip(boxes[others & inside], [cx0, cy0, cx0, cy0], [cx1, cy1, cx1, cy1])
    return (sheet, (boxes[run] * np.float32(scale) + shift).astype(np.float32),
            (parts * np.float32(scale) + shift).astype(np.float32).reshape(-1, 4))


# A tile that fills its photo (a crop cut out of a larger photo, a phone held close; hk-crops-justinchan is such
# crops): the close-up net reads that photo as it is and in its own scale pass's shrunk view (`vision.scale`), and
# neither view is in the sheets above, whose tiles lie on a sheet with room around them (session 16: on hk-crops the
# net took a filled tile's dots or halves for tiles). The cut lies up to this share of the box inside each edge.
FILLED_INSET = (0.0, 0.05)
FILLED_SHRUNK = 0.5  # share of the filled samples shown as the scale pass shows the photo (shrunk into its border)


def filled_close_up(item: TrainImage, size: int, rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One labelled tile of `item` cut at its box (up to `FILLED_INSET` inside it) as a photo of its own, shown to
    the net as inference shows that photo: its long side `size` at the top left of the letterbox grey, or
    (`FILLED_SHRUNK` of the time) first shrunk into a canvas of its border's colour
    (`vision.scale.shrunk_into_canvas`, the scale pass's view). Same return as `paper_close_up` (the view lies in the
    sheet's central `size` x `size`, the rest grey; no ignored boxes), or None when the photo has no tile to cut."""
    from fanscan.vision.letterbox import PAD_GREY
    from fanscan.vision.scale import shrunk_into_canvas

    if not cuttable(item):
        return None
    x0, y0, x1, y1 = (float(v) for v in item.boxes[int(rng.integers(len(item.boxes)))])
    w, h = x1 - x0, y1 - y0
    if min(w, h) < 16:
        return None
    left, top, right, bottom = (float(v) for v in rng.uniform(*FILLED_INSET, 4) * np.array([w, h, w, h]))
    ih, iw = item.image.shape[:2]
    cx0, cy0 = round(max(0.0, x0 + left)), round(max(0.0, y0 + top))
    cx1, cy1 = round(min(float(iw), x1 - right)), round(min(float(ih), y1 - bottom))
    if cx1 - cx0 < 8 or cy1 - cy0 < 8:
        return None
    photo = np.ascontiguousarray(item.image[cy0:cy1, cx0:cx1])
    ph, pw = photo.shape[:2]
    box = np.array([0.0, 0.0, pw, ph])
    if rng.random() < FILLED_SHRUNK:
        photo, placed_small = shrunk_into_canvas(photo)
        box = np.array(placed_small, np.float64)
    scale = size / max(ph, pw)
    out_w, out_h = min(size, max(1, round(pw * scale))), min(size, max(1, round(ph * scale)))
    view = cv2.resize(photo, (out_w, out_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    side = round(size * PAPER_SHEET)
    low = (side - size) // 2
    sheet = np.full((side, side, 3), PAD_GREY, np.uint8)
    sheet[low:low + out_h, low:low + out_w] = view
    placed = box * np.array([out_w / pw, out_h / ph] * 2) + low
    return sheet, placed.astype(np.float32).reshape(1, 4), np.zeros((0, 4), np.float32)


def rendered_close_up(faces: list[Face], size: int, rng: np.random.Generator,
                      run_share: tuple[float, float] = PAPER_RUN_SHARE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """1-4 rendered tiles of one set (ivory body, a face of the classifier's artwork, the side showing) on a sheet,
    touching in a row or lying apart, the group's long side `run_share` of `size`: sharp large tiles of many
    face styles, which the training photos' own tiles, cut and enlarged, are not. Same return as `paper_close_up`;
    each box is the tile as seen (front and side)."""
    count = int(rng.choice(PAPER_RUN_LENGTHS))
    aspect = rng.uniform(0.68, 0.8)  # width over height of the tile's front
    gap = 0.0 if rng.random() < 0.6 else rng.uniform(0.1, 1.0)  # between tiles, in tile widths
    depth_share = rng.uniform(0.0, 0.15)  # the side's visible depth, in tile widths
    span = count * aspect + (count - 1) * gap * aspect + depth_share * aspect
    long_side = rng.uniform(*run_share) * size
    height = long_side / max(span, 1.0 + depth_share * aspect)
    width = max(4, round(height * aspect))
    height = max(6, round(height))
    depth_angle = rng.uniform(0, 2 * math.pi)
    depth = max(1, round(depth_share * width))
    dx, dy = round(depth * math.cos(depth_angle)), round(depth * math.sin(depth_angle))
    body, back = ivory_colour(rng), np.array(BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))], np.float32)
    side = round(size * PAPER_SHEET)
    sheet = paper_sheet(side, rng).astype(np.float32)
    tiles = []
    for _ in range(count):
        front = face_on_body(faces[int(rng.integers(len(faces)))], width, height, rng, body)
        image, mask, _ = tile_with_thickness(front, rng, back, (dx, dy))
        tiles.append((image, mask))
    total_w = sum(t[0].shape[1] for t in tiles) + round((count - 1) * gap * width)
    total_h = max(t[0].shape[0] for t in tiles)
    low = (side - size) // 2
    x = low + int(rng.integers(0, max(1, size - total_w + 1)))
    y = low + int(rng.integers(0, max(1, size - total_h + 1)))
    boxes = []
    shadow = np.zeros((side, side), np.float32)
    for _, mask in tiles:
        h, w = mask.shape
        shadow[y + 2:y + h + 2, x + 2:x + w + 2] = np.maximum(shadow[y + 2:y + h + 2, x + 2:x + w + 2],
                                                              (mask[: side - y - 2, : side - x - 2] > 0) * 0.3)
        boxes.append((x, y, x + w, y + h))
        x += w + round(gap * width)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, height / 25))
    sheet *= 1 - shadow[:, :, None]
    for (image, mask), (x0, y0, _, _) in zip(tiles, boxes, strict=True):
        paste_masked(sheet, image, mask, x0, y0)
    return (np.clip(sheet, 0, 255).astype(np.uint8), np.array(boxes, np.float32).reshape(-1, 4),
            np.zeros((0, 4), np.float32))


def restyle_tiles(image: np.ndarray, boxes: np.ndarray, faces: list[Face], rng: np.random.Generator) -> np.ndarray:
    """The photo with its labelled tiles wearing another set's faces. The training photos show a few physical sets;
    another maker's tiles differ most in their faces (ink, strokes, the pictures), and the net learnt to be sure of a
    tile partly from its face (session 32: riichi-table-leomiura's tiles peak at 0.2-0.3 where the familiar ones
    reach 0.4 and more). One style of the artwork for the whole photo, as a player's set is one style; each tile a
    face of a random kind on a body of its own brightness (or a whiter one, as many sets are), inset in its box so
    that its rim and the side showing stay real. The boxes do not move."""
    by_style: dict[str, list[Face]] = {}
    for face in faces:
        by_style.setdefault(face.style, []).append(face)
    style = sorted(by_style)[int(rng.integers(len(by_style)))]
    pool = by_style[style]
    out = image.astype(np.float32)
    ih, iw = image.shape[:2]
    white = rng.random() < 0.5
    for box in boxes:
        x0, y0, x1, y1 = (float(v) for v in box)
        w, h = x1 - x0, y1 - y0
        if min(w, h) < RESTYLE_MIN_SIDE:
            continue
        left, top, right, bottom = rng.uniform(*RESTYLE_INSET, 4) * np.array([w, h, w, h])
        fx0, fy0 = max(0, round(x0 + left)), max(0, round(y0 + top))
        fx1, fy1 = min(iw, round(x1 - right)), min(ih, round(y1 - bottom))
        fw, fh = fx1 - fx0, fy1 - fy0
        if min(fw, fh) < RESTYLE_MIN_SIDE // 2:
            continue
        region = out[fy0:fy1, fx0:fx1]
        own = np.percentile(region.reshape(-1, 3), 85, axis=0)
        colour = ivory_colour(rng) * (float(own.mean()) / 235.0) if white else own
        sideways = fw > fh * 1.15  # a claimed tile lying across its row: its face turned a quarter
        face = pool[int(rng.integers(len(pool)))]
        front = face_on_body(face, fh, fw, rng, colour) if sideways else face_on_body(face, fw, fh, rng, colour)
        if sideways:
            front = np.rot90(front, 1 if rng.random() < 0.5 else 3)
        if rng.random() < 0.5:
            front = front[::-1, ::-1]  # tiles lie either way up
        alpha = cv2.GaussianBlur(rounded_mask(fw, fh, round(0.1 * min(fw, fh))).astype(np.float32) / 255.0,
                                 (0, 0), max(0.6, min(fw, fh) / 40))[..., None]
        region[:] = region * (1 - alpha) + front * alpha
    return np.clip(out, 0, 255).astype(np.uint8)


def turn_hue(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The photo's hues turned by any amount: the training tables are nearly all green felt or wood, another
    player's may be blue, grey or red. Tiles are mostly unsaturated, so the table changes and their ink with it."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + int(rng.integers(1, 180))) % 180).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def _rot90_boxes(boxes: np.ndarray, width: int, k: int) -> np.ndarray:
    """Boxes of an image turned by np.rot90(image, k) (counter-clockwise), k in 0..3; `width` of the unturned image."""
    out = boxes.copy()
    for _ in range(k % 4):
        x0, y0, x1, y1 = out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy(), out[:, 3].copy()
        out = np.stack([y0, width - x1, y1, width - x0], axis=1) if len(out) else out
        # after one turn the old height becomes the width; square training photos keep it equal
    return out


def photometric(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Colour, blur, noise and JPEG jitter: the glare, white balance and phone pipelines of real photos."""
    out = image.astype(np.float32)
    if rng.random() < 0.8:
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(-12, 12)) % 180
        hsv[..., 1] *= rng.uniform(0.6, 1.4)
        hsv[..., 2] *= rng.uniform(0.65, 1.35)
        out = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.5:
        out = out * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    if rng.random() < 0.1:
        out = np.repeat(cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)[..., None], 3, 2)
        out = out.astype(np.float32)
    if rng.random() < 0.3:
        sigma = rng.uniform(0.3, 1.6)
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < 0.4:
        out = out + rng.normal(0, rng.uniform(2, 10), out.shape).astype(np.float32)
    result = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        result = jpeg_roundtrip(result, rng)
    return result


def random_sample(
    item: TrainImage, size: int, rng: np.random.Generator, back_masks: list[np.ndarray], composite_p: float = 0.6,
    relay_p: float = 0.0, rotate_p: float = 0.0, stretch_p: float = 0.0, wide_rotate_p: float = 0.0,
    paper_p: float = 0.0, paper_faces: list[Face] | None = None,
    paper_run_share: tuple[float, float] = PAPER_RUN_SHARE, filled_p: float = 0.0, large_crop: bool = False,
    restyle_p: float = 0.0, hue_turn_p: float = 0.0,
) -> Sample:
    """One augmented `size` x `size` training crop of `item` with its positive and ignored boxes. A share `paper_p`
    of them are close-ups on a sheet: rendered tiles (`rendered_close_up`, half of them when `paper_faces` are
    given) or tiles of `item` cut out (`paper_close_up`), the run's long side `paper_run_share` of `size`; of those,
    a share `filled_p` are one tile filling its photo (`filled_close_up`). `large_crop` (not with a sheet): the crop
    is cut around one labelled tile so that its long side is `LARGE_CROP_SHARE` of the crop, the tile whole inside.
    A share `restyle_p` of the photos (not sheets) have their tiles repainted with `paper_faces` (`restyle_tiles`),
    and a share `hue_turn_p` of all samples their hues turned (`turn_hue`); the sample says so (`restyled`)."""
    image, boxes = item.image, item.boxes
    ignored = np.zeros((0, 4), np.float32)
    paper = None
    restyled = False
    if paper_p and rng.random() < paper_p:
        if filled_p and rng.random() < filled_p:
            paper = filled_close_up(item, size, rng)
        elif paper_faces and rng.random() < RENDERED_SHARE:
            paper = rendered_close_up(paper_faces, size, rng, paper_run_share)
        else:
            paper = paper_close_up(item, size, rng, paper_run_share)
    if paper is not None:
        image, boxes, ignored = paper
    else:
        if paper_faces and restyle_p and len(boxes) and rng.random() < restyle_p:
            image, restyled = restyle_tiles(image, boxes, paper_faces, rng), True
        if back_masks and relay_p and len(boxes) and rng.random() < relay_p:
            relaid = relay_row(image, boxes, back_masks, rng)
            if relaid is not None:
                image, boxes, ignored = relaid
        elif back_masks and rng.random() < composite_p:
            image, boxes, ignored = composite_extras(image, boxes, back_masks, rng)
    if len(item.ignore) and paper is None:
        ignored = np.concatenate([ignored.reshape(-1, 4), item.ignore]).astype(np.float32)
    # Quarter turns and flips: tiles appear in every orientation on a table.
    k = int(rng.integers(4))
    if k and image.shape[0] == image.shape[1]:
        width = image.shape[1]
        image = np.ascontiguousarray(np.rot90(image, k))
        boxes = _rot90_boxes(boxes, width, k)
        ignored = _rot90_boxes(ignored, width, k)
    if rng.random() < 0.5:
        width = image.shape[1]
        image = np.ascontiguousarray(image[:, ::-1])
        boxes = boxes[:, [2, 1, 0, 3]] * np.array([-1, 1, -1, 1], np.float32) + np.array([width, 0, width, 0])
        ignored = ignored[:, [2, 1, 0, 3]] * np.array([-1, 1, -1, 1], np.float32) + np.array([width, 0, width, 0])
    if stretch_p and paper is None and rng.random() < stretch_p:
        # A photo squeezed non-uniformly (dataset exports squeeze every photo to a square: a strip photo of one row
        # becomes tiles several times taller than wide); the area stays, one axis grows as the other shrinks.
        factor = math.sqrt(math.exp(rng.uniform(0.0, math.log(MAX_STRETCH))))
        fx, fy = (factor, 1 / factor) if rng.random() < 0.5 else (1 / factor, factor)
        h0, w0 = image.shape[:2]
        size_xy = (max(1, round(w0 * fx)), max(1, round(h0 * fy)))
        image = cv2.resize(image, size_xy, interpolation=cv2.INTER_AREA)
        stretch = np.array([size_xy[0] / w0, size_xy[1] / h0] * 2, np.float32)
        boxes, ignored = boxes * stretch, ignored * stretch
    closeup = rng.random() < CLOSEUP_PROBABILITY
    scale = rng.uniform(*CLOSEUP_SCALE_RANGE) if closeup else rng.uniform(*SCALE_RANGE)
    large = large_crop and paper is None and len(boxes) > 0
    if large:
        b = boxes[rng.integers(len(boxes))]
        long_side = max(float(b[2] - b[0]), float(b[3] - b[1]), 1.0)
        share = rng.uniform(*LARGE_CROP_SHARE)
        scale = share * size / long_side
    if paper is not None:
        scale = 1.0  # the sheet is laid out at the crop's scale
    h, w = image.shape[:2]
    # Crop in source pixels, then resize: cheaper than resizing the whole photo first.
    src = size / scale
    if paper is not None:
        cx, cy = w / 2, h / 2
    elif large:
        # Anywhere the tile stays whole in the crop (its long side `share` of it; a small turn may cut a corner).
        room = (1 - share) / 2 * src
        cx = (b[0] + b[2]) / 2 + rng.uniform(-room, room)
        cy = (b[1] + b[3]) / 2 + rng.uniform(-room, room)
    elif len(boxes) and rng.random() < 0.8:
        # Centre the crop near a labelled tile so most crops teach something about tiles.
        b = boxes[rng.integers(len(boxes))]
        cx = (b[0] + b[2]) / 2 + rng.uniform(-0.4, 0.4) * src
        cy = (b[1] + b[3]) / 2 + rng.uniform(-0.4, 0.4) * src
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    x0 = float(np.clip(cx - src / 2, min(0, w - src), max(0, w - src)))
    y0 = float(np.clip(cy - src / 2, min(0, h - src), max(0, h - src)))
    # A small turn of the whole view (tight labels lost the upstream rotations); a tile's label becomes the box
    # around its turned box, which for small angles stays tight, as a labeller would draw it.
    angle = float(np.clip(rng.normal(0, 6), -12, 12)) if rng.random() < rotate_p else 0.0
    if wide_rotate_p and rng.random() < wide_rotate_p:
        # A row photographed at any slant up to 45 degrees (upstream copies turned that far cannot be repaired, so
        # they are not in the data): the tile's label is the box around it, as a labeller would draw it.
        angle = float(rng.uniform(-45.0, 45.0))
    if scale < 1:
        # Shrink with area averaging first, as the letterbox does at inference; the warp then only turns and cuts.
        image = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        sx, sy = image.shape[1] / w, image.shape[0] / h
        to_small = np.array([[sx, 0, 0], [0, sy, 0], [0, 0, 1]], np.float64)
        step_scale = 1.0
    else:
        to_small, step_scale = np.eye(3), scale
    centre = to_small[:2, :2] @ np.array([x0 + src / 2, y0 + src / 2])
    turn = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle, step_scale)
    turn[:, 2] += np.array([size / 2, size / 2]) - centre
    matrix = np.vstack([turn, [0, 0, 1]]) @ to_small  # photo pixels -> crop pixels
    crop = cv2.warpAffine(image, turn, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=tuple(int(v) for v in rng.integers(0, 255, 3)))
    positives, extra_ignored = _crop_boxes(_transform_boxes(boxes, matrix), size)
    ignored_crop, _ = _crop_boxes(_transform_boxes(ignored, matrix), size, keep_all=True)
    if hue_turn_p and rng.random() < hue_turn_p:
        crop, restyled = turn_hue(crop, rng), True
    crop = photometric(crop, rng)
    all_ignored = np.concatenate([ignored_crop, extra_ignored]).astype(np.float32).reshape(-1, 4)
    return Sample(crop, positives, all_ignored, restyled)


def _transform_boxes(boxes: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The axis-aligned boxes around `boxes` (N, 4) mapped by a 3x3 (or 2x3) affine matrix."""
    if len(boxes) == 0:
        return np.zeros((0, 4), np.float32)
    corners = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], axis=1)
    mapped = corners @ np.asarray(matrix, np.float64)[:2, :2].T + np.asarray(matrix, np.float64)[:2, 2]
    return np.concatenate([mapped.min(axis=1), mapped.max(axis=1)], axis=1).astype(np.float32)


def _crop_boxes(moved: np.ndarray, size: int, keep_all: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Boxes already in crop pixels, clipped to the crop: (kept positives, boxes too cut off to call either way)."""
    if len(moved) == 0:
        return np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32)
    clipped = np.clip(moved, 0, size)
    area = np.maximum((moved[:, 2] - moved[:, 0]) * (moved[:, 3] - moved[:, 1]), 1e-6)
    visible = (clipped[:, 2] - clipped[:, 0]) * (clipped[:, 3] - clipped[:, 1]) / area
    big_enough = np.minimum(clipped[:, 2] - clipped[:, 0], clipped[:, 3] - clipped[:, 1]) >= 2
    if keep_all:
        return clipped[(visible > 0) & big_enough].astype(np.float32), np.zeros((0, 4), np.float32)
    good = (visible >= MIN_VISIBLE_FRACTION) & big_enough
    partial = (visible > 0) & ~good
    return clipped[good].astype(np.float32), clipped[partial].astype(np.float32)


def encode_targets(sample: Sample, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """CenterNet / TTFNet targets on the stride-4 grid.

    heatmap (1, S, S): elliptical Gaussian per box (sigma = 0.54 * side / 6), 1 at the centre cell;
    weight (1, S, S): 0 where a region is ignored (cut-off or covered tiles), else 1;
    reg_box (4, S, S): the box (x0, y0, x1, y1) in input pixels that each cell should regress;
    reg_weight (1, S, S): Gaussian weight of regression cells (the smaller box wins where two overlap);
    num_pos: number of positive centres (as a 1-element array).
    """
    s = size // STRIDE
    heatmap = np.zeros((s, s), np.float32)
    weight = np.ones((s, s), np.float32)
    reg_box = np.zeros((4, s, s), np.float32)
    reg_weight = np.zeros((s, s), np.float32)
    reg_area = np.full((s, s), np.inf, np.float32)
    ys, xs = np.mgrid[0:s, 0:s].astype(np.float32)
    for box in sample.ignore:
        gx0, gy0 = int(box[0] // STRIDE), int(box[1] // STRIDE)
        gx1, gy1 = math.ceil(box[2] / STRIDE), math.ceil(box[3] / STRIDE)
        weight[max(0, gy0):gy1, max(0, gx0):gx1] = 0
    count = 0
    for box in sample.boxes:
        bw, bh = (box[2] - box[0]) / STRIDE, (box[3] - box[1]) / STRIDE
        if bw <= 0 or bh <= 0:
            continue
        cx = min(int((box[0] + box[2]) / 2 / STRIDE), s - 1)
        cy = min(int((box[1] + box[3]) / 2 / STRIDE), s - 1)
        sx, sy = max(0.54 * bw / 6, 0.3), max(0.54 * bh / 6, 0.3)
        rx, ry = int(3 * sx) + 1, int(3 * sy) + 1
        x0, x1, y0, y1 = max(0, cx - rx), min(s, cx + rx + 1), max(0, cy - ry), min(s, cy + ry + 1)
        g = np.exp(-((xs[y0:y1, x0:x1] - cx) ** 2 / (2 * sx * sx) + (ys[y0:y1, x0:x1] - cy) ** 2 / (2 * sy * sy)))
        heatmap[y0:y1, x0:x1] = np.maximum(heatmap[y0:y1, x0:x1], g)
        heatmap[cy, cx] = 1.0
        weight[cy, cx] = 1.0
        weight[y0:y1, x0:x1] = np.maximum(weight[y0:y1, x0:x1], (g > 0.05).astype(np.float32))
        area = bw * bh
        region = (g > 0.3) & (area < reg_area[y0:y1, x0:x1])
        region[cy - y0, cx - x0] = area < reg_area[cy, cx]
        for c in range(4):
            reg_box[c, y0:y1, x0:x1][region] = box[c]
        # Every object weighs log(area) in all, however many cells it covers (TTFNet): a close-up tile must not
        # outweigh a small one 28 to 1 and pull every size towards its own.
        reg_weight[y0:y1, x0:x1][region] = g[region] / max(float(g[region].sum()), 1e-6) * math.log(max(area, 2.0))
        reg_area[y0:y1, x0:x1][region] = area
        count += 1
    return heatmap[None], weight[None], reg_box, reg_weight[None], np.array([count], np.float32)
