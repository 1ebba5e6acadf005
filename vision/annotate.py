"""Draw a `HandProposal` on its photo: each tile's outline, its number and reading.

Colours say what the proposal made of a tile: green standing, blue in a meld, magenta the winning tile, yellow a
flower, grey dropped (not a tile) or unused, and red for any tile below the confidence threshold, so the tiles to
check stand out. Numbers are the ones `fix N TILE` takes.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision.proposal import DROPPED, FLOWER, MELD, UNUSED, WINNING, HandProposal

# BGR colours by role.
_COLOURS = {
    MELD: (200, 120, 0),
    WINNING: (200, 0, 200),
    FLOWER: (0, 200, 220),
    DROPPED: (150, 150, 150),
    UNUSED: (150, 150, 150),
}
_STANDING = (0, 170, 0)
_UNCERTAIN = (0, 0, 230)


def draw_proposal(image: np.ndarray, proposal: HandProposal, scale: float = 1.0, low_confidence: float = 0.8
                  ) -> np.ndarray:
    """A copy of `image` (BGR) with the proposal drawn on it; `scale` maps the proposal's (file) pixels to the
    image's pixels."""
    out = image.copy()
    height, width = out.shape[:2]
    thickness = max(1, round(max(width, height) / 600))
    font_scale = max(0.35, max(width, height) / 1600)
    for tile in proposal.tiles:
        uncertain = tile.confidence < low_confidence and tile.role not in (DROPPED, UNUSED)
        colour = _UNCERTAIN if uncertain else _COLOURS.get(tile.role, _STANDING)
        quad = np.round(np.asarray(tile.quad, np.float64) * scale).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [quad], True, colour, thickness, cv2.LINE_AA)
        label = f"{tile.number}:{tile.tile}" + ("?" if uncertain else "")
        x, y = int(quad[:, 0, 0].min()), int(quad[:, 0, 1].min())
        (text_w, text_h), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        # Labels above the tile, or inside it when the tile touches the top edge.
        top = y - text_h - base - 2 if y - text_h - base - 2 >= 0 else y + 1
        cv2.rectangle(out, (x, top), (x + text_w + 2, top + text_h + base + 2), colour, -1)
        cv2.putText(out, label, (x + 1, top + text_h + 1), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (255, 255, 255),
                    thickness, cv2.LINE_AA)
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
