"""When a second look (scale pass, squeezed-photo search) may replace the first (vision.second_look, issue 18): only
when it finds more tiles scored as well and shaped no worse, or joins the first look's pieces into better-shaped
tiles; never when it loses a tile of the first look."""

from __future__ import annotations

import numpy as np
from fanscan.vision.detect import make_tile
from fanscan.vision.second_look import LookEvidence, better_look


def tile(x0: float, y0: float, x1: float, y1: float, score: float = 0.5):
    return make_tile(np.array([x0, y0, x1, y1], np.float32), score)


def test_evidence_counts_scores_and_shape():
    evidence = LookEvidence.of([tile(0, 0, 30, 40, 0.4), tile(40, 0, 70, 40, 0.6)])
    assert evidence.boxes == 2 and abs(evidence.mean_score - 0.5) < 1e-9
    assert evidence.shape_error < 1e-6  # 30 x 40 is a tile's 0.75
    half = LookEvidence.of([tile(0, 0, 15, 40)])
    assert abs(half.shape_error - abs(np.log(0.375 / 0.75))) < 1e-6
    assert LookEvidence.of([]).shape_error == float("inf")


def test_anything_found_beats_nothing_and_nothing_never_replaces_something():
    assert better_look([], [tile(0, 0, 30, 40)], 0.0)
    assert not better_look([tile(0, 0, 30, 40)], [], 0.0)


def test_more_tiles_must_be_scored_as_well_and_shaped_no_worse():
    first = [tile(0, 0, 30, 40, 0.5)]
    assert better_look(first, [tile(0, 0, 30, 40, 0.5), tile(40, 0, 70, 40, 0.5)], 0.0)
    assert not better_look(first, [tile(0, 0, 30, 40, 0.3), tile(40, 0, 70, 40, 0.3)], 0.0)  # weaker
    squares = [tile(0, 0, 40, 40, 0.5), tile(50, 0, 90, 40, 0.5)]
    assert not better_look(first, squares, 0.0)  # worse shaped
    assert better_look(first, squares, 0.5)  # within the slack a pass allows


def test_pieces_joined_into_a_better_tile_replace_them_but_a_lost_tile_does_not():
    pieces = [tile(100, 100, 140, 300, 0.4), tile(140, 100, 180, 300, 0.4)]  # one tile found as two halves
    whole = [tile(95, 95, 185, 305, 0.45)]
    assert better_look(pieces, whole, 0.0)
    two_tiles = [tile(0, 0, 30, 40, 0.5), tile(200, 0, 230, 40, 0.5)]
    assert not better_look(two_tiles, [two_tiles[0]], 0.0)  # the second tile is lost
    assert not better_look(two_tiles, [tile(0, 0, 30, 40, 0.6)], 0.0)


def test_one_tile_in_pieces_needs_a_tile_shaped_box_and_pieces_in_one_line():
    from fanscan.vision.second_look import pieces_of_one_tile

    box = (0, 0, 300, 400)  # a tile: 0.75
    column = np.array([[20, 10, 280, 140], [10, 135, 290, 270], [25, 260, 275, 390]], float)  # centres x 150, 150, 150
    assert pieces_of_one_tile(box, column)
    assert not pieces_of_one_tile(box, column[:2])  # two pieces may be two tiles stacked
    assert not pieces_of_one_tile((0, 0, 300, 600), column)  # a box of two tiles' length
    block = np.array([[0, 0, 150, 200], [150, 0, 300, 200], [0, 200, 150, 400]], float)  # three of a 2 x 2 block
    assert not pieces_of_one_tile(box, block)
    rows = [tile(20, 10, 280, 140, 0.4), tile(10, 135, 290, 270, 0.4), tile(25, 260, 275, 390, 0.4)]
    assert better_look(rows, [tile(0, 0, 300, 400, 0.45)], 0.0)  # the rows joined into their tile
