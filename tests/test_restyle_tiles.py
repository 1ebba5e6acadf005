"""Detector training samples that show another maker's tiles and table (`detector_data.restyle_tiles`, `turn_hue`)."""

from __future__ import annotations

import cv2
import numpy as np
from fanscan.training import detector_data as dd
from fanscan.training.faces import FACE_H, FACE_W, Face


def bar_face(vertical: bool = True) -> Face:
    """A face whose only ink is one black bar through its middle: upright when `vertical`."""
    rgba = np.zeros((FACE_H, FACE_W, 4), np.uint8)
    if vertical:
        rgba[20:FACE_H - 20, FACE_W // 2 - 20:FACE_W // 2 + 20] = (0, 0, 0, 255)
    else:
        rgba[FACE_H // 2 - 20:FACE_H // 2 + 20, 20:FACE_W - 20] = (0, 0, 0, 255)
    return Face("bars", "1m", rgba)


def ink_extent(before: np.ndarray, after: np.ndarray) -> tuple[int, int]:
    """Width and height of the pixels that became dark."""
    dark = (after.mean(axis=2) < 60) & (before.mean(axis=2) > 100)
    ys, xs = np.nonzero(dark)
    return int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def test_repainted_tiles_change_inside_their_boxes_only() -> None:
    photo = np.full((120, 160, 3), 170, np.uint8)
    big, small = (20, 30, 60, 86), (100, 20, 100 + dd.RESTYLE_MIN_SIDE - 2, 28)
    boxes = np.array([big, small], np.float32)
    out = dd.restyle_tiles(photo, boxes, [bar_face()], np.random.default_rng(1))
    assert out.shape == photo.shape and out.dtype == np.uint8
    changed = np.any(out != photo, axis=2)
    inside = np.zeros_like(changed)
    inside[big[1]:big[3], big[0]:big[2]] = True
    assert not changed[~inside].any()  # outside the big box (the too small one too) the photo is as it was
    assert out[(big[1] + big[3]) // 2, (big[0] + big[2]) // 2].mean() < 60  # the new face's ink at its centre
    width, height = ink_extent(photo, out)
    assert height > 2 * width  # an upright tile gets its face upright


def test_a_tile_lying_sideways_gets_its_face_turned_a_quarter() -> None:
    photo = np.full((120, 160, 3), 170, np.uint8)
    boxes = np.array([(30, 30, 86, 70)], np.float32)  # wider than tall: a claimed tile across its row
    out = dd.restyle_tiles(photo, boxes, [bar_face(vertical=True)], np.random.default_rng(2))
    width, height = ink_extent(photo, out)
    assert width > 2 * height


def test_one_style_per_photo() -> None:
    photo = np.full((100, 400, 3), 170, np.uint8)
    boxes = np.array([(10 + 40 * i, 20, 45 + 40 * i, 70) for i in range(9)], np.float32)
    # Style "up" draws upright bars, style "across" flat ones: a photo shows one of them on every tile.
    faces = [Face("up", "1m", bar_face(True).rgba), Face("across", "2m", bar_face(False).rgba)]
    for seed in range(4):
        out = dd.restyle_tiles(photo, boxes, faces, np.random.default_rng(seed))
        upright = []
        for x0, y0, x1, y1 in boxes.astype(int):
            width, height = ink_extent(photo[y0:y1, x0:x1], out[y0:y1, x0:x1])
            upright.append(height > width)
        assert len(set(upright)) == 1


def test_turned_hues_recolour_the_table_and_leave_grey_tiles() -> None:
    photo = np.zeros((10, 20, 3), np.uint8)
    photo[:, :10] = (40, 160, 40)  # green felt (BGR)
    photo[:, 10:] = (200, 200, 200)  # an unsaturated tile
    out = dd.turn_hue(photo, np.random.default_rng(3))
    before, after = cv2.cvtColor(photo, cv2.COLOR_BGR2HSV), cv2.cvtColor(out, cv2.COLOR_BGR2HSV)
    assert abs(int(after[0, 0, 0]) - int(before[0, 0, 0])) >= 1
    assert abs(int(after[0, 0, 1]) - int(before[0, 0, 1])) <= 3  # as saturated as before
    assert np.abs(out[:, 10:].astype(int) - 200).max() <= 1


def test_a_sample_says_when_it_was_restyled() -> None:
    photo = np.full((300, 300, 3), 90, np.uint8)
    boxes = np.array([(100 + 30 * i, 120, 126 + 30 * i, 156) for i in range(4)], np.float32)
    for x0, y0, x1, y1 in boxes.astype(int):
        photo[y0:y1, x0:x1] = 225
    item = dd.TrainImage("photo", photo, boxes)
    masks = [dd.rounded_rect_mask()]
    faces = [bar_face()]
    assert dd.random_sample(item, 128, np.random.default_rng(0), masks, paper_faces=faces, restyle_p=1.0).restyled
    assert dd.random_sample(item, 128, np.random.default_rng(0), masks, hue_turn_p=1.0).restyled
    plain = dd.random_sample(item, 128, np.random.default_rng(0), masks, paper_faces=faces)
    assert not plain.restyled
