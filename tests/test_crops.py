"""Geometry of tile crops: aspect kept, sideways turned upright, quads rectified, bad input refused."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.crops import CropSpec, crop_box, crop_quad, crop_tiles, order_quad, order_quads, quad_from_box

SPEC = CropSpec(width=64, height=80, pad=0.08)


def blob_box(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def test_crop_has_the_model_input_size() -> None:
    image = np.full((300, 400, 3), 200, np.uint8)
    assert crop_box(image, (100, 50, 140, 110), SPEC).shape == (80, 64, 3)


def cropped_rectangle_aspect(box_w: int, box_h: int, spec: CropSpec = SPEC) -> float:
    """Width / height, in the crop, of a dark rectangle that fills the box it is cropped by."""
    image = np.full((600, 400, 3), 255, np.uint8)
    x0, y0 = 150, 60
    cv2.rectangle(image, (x0, y0), (x0 + box_w - 1, y0 + box_h - 1), (0, 0, 0), -1)
    crop = crop_box(image, (x0, y0, x0 + box_w, y0 + box_h), spec)
    bx0, by0, bx1, by1 = blob_box(crop[..., 0] < 128)
    return (bx1 - bx0 + 1) / (by1 - by0 + 1)


@pytest.mark.parametrize("box_w, box_h", [(40, 60), (30, 70), (50, 52)])
def test_aspect_ratio_is_kept(box_w: int, box_h: int) -> None:
    """A dark rectangle filling the box keeps its width:height in the crop (no non-uniform stretch)."""
    assert cropped_rectangle_aspect(box_w, box_h) == pytest.approx(box_w / box_h, rel=0.08)


@pytest.mark.parametrize("box_w, box_h", [(20, 200), (40, 450)])
def test_stretched_photo_tile_gets_a_tile_shape_back(box_w: int, box_h: int) -> None:
    """A box many times taller than wide (a photo squeezed to a square) is resampled to `stretched_aspect`."""
    assert 1 / cropped_rectangle_aspect(box_w, box_h) == pytest.approx(SPEC.stretched_aspect, rel=0.08)
    plain = CropSpec(width=64, height=80, pad=0.08, max_aspect=0)
    assert 1 / cropped_rectangle_aspect(box_w, box_h, plain) > 5  # switched off: the sliver stays a sliver


def test_circle_stays_round() -> None:
    image = np.full((300, 300, 3), 255, np.uint8)
    cv2.circle(image, (150, 150), 18, (0, 0, 0), -1)
    crop = crop_box(image, (125, 120, 175, 180), SPEC)  # 50 x 60 box around the dot
    bx0, by0, bx1, by1 = blob_box(crop[..., 0] < 128)
    assert (bx1 - bx0) / (by1 - by0) == pytest.approx(1.0, abs=0.08)


def test_sideways_box_is_turned_upright() -> None:
    """A 60 x 40 box becomes a tall crop; its red left end ends up at the top (a quarter turn clockwise)."""
    image = np.full((200, 200, 3), 255, np.uint8)
    cv2.rectangle(image, (70, 80), (129, 119), (0, 0, 0), -1)
    cv2.rectangle(image, (70, 80), (84, 119), (0, 0, 255), -1)  # red strip at the left end
    crop = crop_box(image, (70, 80, 130, 120), SPEC)
    dark = (crop.sum(axis=2) < 300)
    red = (crop[..., 2] > 200) & (crop[..., 1] < 80)
    bx0, by0, bx1, by1 = blob_box(dark | red)
    assert (by1 - by0) > (bx1 - bx0) * 1.3  # now taller than wide
    red_y = np.nonzero(red)[0].mean()
    assert red_y < crop.shape[0] / 2


def test_sideways_turn_can_be_switched_off() -> None:
    image = np.full((200, 200, 3), 255, np.uint8)
    cv2.rectangle(image, (70, 80), (129, 119), (0, 0, 0), -1)
    crop = crop_box(image, (70, 80, 130, 120), CropSpec(width=64, height=80, pad=0.08, turn_sideways=False))
    bx0, by0, bx1, by1 = blob_box(crop[..., 0] < 128)
    assert (bx1 - bx0) > (by1 - by0)


def test_perspective_quad_is_rectified() -> None:
    """A tile drawn through a homography and cropped by its warped corners matches the crop of the flat tile."""
    rng = np.random.default_rng(3)
    flat = np.full((400, 400, 3), 230, np.uint8)
    tile = rng.integers(0, 255, (12, 9, 3), dtype=np.uint8)
    flat[150:270, 150:240] = cv2.resize(tile, (90, 120), interpolation=cv2.INTER_NEAREST)
    corners = quad_from_box(150, 150, 240, 270)
    warped_corners = corners + np.array([[12, -6], [-9, 4], [7, 10], [-5, -8]], np.float32)
    homography = cv2.getPerspectiveTransform(corners, warped_corners)
    warped = cv2.warpPerspective(flat, homography, (400, 400), flags=cv2.INTER_LINEAR, borderValue=(230, 230, 230))
    expected = crop_quad(flat, corners, SPEC).astype(int)
    got = crop_quad(warped, warped_corners, SPEC).astype(int)
    assert np.abs(expected - got).mean() < 12
    other_tile = crop_quad(warped, warped_corners + 30, SPEC).astype(int)
    assert np.abs(expected - other_tile).mean() > 2 * np.abs(expected - got).mean()


def test_corner_order_does_not_matter() -> None:
    quad = np.array([[10, 10], [50, 12], [48, 70], [8, 66]], np.float32)
    shuffled = quad[[2, 0, 3, 1]]
    assert np.array_equal(order_quad(shuffled), quad)


def test_many_quads_are_ordered_at_once_as_each_alone() -> None:
    # Quads built in tl, tr, br, bl order (a tile tilted by up to 30 degrees), their corners shuffled each its own way.
    rng = np.random.default_rng(3)
    built, shuffled = [], []
    for _ in range(50):
        angle = rng.uniform(-np.pi / 6, np.pi / 6)
        cx, cy, w, h = rng.uniform(50, 500), rng.uniform(50, 500), rng.uniform(10, 60), rng.uniform(10, 80)
        corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        quad = (corners @ turn.T + [cx, cy]).astype(np.float32)
        built.append(quad)
        shuffled.append(quad[rng.permutation(4)])
    assert np.array_equal(order_quads(np.array(shuffled)), np.array(built))
    with pytest.raises(FanscanError, match="finite"):
        order_quads(np.array([built[0], np.full((4, 2), np.inf, np.float32)]))
    with pytest.raises(FanscanError):
        crop_tiles(np.zeros((50, 50, 3), np.uint8), [built[0], [[0, 0], [1, 1]]], SPEC)


def test_big_photo_gives_the_same_crop_as_a_small_one() -> None:
    """Large tiles are shrunk with area averaging first; the result matches cropping a downscaled photo."""
    rng = np.random.default_rng(0)
    small = cv2.resize(rng.integers(0, 255, (40, 40, 3), dtype=np.uint8), (400, 400), interpolation=cv2.INTER_CUBIC)
    big = cv2.resize(small, (2000, 2000), interpolation=cv2.INTER_CUBIC)
    a = crop_box(small, (100, 100, 160, 180), SPEC).astype(int)
    b = crop_box(big, (500, 500, 800, 900), SPEC).astype(int)
    assert np.abs(a - b).mean() < 6


def test_crop_tiles_batches_and_handles_none() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    quads = [quad_from_box(10, 10, 30, 40), quad_from_box(50, 50, 80, 70)]
    assert crop_tiles(image, quads, SPEC).shape == (2, 80, 64, 3)
    assert crop_tiles(image, [], SPEC).shape == (0, 80, 64, 3)
    assert crop_tiles(np.zeros((100, 100), np.uint8), quads, SPEC).shape == (2, 80, 64, 3)


@pytest.mark.parametrize("quad", [[[0, 0], [1, 1]], [[0, 0], [10, 0], [10, 10], [0, np.nan]]])
def test_bad_quads_are_refused(quad) -> None:
    with pytest.raises(FanscanError):
        crop_quad(np.zeros((50, 50, 3), np.uint8), quad, SPEC)


def test_degenerate_box_and_bad_spec_are_refused() -> None:
    with pytest.raises(FanscanError):
        crop_box(np.zeros((50, 50, 3), np.uint8), (10, 10, 10.2, 30), SPEC)
    with pytest.raises(FanscanError):
        crop_box(np.zeros((0, 0, 3), np.uint8), (1, 1, 5, 5), SPEC)
    with pytest.raises(FanscanError):
        CropSpec(width=2, height=80)
    with pytest.raises(FanscanError):
        CropSpec(max_aspect=2.0, stretched_aspect=3.0)
