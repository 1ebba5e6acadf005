"""The squeezed-photo search (vision.aspect): it runs only on weak or squeezed-looking first passes, picks the shrink
under which the detector finds tile-shaped boxes, and maps the boxes back to the photo's own pixels."""

from __future__ import annotations

import numpy as np
import pytest
from fanscan.vision import aspect
from fanscan.vision.detect import make_tile


def row_of_tiles(count: int, width: float, height: float, score: float) -> list:
    return [make_tile(np.array([10 + i * width, 20, 10 + (i + 1) * width, 20 + height]), score) for i in range(count)]


class FakeDetector:
    """Finds 14 confident tile-shaped tiles only in a photo shrunk to a quarter of its height; elsewhere two weak,
    thin boxes. Counts its calls."""

    def __init__(self, height: int) -> None:
        self.height, self.calls = height, 0

    def __call__(self, image: np.ndarray) -> list:
        self.calls += 1
        if image.shape[0] == self.height // 4:
            return row_of_tiles(14, 30, 40, 0.9)
        return row_of_tiles(2, 30, 200, 0.2)


def test_a_weak_first_pass_is_searched_and_the_right_shrink_wins():
    image = np.zeros((640, 640, 3), np.uint8)
    detect = FakeDetector(640)
    shrunk, fix, found = aspect.unsqueeze(image, detect, detect(image))
    assert fix == aspect.AspectFix(1.0, 4.0) and shrunk.shape[:2] == (160, 640)
    assert len(found) == 14
    back = aspect.stretched_back(found, fix)
    assert back[0].box == pytest.approx((10, 80, 40, 240))  # y times 4, x unchanged
    assert back[0].quad[2].tolist() == pytest.approx([40, 240])
    assert back[0].orientation == found[0].orientation


def test_a_confident_first_pass_costs_no_second_look():
    image = np.zeros((640, 640, 3), np.uint8)
    first = row_of_tiles(14, 30, 40, 0.9)
    detect = FakeDetector(640)
    shrunk, fix, found = aspect.unsqueeze(image, detect, first)
    assert detect.calls == 0 and shrunk is image and not fix.changed and found == first


def test_boxes_long_the_same_way_show_the_squeezed_axis():
    assert aspect.squeezed_axis(row_of_tiles(5, 10, 80, 0.9)) == "y"
    assert aspect.squeezed_axis(row_of_tiles(5, 80, 10, 0.9)) == "x"
    assert aspect.squeezed_axis(row_of_tiles(5, 30, 40, 0.9)) is None
    assert aspect.squeezed_axis(row_of_tiles(2, 10, 80, 0.9)) is None  # too few to say


def test_a_large_photo_is_searched_small_and_detected_once_at_full_size():
    image = np.zeros((2560, 2560, 3), np.uint8)
    detect = FakeDetector(640)  # at the 640-px search copy, a quarter of its height finds the tiles
    shrunk, fix, _ = aspect.unsqueeze(image, detect, detect(image))
    assert fix == aspect.AspectFix(1.0, 4.0) and shrunk.shape[:2] == (640, 2560)


class SquashingDetector:
    """A photo of nine tall tiles (3.2 x taller than wide, as an export's squeeze leaves them) found with scores
    0.42; every shrunk copy shows more boxes, square and weaker (0.34): the detector seeing tiles squashed flat, as
    riichi-table-leomiura's frames shrunk 8x were read (issue 18)."""

    def __init__(self, height: int) -> None:
        self.height = height

    def __call__(self, image: np.ndarray) -> list:
        if image.shape[0] == self.height:
            return row_of_tiles(9, 40, 128, 0.42)
        return row_of_tiles(12, 20, 22, 0.34)


def test_a_shrink_that_finds_more_but_weaker_boxes_does_not_replace_the_first_look():
    image = np.zeros((640, 640, 3), np.uint8)
    detect = SquashingDetector(640)
    first = detect(image)
    assert sum(d.score for d in first) < aspect.WEAK_EVIDENCE  # the search does run
    shrunk, fix, found = aspect.unsqueeze(image, detect, first)
    assert not fix.changed and shrunk is image and found == first


def test_a_camera_frame_has_a_natural_aspect_and_a_squeezed_strip_does_not():
    assert aspect.natural_aspect((480, 640, 3)) and aspect.natural_aspect((4032, 3024, 3))
    assert aspect.natural_aspect((1080, 2520, 3))  # 21:9
    assert not aspect.natural_aspect((107, 640, 3))  # a square photo squeezed 6x across
