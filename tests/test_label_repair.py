"""Label repair of rotated / sheared training copies: the transform is read from the fill and undone on photo and boxes.

A synthetic source photo with known tile boxes is transformed the way the upstream export did it (rotation and shear
about the centre, flat grey fill, labels = boxes around the transformed boxes); `repair` must give the source boxes
back.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from fanscan.training.label_repair import estimate_axes, fill_colour, repair

SIZE = 640
FILL = (114, 114, 114)


def source_photo(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Noisy table with a 4 x 3 grid of ivory tiles, 40 x 56 px each; returns (image, boxes)."""
    image = rng.integers(20, 100, (SIZE, SIZE, 3), dtype=np.uint8)
    image[..., 1] = np.clip(image[..., 1].astype(int) + 80, 0, 255).astype(np.uint8)  # greenish felt, never grey
    boxes = []
    for row in range(3):
        for col in range(4):
            x0, y0 = 220 + col * 44, 220 + row * 64
            cv2.rectangle(image, (x0, y0), (x0 + 39, y0 + 55), (215, 235, 245), -1)
            cv2.circle(image, (x0 + 20, y0 + 28), 9, (40, 40, 180), -1)
            boxes.append((x0, y0, x0 + 40, y0 + 56))
    return image, np.array(boxes, np.float32)


def transformed_copy(image: np.ndarray, boxes: np.ndarray, angle: float, shear: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The copy the export made: x axis turned by `angle`, y axis by `angle + shear` (degrees), grey fill, loose
    labels (the box around each transformed box)."""
    u = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
    v = np.array([-math.sin(math.radians(angle + shear)), math.cos(math.radians(angle + shear))])
    a = np.stack([u, v], axis=1)
    centre = np.array([SIZE / 2, SIZE / 2])
    warp = np.concatenate([a, (centre - a @ centre)[:, None]], axis=1)
    copy = cv2.warpAffine(image, warp, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderValue=FILL)
    corners = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], axis=1)
    mapped = corners @ a.T + warp[:, 2]
    loose = np.concatenate([mapped.min(axis=1), mapped.max(axis=1)], axis=1).astype(np.float32)
    return copy, loose


@pytest.mark.parametrize("angle, shear", [(15.0, 0.0), (-22.0, 4.0), (8.0, -6.0), (28.0, 3.0)])
def test_repair_recovers_the_source_boxes(angle: float, shear: float) -> None:
    image, boxes = source_photo(np.random.default_rng(3))
    copy, loose = transformed_copy(image, boxes, angle, shear)
    assert fill_colour(copy) is not None
    result = repair(copy, loose)
    assert result is not None
    assert result.angle == pytest.approx(angle, abs=1.0)
    assert result.good.all()
    # Loose boxes are far bigger than the tiles; repaired ones sit on them within a couple of pixels.
    assert np.abs(loose - boxes).max() > 8
    assert np.abs(result.boxes - boxes).max() < 3.0
    # The photo is turned back too: the ivory tile is where its box says.
    x0, y0, x1, y1 = np.round(result.boxes[5]).astype(int)
    assert result.image[y0 + 5:y1 - 5, x0 + 5:x1 - 5].mean() > 180


def test_untransformed_photo_has_no_fill_and_is_left_alone() -> None:
    image, boxes = source_photo(np.random.default_rng(4))
    assert fill_colour(image) is None
    assert estimate_axes(image) is None
    assert repair(image, boxes) is None


def test_near_45_degrees_cannot_be_unmixed() -> None:
    image, boxes = source_photo(np.random.default_rng(5))
    copy, loose = transformed_copy(image, boxes, 44.0, 0.0)
    assert repair(copy, loose) is None


def test_box_cut_by_the_frame_is_not_trusted() -> None:
    image, boxes = source_photo(np.random.default_rng(6))
    copy, loose = transformed_copy(image, boxes, 12.0, 0.0)
    cut = np.concatenate([loose, np.array([[0.0, 300.0, 30.0, 350.0]], np.float32)])  # touches the left edge
    result = repair(copy, cut)
    assert result is not None
    assert result.good[:-1].all() and not result.good[-1]
