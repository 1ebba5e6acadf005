"""A box far larger than its photo's other tiles is dropped before it is read (`vision.outsized`)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from fanscan.vision.detect import DEFAULT_WEAK_EVIDENCE, make_tile
from fanscan.vision.outsized import OUTSIZED_FROM, OUTSIZED_LONG_SIDE, outsized, without_outsized
from fanscan.vision.pipeline import Pipeline

SHAPE = (480, 640, 3)  # the photo the boxes lie in


def tile(x0: float, y0: float, width: float, height: float):
    return make_tile(np.array([x0, y0, x0 + width, y0 + height], np.float32), 0.8)


def row(count: int, width: float = 40, height: float = 54) -> list:
    return [tile(20 + i * (width + 4), 300, width, height) for i in range(count)]


def test_a_box_over_the_bar_times_the_median_long_side_is_outsized_and_one_under_it_is_not():
    tiles = row(6)  # long side 54 each: the median
    just_over = tile(400, 40, 50, 54 * OUTSIZED_LONG_SIDE + 1)
    just_under = tile(500, 40, 50, 54 * OUTSIZED_LONG_SIDE - 1)
    assert outsized([*tiles, just_over, just_under], SHAPE).tolist() == [False] * 6 + [True, False]


def test_a_lying_box_is_measured_by_its_long_side_like_a_standing_one():
    tiles = row(6)
    lying = tile(400, 40, 54 * OUTSIZED_LONG_SIDE + 1, 40)  # wide, not tall: still too large
    assert without_outsized([*tiles, lying], SHAPE) == tiles


def test_a_photo_with_too_few_boxes_for_a_median_keeps_its_large_tile():
    # A close-up: one large tile and the fragments of its neighbours; with fewer than OUTSIZED_FROM boxes nothing is
    # measured against them.
    fragments = [tile(20 + 30 * i, 400, 20, 24) for i in range(OUTSIZED_FROM - 2)]
    large = tile(100, 20, 300, 300)  # behind the fragments
    assert without_outsized([*fragments, large], SHAPE) == [*fragments, large]
    one_more = tile(500, 400, 20, 24)
    assert without_outsized([*fragments, one_more, large], SHAPE) == [*fragments, one_more]


def test_boxes_at_the_photos_edge_do_not_set_the_median():
    # A crop of a hand: two whole large tiles, the small cut ends of their neighbours at the top and bottom edges.
    whole = [tile(60, 150, 170, 300), tile(240, 150, 170, 300)]
    cut = [tile(20 + 100 * i, 0, 90, 60) for i in range(4)] + [tile(20 + 100 * i, 420, 90, 60) for i in range(4)]
    assert without_outsized([*whole, *cut], SHAPE) == [*whole, *cut]
    # Measured against five whole tiles, a box at the edge is judged like any other.
    small = row(5)
    assert without_outsized([*small, tile(0, 20, 200, 260)], SHAPE) == small
    within_bar = tile(0, 100, 40, 54 * OUTSIZED_LONG_SIDE - 2)
    assert without_outsized([*small, within_bar], SHAPE) == [*small, within_bar]


def test_large_tiles_in_front_of_the_others_are_kept_and_a_large_box_behind_them_is_not():
    # A photo from the seat: the hand row near the camera at the bottom, twice the size of the many discards behind
    # it; and a book on a shelf behind the discards, as large as the hand's tiles.
    discards = [tile(40 + 50 * (i % 10), 120 + 60 * (i // 10), 30, 40) for i in range(20)]
    hand = [tile(20 + 44 * i, 380, 42, 80) for i in range(14)]
    book = tile(300, 10, 30, 90)
    assert outsized([*discards, *hand, book], SHAPE).tolist() == [False] * 34 + [True]


@pytest.mark.parametrize("factor", [float("nan"), 0.0, -1.0])
def test_a_bar_that_is_no_size_ratio_is_refused_in_one_line(factor):
    with pytest.raises(ValueError, match="outsized"):
        outsized(row(6), SHAPE, factor)


class RowDetector:
    """A stand-in detector that finds six tiles in a row and one box three times their size (a book behind)."""

    info = SimpleNamespace(weak_evidence=DEFAULT_WEAK_EVIDENCE)

    def detect(self, image: np.ndarray, refine: bool = True, merge_splits: bool = True) -> list:
        return [*row(6), tile(440, 20, 120, 160)]


class PlainClassifier:
    """A stand-in classifier: every crop is a one of bamboo."""

    def classify(self, crops: np.ndarray, top_k: int) -> list:
        return [[("1s", 0.9), ("none", 0.1)] for _ in crops]


def test_the_pipeline_reads_the_photos_tiles_without_the_outsized_box_unless_told_to_keep_it():
    photo = np.full((480, 640, 3), 200, np.uint8)
    kept = Pipeline(RowDetector(), PlainClassifier(), aspect_search=False, scale_pass=False).propose(photo)
    assert len(kept.tiles) == 6
    assert all(t.box[2] < 440 for t in kept.tiles)  # the large box began at x = 440
    everything = Pipeline(RowDetector(), PlainClassifier(), aspect_search=False, scale_pass=False,
                          outsized_boxes=None).propose(photo)
    assert len(everything.tiles) == 7
