"""Fans not counted (non-repeat, non-separation): every fan a scored fan drops is listed once, with the count it
would have scored and the fan that implies it. Expectations worked out by hand from the Green Book exclusion
lists (RULES.md; tests/fixtures/mcr/score_definition.xml) and seed 001's values."""

from __future__ import annotations

import pytest
from fanscan.scoring import score

from fanscan.cli import main


def not_counted(hand: str) -> dict[str, tuple[int, int, str]]:
    """fan id -> (count, points it would have scored, implying fan id)."""
    return {e.id: (e.count, e.value * e.count, e.implied_by) for e in score(hand).excluded}


def scored(hand: str) -> dict[str, int]:
    return {f.id: f.points for f in score(hand).fans}


@pytest.mark.parametrize(("hand", "fans", "dropped"), [
    # Seven Pairs self-drawn: Seven Pairs 24, All Types 6 (m p s, E, C), Self Drawn 1 (Fully Concealed Hand is
    # dropped by Seven Pairs and then implies nothing, RULINGS M3); Pair Wait: the hand waited on C alone.
    ("1155m3399p77sEECC|EE1000", {"seven_pairs": 24, "all_types": 6, "self_drawn": 1},
     {"fully_concealed_hand": (1, 4, "seven_pairs"), "pair_wait": (1, 1, "seven_pairs")}),
    # the same on a discard: Concealed Hand 2 is what Seven Pairs drops
    ("1155m3399p77sEECC|EE0000", {"seven_pairs": 24, "all_types": 6},
     {"concealed_hand": (1, 2, "seven_pairs"), "pair_wait": (1, 1, "seven_pairs")}),
    # Thirteen Orphans self-drawn (13-sided wait: no Pair Wait): 88 + Self Drawn 1
    ("19m19p19sESWNCFP1m|EE1000", {"thirteen_orphans": 88, "self_drawn": 1},
     {"all_terminals_and_honors": (1, 32, "thirteen_orphans"), "all_types": (1, 6, "thirteen_orphans"),
      "fully_concealed_hand": (1, 4, "thirteen_orphans")}),
    # Greater Honors and Knitted Tiles self-drawn: 24 + Self Drawn 1
    ("147m25p36sESWNCFP|EE1000", {"greater_honors_knitted": 24, "self_drawn": 1},
     {"lesser_honors_knitted": (1, 12, "greater_honors_knitted"), "all_types": (1, 6, "greater_honors_knitted"),
      "fully_concealed_hand": (1, 4, "greater_honors_knitted")}),
    # Big Three Winds (prevalent and seat wind N): its three wind pungs are no Pungs of Terminals (3 x 1)
    ("[EEE,1][SSS,2]WWW5p789m5p|NN0000", {"big_three_winds": 12, "one_voided_suit": 1, "pair_wait": 1},
     {"pung_of_terminals": (3, 3, "big_three_winds")}),
    # Big Four Winds: Big Three Winds 12, All Pungs 6, Prevalent Wind 2 and Seat Wind 2 (EEE), Pung of Terminals x4
    ("[EEE,2][SSSS,1]WWWNN55pN|EE1000",
     {"big_four_winds": 88, "half_flush": 6, "two_concealed_pungs": 2, "melded_kong": 1, "self_drawn": 1},
     {"big_three_winds": (1, 12, "big_four_winds"), "all_pungs": (1, 6, "big_four_winds"),
      "prevalent_wind": (1, 2, "big_four_winds"), "seat_wind": (1, 2, "big_four_winds"),
      "pung_of_terminals": (4, 4, "big_four_winds")}),
    # Nine Gates self-drawn on 5m: Two Concealed Pungs 111m 999m 2, Pung of Terminals 1 (999m; Nine Gates takes
    # one, 幺九刻×1), Self Drawn 1; dropped: Full Flush 24, Fully Concealed Hand 4, No Honor Tiles 1, one Pung of
    # Terminals 1
    ("1112345678999m5m|EE1000",
     {"nine_gates": 88, "two_concealed_pungs": 2, "pung_of_terminals": 1, "self_drawn": 1},
     {"full_flush": (1, 24, "nine_gates"), "fully_concealed_hand": (1, 4, "nine_gates"),
      "no_honors": (1, 1, "nine_gates"), "pung_of_terminals": (1, 1, "nine_gates")}),
    # Quadruple Chow 234s x4: without it the four chows would score Pure Triple Chow 24 and one Pure Double Chow 1
    # (account-once: the spare chow pairs once), and 2s 3s 4s are three Tile Hogs (3 x 2)
    ("[234s,1]234234234s5p5p|EE0000",
     {"quadruple_chow": 48, "all_chows": 2, "all_simples": 2, "one_voided_suit": 1, "pair_wait": 1},
     {"pure_triple_chow": (1, 24, "quadruple_chow"), "pure_double_chow": (1, 1, "quadruple_chow"),
      "tile_hog": (3, 6, "quadruple_chow"), "no_honors": (1, 1, "all_chows")}),
    # Big Three Dragons: Two Dragon Pungs 6, Dragon Pung x3 6, Pung of Terminals x3 3
    ("[CCC,1][FFF,2]PPP5p789m5p|EE0000", {"big_three_dragons": 88, "one_voided_suit": 1, "pair_wait": 1},
     {"two_dragon_pungs": (1, 6, "big_three_dragons"), "dragon_pung": (3, 6, "big_three_dragons"),
      "pung_of_terminals": (3, 3, "big_three_dragons")}),
])
def test_every_dropped_fan_is_listed_with_what_it_would_have_scored(hand: str, fans: dict, dropped: dict) -> None:
    assert scored(hand) == fans
    assert not_counted(hand) == dropped


def test_each_excluded_fan_is_listed_once_per_implying_fan() -> None:
    for hand in ("[234s,1]234234234s5p5p|EE0000", "[123m,1]123m456m789m5p5p", "[EEE,2][SSSS,1]WWWNN55pN|EE1000"):
        keys = [(e.id, e.implied_by) for e in score(hand).excluded]
        assert len(keys) == len(set(keys)), hand


def test_self_drawn_seven_pairs_text_lists_fully_concealed_hand(capsys) -> None:
    assert main(["score", "1155m3399p77sEECC", "--self-drawn"]) == 0
    out = capsys.readouterr().out
    assert "Fully Concealed Hand (4)  - implied by Seven Pairs" in out
    assert "Self Drawn" in out.split("not counted")[0]
