"""Grouping: rows and gaps, melds from how tiles lie, and the reading the rules choose (synthetic geometries)."""

from __future__ import annotations

import math

import pytest
from fanscan.scoring.notation import format_hand
from fanscan.vision import group
from fanscan.vision.group import COMPLETE, INCOMPLETE, READY, ObservedTile, choose_reading
from fanscan.vision.readings import Candidate, best_first, prune_candidates
from fanscan.vision.rows import find_rows
from hand_layouts import TILE_W, lay_row, tiles_of

# ---- rows and gaps ------------------------------------------------------------------------------------------------


def test_two_rows_are_found_top_to_bottom():
    top = lay_row(tiles_of("123m"), y=50)
    bottom = lay_row(tiles_of("456p78s"), y=150)
    layout = find_rows([t.quad for t in bottom + top])  # given bottom row first
    assert [len(row.tiles) for row in layout.rows] == [3, 5]
    assert layout.rows[0].tiles == (5, 6, 7)  # the top row holds the tiles given last


def test_a_tilted_row_stays_one_row_and_its_angle_is_measured():
    row = lay_row(tiles_of("123456789m"), angle_deg=12.0)
    layout = find_rows([t.quad for t in row])
    assert len(layout.rows) == 1 and len(layout.rows[0].groups) == 1
    assert math.isclose(layout.angle_deg, 12.0, abs_tol=0.5)


def test_small_regular_spacing_does_not_split_but_a_clear_gap_does():
    spaced = lay_row(tiles_of("1234567m"), gap=0.22 * TILE_W)
    assert len(find_rows([t.quad for t in spaced]).rows[0].groups) == 1
    specs = tiles_of("123456m")
    specs[3] = {"tile": specs[3], "gap_before": 0.7 * TILE_W}
    layout = find_rows([t.quad for t in lay_row(specs)])
    assert layout.rows[0].groups == ((0, 1, 2), (3, 4, 5))
    assert layout.rows[0].gaps[0] == pytest.approx(0.7 + 2 / TILE_W, abs=0.01)


# ---- melds -------------------------------------------------------------------------------------------------------


def test_sideways_tile_marks_a_claimed_chow_and_pung_with_claim_index():
    melds = [{"tile": "3m", "sideways": True}, "4m", "5m",
             {"tile": "E", "gap_before": 20}, {"tile": "E", "sideways": True}, "E"]
    standing = [{"tile": "1p", "gap_before": 20}, *tiles_of("23p789s"), "5s", "5s"]
    tiles = lay_row([*melds, *standing[:-1]]) + lay_row([standing[-1]], y=200)
    grouping = choose_reading(tiles)
    best = grouping.best
    assert best.status == COMPLETE
    kinds = [(m.meld.kind, m.meld.tile, m.meld.claim) for m in best.melds]
    assert kinds == [("chow", "3m", 1), ("pung", "E", 2)]
    assert format_hand(best.hand()).startswith("[345m,1][EEE,2]")


def test_touching_claimed_melds_are_cut_one_sideways_tile_each():
    melds = ["7p", {"tile": "7p", "sideways": True}, "7p", "7p", {"tile": "2s", "sideways": True}, "3s", "4s"]
    standing = [{"tile": "1m", "gap_before": 25}, *tiles_of("23mEEE9s9s")]
    best = choose_reading(lay_row(melds + standing)).best
    assert best.status == COMPLETE
    assert [(m.meld.kind, m.meld.tile) for m in best.melds] == [("kong", "7p"), ("chow", "2s")]
    assert [len(m.indices) for m in best.melds] == [4, 3]


def test_two_backs_with_two_faces_are_a_concealed_kong():
    kong = ["back", "5p", "5p", "back"]
    standing = [{"tile": "1m", "gap_before": 25}, *tiles_of("23m678s99sEEE")]
    best = choose_reading(lay_row(kong + standing)).best
    assert best.status == COMPLETE
    (meld,) = best.melds
    assert meld.meld.kind == "kong" and meld.meld.concealed and meld.meld.tile == "5p"
    assert format_hand(best.hand()).startswith("[5555p]")


def test_a_back_outside_a_concealed_kong_is_left_out():
    best = choose_reading(lay_row([*tiles_of("123m456p789s11pEE"), "back", "E"])).best
    assert best.status == COMPLETE
    assert best.face_down == (13,) and 13 not in best.standing


