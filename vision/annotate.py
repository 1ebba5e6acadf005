"""Draw a `HandProposal` on its photo: each tile's outline, its number and reading.

Colours say what the proposal made of a tile: green standing, blue in a meld, magenta the winning tile, yellow a
flower, grey dropped (not a tile) or unused, and red for any tile below the confidence threshold, so the tiles to
check stand out. Numbers are the ones `fix N TILE` takes.

Labels never cover each other and never run off the photo (`place_labels`): each goes just above its tile if there
is room, else below, inside, beside, or further out with a leader line to its tile; a label that finds no room at
all (a dense heap of small tiles in a small photo) goes into a legend band added under the photo, with a leader line
up to its tile.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision.proposal import DROPPED, FLOWER, MELD, TABLE, UNUSED, WINNING, HandProposal

# BGR colours by role.
_COLOURS = {
    MELD: (200, 120, 0),
    WINNING: (200, 0, 200),
    FLOWER: (0, 200, 220),
    DROPPED: (150, 150, 150),
    UNUSED: (150, 150, 150),
    TABLE: (90, 60, 40),  # set aside: on the table apart from the hand
}
_STANDING = (0, 170, 0)
_UNCERTAIN = (0, 0, 230)
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_GAP = 2  # pixels between a label and its tile or another label
# How far out (in label heights) a label may go looking for room before it goes to the legend.
_MAX_RINGS = 24

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 exclusive)


@dataclass(frozen=True)
class PlacedLabel:
    """Where one tile's label is drawn: `rect` in the output image (which may have a legend band under the photo);
    `leader` when the label is away from its tile and a line joins them; `in_legend` when it is in the band."""

    number: int
    text: str
    colour: tuple[int, int, int]
    tile_box: Rect
    rect: Rect
    leader: bool
    in_legend: bool


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _candidates(box: Rect, w: int, h: int, ring: int, inside_first: bool) -> list[tuple[int, int]]:
    """Top-left corners to try for a w x h label of a tile box, `ring` label heights further out than adjacent;
    `inside_first`: try the tile's own top first (when labels may cover tiles, a label on its own tile reads
    better than one on its neighbour)."""
    x0, y0, x1, y1 = box
    d = ring * (h + _GAP)
    spots = [(x0, y0 - h - _GAP - d), (x0, y1 + _GAP + d), (x0 - w - _GAP - d, y0), (x1 + _GAP + d, y0)]
    if ring == 0:
        spots.insert(0 if inside_first else 2, (x0 + 1, y0 + 1))  # inside the tile, at its top
    else:  # also shifted sideways above and below, to fill the room between neighbours' labels
        for dx in (-(w + _GAP) * ring, (w + _GAP) * ring):
            spots += [(x0 + dx, y0 - h - _GAP), (x0 + dx, y1 + _GAP)]
    return spots


def place_labels(boxes: list[Rect], sizes: list[tuple[int, int]], width: int, height: int) -> list[Rect | None]:
    """A rectangle for each label (`sizes`: w, h) of the tiles `boxes` inside a width x height image, greedily in
    order: no two rectangles overlap and each lies inside the image; None for a label that finds no room. A first
    pass also keeps labels off the other tiles; a second lets them cover tiles (never other labels)."""
    placed: list[Rect | None] = [None] * len(boxes)
    taken: list[Rect] = []
    for avoid_tiles in (True, False):
        for k, (box, (w, h)) in enumerate(zip(boxes, sizes, strict=True)):
            if placed[k] is not None or w > width or h > height:
                continue
            others = [b for j, b in enumerate(boxes) if j != k] if avoid_tiles else []
            for ring in range(_MAX_RINGS):
                for x, y in _candidates(box, w, h, ring, inside_first=not avoid_tiles):
                    x, y = min(max(x, 0), width - w), min(max(y, 0), height - h)
                    rect = (x, y, x + w, y + h)
                    if not any(_overlaps(rect, t) for t in taken) and not any(_overlaps(rect, o) for o in others):
                        placed[k] = rect
                        taken.append(rect)
                        break
                if placed[k] is not None:
                    break
    return placed


def _text_size(text: str, font_scale: float, thickness: int) -> tuple[int, int]:
    (text_w, text_h), base = cv2.getTextSize(text, _FONT, font_scale, thickness)
    return text_w + 2, text_h + base + 2


def layout_labels(proposal: HandProposal, width: int, height: int, scale: float = 1.0,
                  low_confidence: float = 0.8) -> tuple[list[PlacedLabel], int]:
    """Every tile's label placed for a width x height photo, and the height of the legend band needed under it
    (0 when every label found room on the photo)."""
    thickness = max(1, round(max(width, height) / 600))
    font_scale = max(0.35, max(width, height) / 1600)
    texts, colours, boxes = [], [], []
    for tile in proposal.tiles:
        uncertain = tile.confidence < low_confidence and tile.role not in (DROPPED, UNUSED, TABLE)
        colours.append(_UNCERTAIN if uncertain else _COLOURS.get(tile.role, _STANDING))
        # A set-aside tile's label says so in brackets: it is read, but not in the hand.
        texts.append(f"({tile.number}:{tile.tile})" if tile.role == TABLE
                     else f"{tile.number}:{tile.tile}" + ("?" if uncertain else ""))
        quad = np.asarray(tile.quad, np.float64) * scale
        boxes.append((int(quad[:, 0].min()), int(quad[:, 1].min()), int(np.ceil(quad[:, 0].max())),
                      int(np.ceil(quad[:, 1].max()))))
    sizes = [_text_size(t, font_scale, thickness) for t in texts]
    rects = place_labels(boxes, sizes, width, height)
    labels: list[PlacedLabel] = []
    # The legend band: the labels without room, in rows under the photo.
    x, y, row_h = _GAP, height + _GAP, 0
    for k, rect in enumerate(rects):
        if rect is not None:
            bx0, by0, bx1, by1 = boxes[k]
            touching = (rect[2] >= bx0 - _GAP - 1 and rect[0] <= bx1 + _GAP + 1
                        and rect[3] >= by0 - _GAP - 1 and rect[1] <= by1 + _GAP + 1)
            labels.append(PlacedLabel(proposal.tiles[k].number, texts[k], colours[k], boxes[k], rect,
                                      not touching, False))
            continue
        w, h = min(sizes[k][0], width - 2 * _GAP), sizes[k][1]
        if x + w > width - _GAP and x > _GAP:
            x, y, row_h = _GAP, y + row_h + _GAP, 0
        labels.append(PlacedLabel(proposal.tiles[k].number, texts[k], colours[k], boxes[k], (x, y, x + w, y + h),
                                  True, True))
        x, row_h = x + w + _GAP, max(row_h, h)
    band = y + row_h + _GAP - height if any(lab.in_legend for lab in labels) else 0
    return labels, band


def _nearest(rect: Rect, point: tuple[float, float]) -> tuple[int, int]:
    return int(min(max(point[0], rect[0]), rect[2] - 1)), int(min(max(point[1], rect[1]), rect[3] - 1))


def draw_proposal(image: np.ndarray, proposal: HandProposal, scale: float = 1.0, low_confidence: float = 0.8
                  ) -> np.ndarray:
    """A copy of `image` (BGR) with the proposal drawn on it (and a legend band under it when some labels found no
    room); `scale` maps the proposal's (file) pixels to the image's pixels."""
    height, width = image.shape[:2]
    labels, band = layout_labels(proposal, width, height, scale, low_confidence)
    out = image.copy() if not band else cv2.copyMakeBorder(image, 0, band, 0, 0, cv2.BORDER_CONSTANT,
                                                          value=(40, 40, 40))
    thickness = max(1, round(max(width, height) / 600))
    font_scale = max(0.35, max(width, height) / 1600)
    for tile, label in zip(proposal.tiles, labels, strict=True):
        quad = np.round(np.asarray(tile.quad, np.float64) * scale).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [quad], True, label.colour, thickness, cv2.LINE_AA)
    for label in labels:
        x0, y0, x1, y1 = label.rect
        if label.leader:
            bx0, by0, bx1, by1 = label.tile_box
            centre = ((bx0 + bx1) / 2, (by0 + by1) / 2)
            cv2.line(out, _nearest(label.rect, centre), _nearest(label.tile_box, ((x0 + x1) / 2, (y0 + y1) / 2)),
                     label.colour, thickness, cv2.LINE_AA)
        cv2.rectangle(out, (x0, y0), (x1 - 1, y1 - 1), label.colour, -1)
        (_, text_h), _ = cv2.getTextSize(label.text, _FONT, font_scale, thickness)
        cv2.putText(out, label.text, (x0 + 1, y0 + text_h + 1), _FONT, font_scale, (255, 255, 255), thickness,
                    cv2.LINE_AA)
    return out


def write_annotated(path: str | Path, image: np.ndarray, proposal: HandProposal, scale: float = 1.0) -> Path:
    """Write the annotated photo; the format follows the suffix (.png, .jpg, .jpeg, .webp)."""
    path = Path(path)
    if path.suffix.lower() not in (".png", ".jpg", ".jpeg", ".webp"):
        raise FanscanError(f"{path}: annotated photo must be .png, .jpg or .webp")
    if not path.parent.exists():
        raise FanscanError(f"{path}: folder {path.parent} does not exist")
    ok, data = cv2.imencode(path.suffix.lower(), draw_proposal(image, proposal, scale))
    if not ok:
        raise FanscanError(f"{path}: could not encode the annotated photo")
    try:
        path.write_bytes(data.tobytes())
    except OSError as error:
        raise FanscanError(f"{path}: cannot write ({error.strerror})") from None
    return path
