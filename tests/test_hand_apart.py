"""The hand apart from the table: synthetic table layouts where the test knows which tiles are the hand."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from fanscan.scoring import parse_hand
from fanscan.scoring.notation import format_hand
from fanscan.vision.group import COMPLETE, ObservedTile, choose_reading
from fanscan.vision.hand_apart import split_hand
from fanscan.vision.proposal import TABLE, HandProposal, build_proposal, revise
from fanscan.vision.rows import find_rows
from hand_layouts import TILE_H, TILE_W, lay_row, sure, tiles_of

from fanscan.confirm import describe_proposal

HAND = "123m456p789s11pEEE"  # 14 tiles, a complete hand
HAND_Y = 400.0  # the hand row's top: the bottom of the photo


def hand_row(**kwargs) -> list[ObservedTile]:
    return lay_row(tiles_of(HAND), y=HAND_Y, **kwargs)


def discard_rows(n_rows: int, per_row: int = 6, first_gap: float = 1.5) -> list[ObservedTile]:
    """Rows of discards lying flat beyond the hand: smaller (60 % and less further away) and shorter."""
    tiles: list[ObservedTile] = []
    y = HAND_Y - first_gap * TILE_H
    for k in range(n_rows):
        scale = 0.6 - 0.05 * k
        y -= TILE_H * scale * 0.7 + 6
        tiles += lay_row(tiles_of("19m19p19sESWNCFP")[k:k + per_row], y=y, x=120.0, scale=scale, flat=0.7)
    return tiles


def scattered(n: int, seed: int) -> list[ObservedTile]:
    """Discards strewn over the table beyond the hand at any angle (enclosing boxes), smaller further away."""
    rng = random.Random(seed)
    tiles: list[ObservedTile] = []
    while len(tiles) < n:
        y = rng.uniform(20, HAND_Y - 1.5 * TILE_H)
        scale = 0.5 + 0.1 * y / HAND_Y
        w, h = TILE_W * scale, TILE_H * scale * 0.7
        side = max(w, h) * rng.uniform(1.0, 1.4)  # a turned tile's box is wider
        x = rng.uniform(10, 500)
        quad = ((x, y), (x + side, y), (x + side, y + h * rng.uniform(1.0, 1.4)), (x, y + h * rng.uniform(1.0, 1.4)))
        if any(abs(x - t.quad[0][0]) < side and abs(y - t.quad[0][1]) < side for t in tiles):
            continue
        tiles.append(ObservedTile(quad, "upright", sure(rng.choice(["5m", "6p", "C"]))))
    return tiles


def test_discard_rows_beyond_the_hand_are_set_aside():
    discards = discard_rows(3)
    tiles = discards + hand_row()  # discards first: the hand is not simply the first tiles given
    grouping = choose_reading(tiles)
    assert set(grouping.set_aside) == set(range(len(discards)))
    assert grouping.best.status == COMPLETE
    assert sorted(grouping.best.hand().all_tiles()) == sorted(tiles_of(HAND))
    assert not grouping.hand_ambiguous


def test_scattered_discards_are_set_aside():
    for seed in range(5):
        discards = scattered(12, seed)
        grouping = choose_reading(hand_row() + discards)
        assert set(grouping.set_aside) == set(range(14, 14 + len(discards))), seed
        assert grouping.best.status == COMPLETE


def test_a_discard_in_line_with_the_hand_but_far_along_it_is_set_aside():
    specs = [*tiles_of(HAND), {"tile": "9m", "gap_before": 8 * TILE_W}]
    grouping = choose_reading(lay_row(specs, y=HAND_Y))
    assert grouping.set_aside == (14,)
    assert grouping.best.status == COMPLETE


def test_melds_beside_the_hand_and_a_winning_tile_in_front_stay_in_the_hand():
    melds = [{"tile": "3m", "sideways": True}, "4m", "5m", {"tile": "E", "gap_before": 20},
             {"tile": "E", "sideways": True}, "E"]
    standing = [{"tile": "1p", "gap_before": 1.5 * TILE_W}, *tiles_of("23p789s5s")]
    winning = lay_row(["5s"], y=HAND_Y + 1.4 * TILE_H, x=400.0)
    tiles = lay_row(melds + standing, y=HAND_Y) + winning + discard_rows(2)
    grouping = choose_reading(tiles)
    assert set(grouping.set_aside) == set(range(len(melds) + len(standing) + 1, len(tiles)))
    best = grouping.best
    assert best.status == COMPLETE
    assert format_hand(best.hand()).startswith("[345m,1][EEE,2]")


def test_a_hand_alone_has_nothing_set_aside():
    for tiles in (hand_row(), hand_row(gap=0.2 * TILE_W), hand_row(angle_deg=10.0),
                  lay_row(tiles_of(HAND)[:7], y=HAND_Y) + lay_row(tiles_of(HAND)[7:], y=HAND_Y + TILE_H + 5)):
        grouping = choose_reading(tiles)
        assert grouping.set_aside == () and grouping.best.status == COMPLETE


def test_two_rows_either_of_which_could_be_the_hand_are_called_ambiguous():
    other = lay_row(tiles_of("123456789m1234p"), y=HAND_Y - 4 * TILE_H)
    grouping = choose_reading(other + hand_row())
    assert grouping.set_aside == tuple(range(13))  # the row nearer the camera is the hand
    assert grouping.hand_ambiguous


def test_forced_tiles_stay_where_the_user_put_them():
    discards = discard_rows(1)
    tiles = hand_row() + discards
    layout = find_rows([t.quad for t in tiles])
    forced = [None] * len(tiles)
    forced[14], forced[0] = False, True
    apart = split_hand(layout, [t.quad for t in tiles], forced)
    assert 14 in apart.hand and 0 in apart.set_aside
    assert set(apart.set_aside) == {0, *range(15, len(tiles))}


def test_the_proposal_shows_set_aside_tiles_and_a_fix_takes_one_back():
    # Discards read with certainty (no `none` candidate, which the rules could pick to drop a tile taken back).
    discards = [replace(t, candidates=t.candidates[:1]) for t in discard_rows(1, per_row=3)]
    tiles = discards + hand_row()
    proposal = build_proposal(tiles, choose_reading(tiles), "table.jpg", (800, 600))
    table = [t.number for t in proposal.tiles if t.role == TABLE]
    assert table == [1, 2, 3]  # the discard row is above the hand: numbered first
    assert proposal.status == COMPLETE and sorted(parse_hand(proposal.hand).all_tiles()) == sorted(tiles_of(HAND))
    assert any("tiles 1-3 set aside" in w for w in proposal.warnings)
    assert sum("(table)" in line for line in describe_proposal(proposal)) == 1  # one row of cells holds all three
    data = json.loads(proposal.to_json())
    assert [t["role"] for t in data["tiles"]][:3] == [TABLE] * 3
    assert HandProposal.from_json(proposal.to_json()).tiles[0].role == TABLE
    # Taking tile 2 (9m, read from the discards) back: 15 tiles in the hand now, tiles 1 and 3 still set aside.
    taken = revise(proposal, {2: "hand"})
    assert [t.number for t in taken.tiles if t.role == TABLE] == [1, 3]
    assert taken.tiles[1].role != TABLE and taken.status != COMPLETE
    # A fix to a reading puts the tile in the hand too; 'table' sets a hand tile aside.
    again = revise(taken, {2: "table", 17: "table"})
    assert [t.number for t in again.tiles if t.role == TABLE] == [1, 2, 3, 17]
    fixed = revise(proposal, {3: "1m"})
    assert fixed.tiles[2].role != TABLE and fixed.tiles[2].tile == "1m"


def enclosing_boxes(tiles: list[ObservedTile]) -> list[ObservedTile]:
    """The tiles as the detector gives them: axis-aligned boxes around each tile."""
    out = []
    for t in tiles:
        xs, ys = [p[0] for p in t.quad], [p[1] for p in t.quad]
        quad = ((min(xs), min(ys)), (max(xs), min(ys)), (max(xs), max(ys)), (min(xs), max(ys)))
        out.append(replace(t, quad=quad))
    return out


def test_a_photo_turned_at_an_angle_keeps_its_hand_row_whole():
    for angle in (30.0, 45.0, 60.0):
        hand = lay_row(tiles_of(HAND), x=300.0, y=0.0, angle_deg=angle)
        discards = lay_row(tiles_of("19m19p"), x=500.0, y=-300.0, angle_deg=angle, scale=0.55, flat=0.7)
        grouping = choose_reading(enclosing_boxes(hand + discards))
        assert set(grouping.set_aside) == set(range(14, 18)), angle
        assert grouping.best.status == COMPLETE


def test_when_too_few_tiles_would_be_left_nothing_is_set_aside_and_it_says_so():
    # Two rows of seven, the same size, far apart: either could be the hand, and neither is one.
    tiles = lay_row(tiles_of(HAND)[:7], y=HAND_Y - 4 * TILE_H) + lay_row(tiles_of(HAND)[7:], y=HAND_Y)
    grouping = choose_reading(tiles)
    assert grouping.set_aside == () and grouping.hand_ambiguous
    proposal = build_proposal(tiles, grouping, None, (800, 600))
    assert any("which tiles are the hand is unclear" in w for w in proposal.warnings)
    assert not any(t.role == TABLE for t in proposal.tiles)


def test_the_annotated_photo_marks_set_aside_tiles_apart_from_the_hand():
    from fanscan.vision.annotate import layout_labels

    tiles = discard_rows(1, per_row=3) + hand_row()
    proposal = build_proposal(tiles, choose_reading(tiles), None, (800, 600))
    labels, _ = layout_labels(proposal, 800, 600)
    table = {lab.number for lab in labels if lab.text.startswith("(")}
    assert table == {t.number for t in proposal.tiles if t.role == TABLE} == {1, 2, 3}
    hand_colours = {lab.colour for lab in labels if lab.number not in table}
    assert not hand_colours & {lab.colour for lab in labels if lab.number in table}