def test_a_sideways_tile_without_a_meld_is_read_as_standing():
    specs = [*tiles_of("123m456p789s11pE"), {"tile": "E", "gap_before": 25, "sideways": True}, "E"]
    grouping = choose_reading(lay_row(specs))
    assert grouping.lone_sideways == (12,)
    assert grouping.best.status == COMPLETE and not grouping.best.melds


def test_tiles_lying_like_a_meld_but_reading_as_none_count_as_standing():
    specs = [{"tile": "1m", "sideways": True}, "5p", "9s", {"tile": "2m", "gap_before": 25},
             *tiles_of("3m4p6p7s8s11pEEE")]
    best = choose_reading(lay_row(specs)).best
    assert best.loose_claims == ((0, 1, 2),) and not best.melds
    assert best.status == COMPLETE


def test_flowers_and_seasons_go_apart_wherever_they_lie():
    specs = ["a", *tiles_of("123m456p789s"), "g", *tiles_of("11pEE"), {"tile": "E", "gap_before": 20}]
    best = choose_reading(lay_row(specs)).best
    assert best.status == COMPLETE
    assert best.flower_tiles() == ("a", "g")
    assert "a" not in best.hand().all_tiles() and len(best.hand().all_tiles()) == 14


def test_a_tile_set_apart_is_the_winning_tile():
    specs = [*tiles_of("2345678m"), "9m", *tiles_of("11pEEE"), {"tile": "1m", "gap_before": 25}]
    best = choose_reading(lay_row(specs)).best
    assert best.status == COMPLETE
    assert best.winning_set_apart and best.tiles[best.winning] == "1m"
    assert format_hand(best.hand()).endswith("1m")
    # Without the gap the last tile is assumed to be the winning tile, and the reading says it assumed so.
    best = choose_reading(lay_row([*tiles_of("23456789m11pEEE"), "1m"])).best
    assert not best.winning_set_apart and best.tiles[best.winning] == "1m"


def test_a_none_reading_is_dropped():
    specs = [*tiles_of("123m456p789s11p"), (("none", 0.95), ("E", 0.05)), *tiles_of("EEE")]
    best = choose_reading(lay_row(specs)).best
    assert best.status == COMPLETE and len(best.dropped) == 1


# ---- the reading search -------------------------------------------------------------------------------------------


def test_rules_pick_a_winning_reading_over_a_more_probable_non_winning_one():
    uncertain = (("6p", 0.55), ("7p", 0.41), ("8p", 0.04))
    specs = [*tiles_of("123m45p"), uncertain, *tiles_of("789sEEE1p"), "1p"]
    grouping = choose_reading(lay_row(specs))
    best = grouping.best
    assert best.status == COMPLETE
    assert best.tiles[5] == "6p"  # 456p is already winning: the most probable reading stands
    specs[5] = (("7p", 0.55), ("6p", 0.41), ("8p", 0.04))
    grouping = choose_reading(lay_row(specs))
    # 457p is no winning hand, but the rules do not overrule the classifier (RULES_MARGIN, chosen on dev): its
    # reading is proposed, and the winning one, 6p, is their suggestion and the first alternative.
    assert grouping.best.tiles[5] == "7p" and grouping.best.status != COMPLETE
    assert grouping.suggestion is grouping.alternatives[0]
    assert grouping.suggestion.tiles[5] == "6p" and grouping.suggestion.status == COMPLETE
    assert grouping.suggestion.cost - grouping.best.cost == pytest.approx(math.log(0.55 / 0.41))


def test_within_a_wider_rules_margin_the_winning_reading_is_proposed(monkeypatch):
    monkeypatch.setattr(group, "RULES_MARGIN", math.log(1000.0))
    specs = [*tiles_of("123m45p"), (("7p", 0.55), ("6p", 0.41), ("8p", 0.04)), *tiles_of("789sEEE1p"), "1p"]
    grouping = choose_reading(lay_row(specs))
    assert grouping.best.tiles[5] == "6p" and grouping.best.status == COMPLETE and grouping.suggestion is None
    # The more probable but not winning reading is kept as an alternative.
    assert any(alt.tiles[5] == "7p" and alt.status != COMPLETE for alt in grouping.alternatives)


def test_alternatives_keep_other_winning_readings_in_order_of_probability():
    specs = [*tiles_of("34p"), (("2p", 0.5), ("5p", 0.45), ("9s", 0.05)), *tiles_of("123m789sEEE1p"), "1p"]
    grouping = choose_reading(lay_row(specs))
    assert grouping.best.tiles[2] == "2p"
    complete_alternatives = [a for a in grouping.alternatives if a.status == COMPLETE]
    assert complete_alternatives and complete_alternatives[0].tiles[2] == "5p"
    assert complete_alternatives[0].cost > grouping.best.cost


