"""The in-memory dataset: photos with labelled boxes, in the photo's pixels (EXIF orientation applied).

A box is a rectangle that may be turned: centre, width, height and `rotation`, the angle in degrees from the
photo's x axis to the box's top edge, clockwise on screen (y points down), as Label Studio measures it. Its corners
run top-left, top-right, bottom-right, bottom-left of the box itself, so a rectangle given by four corners (the
pipeline's quads) comes back as the same four corners.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from fanscan.scoring.errors import FanscanError
from fanscan.vision.proposal import checked_corners


@dataclass(frozen=True)
class Box:
    """One labelled tile. `label` is a tile id once checked (the name as found before); `score` a model's
    confidence (None for a person's label)."""

    label: str
    cx: float
    cy: float
    width: float
    height: float
    rotation: float = 0.0
    score: float | None = None

    @classmethod
    def from_bounds(cls, label: str, x0: float, y0: float, x1: float, y1: float,
                    score: float | None = None) -> Box:
        """An axis-aligned box from its left, top, right and bottom edges."""
        return cls(label, (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, 0.0, score)

    @classmethod
    def from_corner(cls, label: str, x: float, y: float, width: float, height: float, rotation: float,
                    score: float | None = None) -> Box:
        """A box from its top-left corner and the turn about that corner (Label Studio's form)."""
        ux, uy, vx, vy = _axes(rotation)
        cx = x + (width * ux + height * vx) / 2
        cy = y + (width * uy + height * vy) / 2
        return cls(label, cx, cy, width, height, _normal_angle(rotation), score)

    @classmethod
    def from_quad(cls, label: str, quad: Sequence[Sequence[float]], score: float | None = None) -> Box:
        """The rectangle of four corners in tl, tr, br, bl order: the mean of the two top/bottom edges gives its
        direction and width, the two sides its height (exact for a rectangle; a perspective quad gets the
        rectangle of its mean edges)."""
        p = checked_quad(quad)
        across = (p[1] - p[0]) + (p[2] - p[3])
        width = (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[3])) / 2
        height = (np.linalg.norm(p[3] - p[0]) + np.linalg.norm(p[2] - p[1])) / 2
        rotation = math.degrees(math.atan2(across[1], across[0])) if np.any(across) else 0.0
        cx, cy = p.mean(axis=0)
        return cls(label, float(cx), float(cy), float(width), float(height), _normal_angle(rotation), score)

    def corners(self) -> np.ndarray:
        """(4, 2) corners: top-left, top-right, bottom-right, bottom-left of the box."""
        ux, uy, vx, vy = _axes(self.rotation)
        hw, hh = self.width / 2, self.height / 2
        offsets = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)]
        return np.array([[self.cx + a * ux + b * vx, self.cy + a * uy + b * vy] for a, b in offsets])

    def bounds(self) -> tuple[float, float, float, float]:
        """The axis-aligned box around it: (x0, y0, x1, y1)."""
        if self.rotation == 0.0:
            return (self.cx - self.width / 2, self.cy - self.height / 2,
                    self.cx + self.width / 2, self.cy + self.height / 2)
        c = self.corners()
        return float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max())

    def axis_aligned(self) -> Box:
        """The axis-aligned box around it (what YOLO and COCO boxes hold)."""
        return Box.from_bounds(self.label, *self.bounds(), score=self.score) if self.rotation else self

    def with_label(self, label: str) -> Box:
        return replace(self, label=label)


def checked_quad(quad: Sequence[Sequence[float]], where: str = "quad") -> np.ndarray:
    """`quad` as a (4, 2) array, or a one-line FanscanError naming `where` when it is not four finite corners
    (`vision.proposal.checked_corners`, the check of a quad sent back by a client) enclosing an area: one point,
    NaN, an infinity or a coordinate past any photo (1e308) would otherwise become a box over the whole photo or an
    exception deep inside."""
    p = np.asarray(checked_corners(quad, where), np.float64)
    x, y = p[:, 0], p[:, 1]
    if abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) < 1e-6:
        raise FanscanError(f"{where}: the four corners enclose no area (a point or a line, not a tile)")
    return p


def _normal_angle(degrees: float) -> float:
    """The angle in [0, 360), with a turn of a hair below 360 read as 0 (rounding in a tool's export)."""
    angle = float(degrees) % 360.0
    return 0.0 if angle > 360.0 - 1e-9 or angle < 1e-9 else angle


def _axes(rotation: float) -> tuple[float, float, float, float]:
    """The box's x axis (ux, uy) and y axis (vx, vy) in photo coordinates (y down, clockwise turn)."""
    if rotation == 0.0:
        return 1.0, 0.0, 0.0, 1.0
    theta = math.radians(rotation)
    c, s = math.cos(theta), math.sin(theta)
    return c, s, -s, c


@dataclass
class LabelledPhoto:
    """A photo and its boxes. `image` is where the photo file is; `source` names it as the input did (a Label
    Studio URL, a COCO file_name) for the report; `width` and `height` are its pixels."""

    image: Path
    width: int
    height: int
    boxes: list[Box] = field(default_factory=list)
    source: str = ""

    @property
    def name(self) -> str:
        return self.source or self.image.name


@dataclass
class SourcePhoto:
    """A photo as an input (an export, a COCO file, a YOLO folder) names it, before the photo is opened:
    `boxes_on(width, height)` gives its boxes on the photo's real size (the formats store percent, fractions or
    pixels of a recorded size); `size` is the size the input records (None if it records none); `notes` are
    report lines about the photo as a whole."""

    reference: str
    name: str
    boxes_on: Callable[[int, int], list[Box]]
    size: tuple[int, int] | None = None
    notes: list[str] = field(default_factory=list)