def test_no_more_than_four_of_a_kind():
    specs = [*tiles_of("1111m23m456p789p5s"), (("1m", 0.6), ("5s", 0.4))]
    best = choose_reading(lay_row(specs)).best
    assert best.tiles[-1] == "5s" and best.status == COMPLETE


def test_rules_do_not_overrule_a_confident_classifier():
    # 1m 3m 4m ... is not a hand; 2m would make one, but the classifier gives it 1 in 2000.
    specs = [(("1m", 0.9995), ("2m", 0.0005)), *tiles_of("34m789m55666pFFF")]
    grouping = choose_reading(lay_row(specs))
    assert grouping.best.tiles[0] == "1m"
    assert grouping.best.status == INCOMPLETE


def test_thirteen_tiles_are_read_as_a_ready_hand_without_a_winning_tile():
    uncertain = (("4s", 0.6), ("5s", 0.4))
    specs = [*tiles_of("44p44s"), uncertain, *tiles_of("234mSSSFF")]
    best = choose_reading(lay_row(specs)).best
    assert best.status == READY and best.winning is None
    assert best.tiles[4] == "4s"
    assert format_hand(best.hand()).endswith(" ")  # GB notation of a hand without its winning tile


def test_near_certain_tiles_do_not_branch():
    specs = [((t, 0.9999), ("5m", 0.00005), ("6m", 0.00005)) for t in tiles_of("123m456p789s11pEEE")]
    grouping = choose_reading(lay_row(specs))
    assert grouping.best.status == COMPLETE
    assert grouping.readings_checked == 1


def test_no_tiles_gives_a_warning_and_no_reading():
    grouping = choose_reading([])
    assert grouping.best is None and grouping.warnings == ("no tiles found in this photo",)


def test_best_first_enumerates_every_reading_once_in_cost_order():
    options = [
        prune_candidates([("a", 0.5), ("b", 0.3), ("c", 0.2)], 10.0),
        prune_candidates([("x", 0.9)], 10.0),
        prune_candidates([("p", 0.6), ("q", 0.4)], 10.0),
    ]
    out = list(best_first(options, math.inf))
    costs = [c for c, _ in out]
    assert costs == sorted(costs)
    assert sorted(choice for _, choice in out) == sorted({(i, 0, k) for i in range(3) for k in range(2)})
    expected = [-math.log(options[0][i].prob * 0.9 * options[2][k].prob) for _, (i, _, k) in out]
    assert costs == pytest.approx(expected)


def test_prune_keeps_the_best_and_drops_implausible_candidates():
    kept = prune_candidates([("b", 0.0005), ("a", 0.9), ("c", 0.0995)], max_cost_over_best=math.log(1000))
    assert [c.tile for c in kept] == ["a", "c"]
    assert prune_candidates([("a", 0.5)], 0.0) == (Candidate("a", 0.5),)


def test_a_photo_turned_a_quarter_is_read_as_rows():
    # A row of upright tiles with a claimed pung, photographed turned 90 degrees: every tile's box is wider than
    # tall (sideways) except the claimed one.
    specs = [{"tile": "E", "sideways": True}, "E", "E",
             {"tile": "1m", "gap_before": 25}, *tiles_of("23m456p789s1p"), "1p"]
    upright = lay_row(specs)
    turned = [
        ObservedTile(tuple((-y, x) for x, y in t.quad), "upright" if t.orientation == "sideways" else "sideways",
                     t.candidates)
        for t in upright
    ]
    grouping = choose_reading(turned)
    assert len(grouping.layout.rows) == 1
    assert [(m.meld.kind, m.meld.tile) for m in grouping.best.melds] == [("pung", "E")]
    assert grouping.best.status == COMPLETE


def test_sideways_is_judged_against_the_other_tiles_shape():
    # The detector calls a loose, slightly wide box 'sideways'; among tiles 4:3 tall it is not a tile lying down.
    tiles = lay_row(tiles_of("123m456p789s11pEEE"))
    x0, y0 = tiles[4].quad[0]
    wide = ((x0 - 7, y0), (x0 + 37, y0), (x0 + 37, y0 + 40), (x0 - 7, y0 + 40))
    tiles[4] = ObservedTile(wide, "sideways", tiles[4].candidates)
    grouping = choose_reading(tiles)
    assert grouping.layout.across is not None and not any(grouping.layout.across)
    assert grouping.lone_sideways == () and grouping.best.status == COMPLETE
