"""HK (seed 000): every item scores on a hand made for it and not on a near miss.

A case is (hand string, win context overrides). "Satisfied" means the item's predicate held on the best
arrangement (scored, or listed as replaced); a near miss must not satisfy it at all. The table must name every item
of the rule set (test_every_item_has_cases), so a new row cannot go untested.
"""

from __future__ import annotations

import pytest
from fanscan.scoring import WinContext, get_rule_set, score
from fanscan.scoring.hk import LIMIT

SELF = {"self_drawn": True}

# item id -> (hand that scores it, context), (near miss that does not, context)
CASES: dict[str, tuple[tuple[str, dict], tuple[str, dict]]] = {
    # 1.1 win-related
    "self_draw": (("[123m,1]456m789m123p55p", SELF), ("[123m,1]456m789m123p55p", {})),
    "concealed_hand": (("123m456m789m123p55p", {}), ("[123m,1]456m789m123p55p", {})),
    "fully_concealed_hand": (("123m456m789m123p55p", SELF), ("[123m,1]456m789m123p55p", SELF)),
    "win_on_kong": (("[1111m]456m789m123p55p", {**SELF, "kong_replacement": True}),
                    ("[1111m]456m789m123p55p", SELF)),
    "rob_a_kong": (("123m456m789m55p123p", {"robbing_kong": True}), ("123m456m789m55p123p", {})),
    "kong_on_kong": (("[1111m][2222p]345s678s9s9s", {**SELF, "kong_replacement": True, "kong_on_kong": True}),
                     ("[1111m][2222p]345s678s9s9s", {**SELF, "kong_replacement": True})),
    "final_draw": (("123m456m789m123p55p", {**SELF, "last_tile": True}),
                   ("123m456m789m123p55p", {"last_tile": True})),
    "final_discard": (("123m456m789m123p55p", {"last_tile": True}),
                      ("123m456m789m123p55p", {**SELF, "last_tile": True})),
    "bless_of_heaven": (("123m456m789m123p55p", {**SELF, "first_tile": True, "seat_wind": "E"}),
                        ("123m456m789m123p55p", {**SELF, "first_tile": True, "seat_wind": "S"})),
    "bless_of_earth": (("123m456m789m123p55p", {"first_tile": True, "seat_wind": "W"}),
                       ("123m456m789m123p55p", {"seat_wind": "W"})),
    # 2.1 common
    "no_terminals": (("234m456m678p345s88s", {}), ("234m456m678p345s99s", {})),
    "one_voided_suit": (("123m456m789m123p55p", {}), ("123m456m789m123p55s", {})),
    "mixed_one_suit": (("123m456m789m111mEE", {}), ("123m456m789m123pEE", {})),
    "one_suit": (("123m456m789m111m55m", {}), ("123m456m789m111mEE", {})),
    "small_tiles": (("123m234p345s123m55p", {}), ("123m234p345s123m66p", {})),
    "medium_tiles": (("345m456p567s345m77p", {}), ("345m456p567s345m88p", {})),
    "big_tiles": (("567m678p789s567m99p", {}), ("567m678p789s567m44p", {})),
    "all_green": (("234s234s666s888sFF", {}), ("234s234s666s999sFF", {})),
    "all_blue": (("EEESSSWWW888pPP", {}), ("EEESSSWWW888pCC", {})),
    "mixed_terminals": (("111m999pEEE111sNN", {}), ("111m999pEEE123sNN", {})),
    "pure_terminals": (("111m999m111p999p11s", {}), ("111m999m111p999pEE", {})),
    "three_numbers": (("111m222m333p111p22s", {}), ("111m222m333p444p22s", {})),
    "two_numbers": (("111m222m111p222p11s", {}), ("111m222m333p111p22s", {})),
    # 3.1 regular patterns
    "all_sequences": (("123m456m789m123p55p", {}), ("123m456m789m111p55p", {})),
    "special_eyes": (("123m456m789m123p55p", {}), ("123m456m789m123p66p", {})),
    "mixed_straight": (("123m456p789s123p55s", {}), ("123m456p789p123p55s", {})),
    "mixed_shifted_sequences": (("123m234p345s678m99p", {}), ("123m234p456s678m99p", {})),
    "small_four_in_one": (("111m123m456p789p55s", {}), ("111m234m456p789p55s", {})),
    "medium_four_in_one": (("123m123m456p789p11m", {}), ("123m123m456p789p22s", {})),
    "big_four_in_one": (("123m234m345m345m55p", {}), ("123m234m345m456m55p", {})),
    "mixed_less_terminals": (("123m789pEEE111s99s", {}), ("123m789pEEE111s55s", {})),
    "pure_less_terminals": (("123m789p999s111s99m", {}), ("123m789p999s111s55m", {})),
    "pure_straight": (("123m456m789m123p55p", {}), ("123m456m678m123p55p", {})),
    "pure_shifted_sequences": (("123m234m345m678p99s", {}), ("123m345m567m678p99s", {})),
    "mixed_triple_sequences": (("123m123p123s456m99s", {}), ("123m123p234s456m99s", {})),
    "all_triplets": (("[999s,1]111m222pEEE55p", {}), ("[789s,1]111m222pEEE55p", {})),
    "mixed_shifted_triplets": (("222m333p444s678m99p", {}), ("222m333p555s678m99p", {})),
    "small_three_winds": (("EEESSS123m456pWW", {}), ("EEESSS123m456pCC", {})),
    "all_types": (("123m456p789sEEECC", {}), ("123m456p789sEEENN", {})),
    "two_short_straights": (("123m456m123p456p99s", {}), ("123m456m123p567p99s", {})),
    "pure_shifted_triplets": (("[111m,1]222m333m456p99s", {}), ("[111m,1]222m444m456p99s", {})),
    "all_linked": (("345m456p555s567m55p", {}), ("345m456p555s678m55p", {})),
    "small_three_dragons": (("CCCFFF123m456pPP", {}), ("CCCFFF123m456pEE", {})),
    "big_three_winds": (("EEESSSWWW123m55p", {}), ("EEESSS123m456m55p", {})),
    "big_three_dragons": (("CCCFFFPPP123m55p", {}), ("CCCFFF123m456mPP", {})),
    "small_four_winds": (("EEESSSWWW123mNN", {}), ("EEESSSWWW123m55p", {})),
    "four_ladies": (("[111m,1]222m333m123m55p", {}), ("[111m,1]222m333m456m55p", {})),
    "nine_gates": (("11123455678999m", {}), ("[111m,1]2345678999m5m", {})),
    "big_four_winds": (("EEESSSWWWNNN55p", {}), ("EEESSSWWW123mNN", {})),
    "all_honors": (("EEESSSCCCFFFPP", {}), ("EEESSSCCCFFF11m", {})),
    "double_triplets": (("222m222p456s789s99m", {}), ("222m333p456s789s99m", {})),
    "three_concealed_triplets": (("111m222p333s99m456s", {}), ("111m222p456s99m333s", {})),
    "four_concealed_triplets": (("111m222p333s444s99m", {}), ("111m222p333s99m444s", {})),
    "one_kong": (("[1111m,1]456m789m123p55p", {}), ("111m456m789m123p55p", {})),
    "two_kongs": (("[1111m,1][2222p]789m345p55s", {}), ("[1111m,1]222p789m345p55s", {})),
    "three_kongs": (("[1111m,1][2222p][3333s,2]456p55p", {}), ("[1111m,1][2222p]333s456p55p", {})),
    "four_kongs": (("[1111m,1][2222p][3333s,2][4444s,3]55p", {}), ("[1111m,1][2222p][3333s,2]444s55p", {})),
    "two_identical_sequences": (("123m123m456p789s99s", {}), ("123m234m456p789s99s", {})),
    "three_identical_sequences": (("123m123m123m456p99s", {}), ("123m123m234m456p99s", {})),
    "four_identical_sequences": (("123m123m123m123m55p", {}), ("123m123m123m234m55p", {})),
    "double_two_identical_sequences": (("[123m,1]123m456p456p99s", {}), ("[123m,1]123m456p567p99s", {})),
    "two_terminal_triplets": (("111m999m456p789p55s", {}), ("111m999p456p789p55s", {})),
    "double_two_terminal_triplets": (("111m999m111p999pEE", {}), ("111m999m111p888pEE", {})),
    "value_honor": (("CCC123m456p789s55s", {}), ("NNN123m456p789s55s", {"seat_wind": "E", "prevalent_wind": "E"})),
    # 3.2 special patterns
    "seven_pairs": (("1133m5577p99sEE11p", {}), ("112233m456p789s55s", {})),
    "big_seven_pairs": (("1111m33m55p77p99sEE", {}), ("1133m5577p99sEE11p", {})),
    "seven_honour_pairs": (("EESSWWNNCCFFPP", {}), ("EESSWWNNCCFF11m", {})),
    "thirteen_not_connected": (("13579m159pESWNCF", {}), ("19m19p19sESWNCFP1m", {})),
    "seven_stars": (("147m258p3sESWNCFP", {}), ("147m258p36sESWNCF", {})),
    "thirteen_orphans": (("19m19p19sESWNCFP1m", {}), ("147m258p3sESWNCFP", {})),
}


def hk(hand: str, **ctx):
    return score(hand, WinContext(**ctx), rules="hk")


def satisfied(result) -> dict[str, int]:
    """Items whose predicate held on the scored arrangement: scored ones and replaced ones."""
    out = {f.id: f.count for f in result.fans}
    for e in result.excluded:
        out.setdefault(e.id, e.count)
    return out


def test_every_item_has_cases():
    ids = {f.id for f in get_rule_set("hk").fans}
    assert set(CASES) == ids


@pytest.mark.parametrize("item", sorted(CASES))
def test_item_scores_on_its_hand(item):
    (hand, ctx), _ = CASES[item]
    result = hk(hand, **ctx)
    assert item in satisfied(result), f"{item} not found in {hand}: {[f.id for f in result.fans]}"


@pytest.mark.parametrize("item", sorted(CASES))
def test_item_does_not_score_on_near_miss(item):
    _, (hand, ctx) = CASES[item]
    result = hk(hand, **ctx)
    assert item not in satisfied(result), f"{item} found in near miss {hand}"


# item -> uncapped total of its hand in CASES, summed by hand from seed 000's values (RULES.md replacements, the
# HK-RULINGS.md R-numbers where the seed leaves a choice). CH = Concealed Hand 1 (a hand without claimed melds won
# on a discard, R2), FCH = Fully Concealed Hand 3, SE = Special Eyes 1 (pair of 2/5/8), AS = All Sequences 1, OVS =
# One Voided Suit 1, PS = Pure Straight 3, AT = All Triplets 3, 4CT = Four Concealed Triplets 18, VH = Value Honor
# (EEE with seat and prevalent wind E: 2; a dragon pung 1), MOS = Mixed One Suit 3. Limit items are 18 (capped
# total 18).
HAND_TOTALS: dict[str, int] = {
    "self_draw": 2 + 1 + 1 + 1 + 3,  # Self Draw (a melded chow: not concealed), OVS, AS, SE 55p, PS 123-456-789m
    "concealed_hand": 1 + 1 + 1 + 1 + 3,  # CH, OVS, AS, SE, PS
    "fully_concealed_hand": 3 + 1 + 1 + 1 + 3,  # FCH (replaces Self Draw), OVS, AS, SE, PS
    "win_on_kong": 3 + 1 + 1 + 1 + 1,  # FCH (a concealed kong keeps the hand concealed), Win on Kong, OVS, SE, 1 kong
    "rob_a_kong": 1 + 1 + 1 + 1 + 1 + 3,  # CH (R23), Rob a Kong, OVS, AS, SE, PS
    "kong_on_kong": 3 + 6 + 2,  # FCH, Kong on Kong (replaces Win on Kong), 2 kongs
    "final_draw": 3 + 1 + 1 + 1 + 1 + 3,  # FCH, Final Draw, OVS, AS, SE, PS
    "final_discard": 1 + 1 + 1 + 1 + 1 + 3,  # CH, Final Discard, OVS, AS, SE, PS
    "bless_of_heaven": 3 + 18 + 1 + 1 + 1 + 3,  # FCH, Bless of Heaven (Limit), OVS, AS, SE, PS
    "bless_of_earth": 1 + 18 + 1 + 1 + 1 + 3,  # CH, Bless of Earth (Limit), OVS, AS, SE, PS
    "no_terminals": 1 + 1 + 1 + 1,  # CH, No Terminals (2-8), AS, SE 88s
    "one_voided_suit": 1 + 1 + 1 + 1 + 3,  # CH, OVS (m and p), AS, SE, PS
    "mixed_one_suit": 1 + 3 + 1 + 3,  # CH, MOS, Small Four in One (1m: pung 111m + chow 123m), PS
    "one_suit": 1 + 9 + 1 + 1 + 3,  # CH, One Suit, SE 55m, Small Four in One (1m), PS
    "small_tiles": 1 + 3 + 1 + 1 + 2 + 2,  # CH, Small Tiles, AS, SE, Mixed Shifted Sequences, Two Identical 123m
    "medium_tiles": 1 + 3 + 1 + 2 + 2,  # CH, Medium (replaces No Terminals), AS, Mixed Shifted Seq, Two Identical
    "big_tiles": 1 + 3 + 1 + 2 + 2,  # CH, Big Tiles, AS, Mixed Shifted Sequences, Two Identical 567m
    "all_green": 1 + 3 + 6 + 2,  # CH, MOS (bamboo + green dragon), All Green, Two Identical 234s
    "all_blue": 1 + 3 + 12 + 3 + 6 + 18 + 2,  # CH, MOS, All Blue, AT, Big Three Winds, 4CT, VH EEE
    "mixed_terminals": 1 + 9 + 3 + 1 + 18 + 2,  # CH, Mixed Terminals, AT, Double Triplets 111m/111s, 4CT, VH EEE
    # CH, Pure Terminals (Limit), Two Numbers (1, 9), AT, Double Triplets x2 (1s and 9s), 4CT, Double Two Terminal
    # Triplets (111m 999m, 111p 999p)
    "pure_terminals": 1 + 18 + 12 + 3 + 2 + 18 + 6,
    "three_numbers": 1 + 3 + 6 + 1 + 3 + 1 + 18,  # CH, Small, Three Numbers, SE 22s, AT, Double Triplets 1m/1p, 4CT
    "two_numbers": 1 + 3 + 12 + 3 + 2 + 18,  # CH, Small, Two Numbers, AT, Double Triplets x2 (1s, 2s), 4CT
    "all_sequences": 1 + 1 + 1 + 1 + 3,  # CH, OVS, AS, SE, PS
    "special_eyes": 1 + 1 + 1 + 1 + 3,  # CH, OVS, AS, SE, PS
    "mixed_straight": 1 + 1 + 1 + 2,  # CH, AS, SE 55s, Mixed Straight
    "mixed_shifted_sequences": 1 + 1 + 2,  # CH, AS, Mixed Shifted Sequences
    "small_four_in_one": 1 + 1 + 1,  # CH, SE 55s, Small Four in One (1m)
    "medium_four_in_one": 1 + 1 + 1 + 2 + 2,  # CH, OVS, AS, Medium Four in One (1m: two chows + pair), Two Identical
    # CH, OVS, Small, AS, SE, Big Four in One (3m in four chows), Pure Shifted Sequences 123-234-345m, Two Identical
    "big_four_in_one": 1 + 1 + 3 + 1 + 1 + 6 + 3 + 2,
    "mixed_less_terminals": 1 + 2 + 2,  # CH, Mixed Less Terminals, VH EEE
    "pure_less_terminals": 1 + 3 + 1,  # CH, Pure Less Terminals (replaces Mixed), Two Terminal Triplets 111s 999s
    "pure_straight": 1 + 1 + 1 + 1 + 3,  # CH, OVS, AS, SE, PS
    "pure_shifted_sequences": 1 + 1 + 3,  # CH, AS, Pure Shifted Sequences
    "mixed_triple_sequences": 1 + 1 + 3,  # CH, AS, Mixed Triple Sequences
    "all_triplets": 1 + 3 + 1 + 2,  # SE 55p, AT, Three Concealed Triplets (111m 222p EEE), VH EEE (melded: no CH)
    "mixed_shifted_triplets": 1 + 3 + 1,  # CH, Mixed Shifted Triplets, Three Concealed Triplets
    "small_three_winds": 1 + 3 + 2,  # CH, Small Three Winds, VH EEE
    "all_types": 1 + 2 + 3 + 2,  # CH, Mixed Straight, All Types, VH EEE
    "two_short_straights": 1 + 1 + 4,  # CH, AS, Two Short Straights
    "pure_shifted_triplets": 4,  # Pure Shifted Triplets (melded, three suits, two concealed pungs only)
    "all_linked": 1 + 3 + 1 + 6,  # CH, Medium (replaces No Terminals), SE 55p, All Linked (5)
    "small_three_dragons": 1 + 6 + 2,  # CH, Small Three Dragons, VH CCC + FFF
    "big_three_winds": 1 + 1 + 6 + 1 + 2,  # CH, SE, Big Three Winds, Three Concealed Triplets, VH EEE
    "big_three_dragons": 1 + 1 + 9 + 1 + 3,  # CH, SE, Big Three Dragons, Three Concealed Triplets, VH x3
    # CH, MOS, Mixed Less Terminals, Small Four Winds (replaces the three-winds items), Three Concealed, VH EEE
    "small_four_winds": 1 + 3 + 2 + 12 + 1 + 2,
    # OVS, Small, SE, Small Four in One x3 (1m 2m 3m: a pung and the chow 123m), Four Ladies (replaces Pure Shifted)
    "four_ladies": 1 + 3 + 1 + 3 + 12,
    "nine_gates": 1 + 9 + 1 + 18 + 1,  # CH, One Suit, SE 55m, Nine Gates (Limit), Two Terminal Triplets 111m 999m
    "big_four_winds": 1 + 3 + 1 + 3 + 18 + 18 + 2,  # CH, MOS, SE, AT, Big Four Winds, 4CT, VH EEE
    "all_honors": 1 + 3 + 6 + 18 + 18 + 4,  # CH, AT, Small Three Dragons, All Honors, 4CT, VH EEE 2 + CCC + FFF
    "double_triplets": 1 + 1,  # CH, Double Triplets 222m/222p
    "three_concealed_triplets": 1 + 3 + 1,  # CH, Mixed Shifted Triplets 1m 2p 3s, Three Concealed Triplets
    "four_concealed_triplets": 1 + 3 + 3 + 18,  # CH, AT, Mixed Shifted Triplets, 4CT (the pair completed)
    "one_kong": 1 + 1 + 1,  # OVS, SE, 1 kong
    "two_kongs": 1 + 2,  # SE, 2 kongs
    "three_kongs": 1 + 3 + 6,  # SE, Mixed Shifted Triplets 1m 2p 3s, 3 kongs
    "four_kongs": 3 + 1 + 3 + 3 + 18,  # Small, SE, AT, Mixed Shifted Triplets, 4 kongs (Limit)
    "two_identical_sequences": 1 + 1 + 2 + 2,  # CH, AS, Mixed Straight, Two Identical 123m
    "three_identical_sequences": 1 + 1 + 6,  # CH, AS, Three Identical (replaces Two Identical)
    # CH, OVS, Small, AS, SE, Big Four in One x3 (1m 2m 3m), Four Identical (Limit; replaces the smaller ones)
    "four_identical_sequences": 1 + 1 + 3 + 1 + 1 + 18 + 18,
    "double_two_identical_sequences": 1 + 4,  # AS, Double Two Identical (melded chow: no CH)
    "two_terminal_triplets": 1 + 1 + 1,  # CH, SE 55s, Two Terminal Triplets 111m 999m
    # CH, Mixed Terminals, AT, Double Triplets x2, 4CT, Double Two Terminal Triplets (replaces Two Terminal)
    "double_two_terminal_triplets": 1 + 9 + 3 + 2 + 18 + 6,
    "value_honor": 1 + 1 + 2 + 1,  # CH, SE 55s, Mixed Straight, VH CCC
    "seven_pairs": 1 + 6,  # CH (R2: every shape), Seven Pairs
    "big_seven_pairs": 1 + 9,  # CH, Big Seven Pairs (replaces Seven Pairs)
    "seven_honour_pairs": 1 + 18,  # CH, Seven Honour Pairs (Limit)
    "thirteen_not_connected": 1 + 5,  # CH, Thirteen Not Connected
    "seven_stars": 1 + 6,  # CH, Seven Stars (replaces Thirteen Not Connected)
    "thirteen_orphans": 1 + 9 + 18,  # CH, Mixed Terminals, Thirteen Orphans (Limit)
}


def test_every_item_has_a_hand_total():
    assert set(HAND_TOTALS) == set(CASES)


@pytest.mark.parametrize("item", sorted(CASES))
def test_item_hand_total_computed_by_hand(item):
    (hand, ctx), _ = CASES[item]
    result = hk(hand, **ctx)
    assert result.total_uncapped == HAND_TOTALS[item]
    assert result.total == min(HAND_TOTALS[item], LIMIT)


def test_limit_items_are_worth_the_limit():
    rules = get_rule_set("hk")
    limits = {f.id for f in rules.fans if f.value == LIMIT}
    assert limits == {
        "bless_of_heaven", "bless_of_earth", "pure_terminals", "nine_gates", "big_four_winds", "all_honors",
        "four_concealed_triplets", "four_kongs", "four_identical_sequences", "seven_honour_pairs",
        "thirteen_orphans"}
    assert rules.cap == LIMIT == 18


def test_seed_values():
    """The value of every item as seed 000 prints it (Limit = 18)."""
    values = {f.id: f.value for f in get_rule_set("hk").fans}
    expected = {
        "self_draw": 2, "concealed_hand": 1, "fully_concealed_hand": 3, "win_on_kong": 1, "rob_a_kong": 1,
        "kong_on_kong": 6, "final_draw": 1, "final_discard": 1, "no_terminals": 1, "one_voided_suit": 1,
        "mixed_one_suit": 3, "one_suit": 9, "small_tiles": 3, "medium_tiles": 3, "big_tiles": 3, "all_green": 6,
        "all_blue": 12, "mixed_terminals": 9, "three_numbers": 6, "two_numbers": 12, "all_sequences": 1,
        "special_eyes": 1, "mixed_straight": 2, "mixed_shifted_sequences": 2, "small_four_in_one": 1,
        "medium_four_in_one": 2, "big_four_in_one": 6, "mixed_less_terminals": 2, "pure_less_terminals": 3,
        "pure_straight": 3, "pure_shifted_sequences": 3, "mixed_triple_sequences": 3, "all_triplets": 3,
        "mixed_shifted_triplets": 3, "small_three_winds": 3, "all_types": 3, "two_short_straights": 4,
        "pure_shifted_triplets": 4, "all_linked": 6, "small_three_dragons": 6, "big_three_winds": 6,
        "big_three_dragons": 9, "small_four_winds": 12, "four_ladies": 12, "double_triplets": 1,
        "three_concealed_triplets": 1, "one_kong": 1, "two_kongs": 2, "three_kongs": 6,
        "two_identical_sequences": 2, "three_identical_sequences": 6, "double_two_identical_sequences": 4,
        "two_terminal_triplets": 1, "double_two_terminal_triplets": 6, "value_honor": 1, "seven_pairs": 6,
        "big_seven_pairs": 9, "thirteen_not_connected": 5, "seven_stars": 6,
    }
    for fid, v in expected.items():
        assert values[fid] == v, fid
    assert all(values[f] == LIMIT for f in set(values) - set(expected))


def test_seed_numbering_after_rules_md_fixes():
    numbers = {f.id: f.number for f in get_rule_set("hk").fans}
    assert numbers["mixed_terminals"] == "2.1.10"  # printed "3.1.10" in the 2.1 block
    assert numbers["four_identical_sequences"] == "3.1.34"  # second "3.1.32"
    assert numbers["double_two_identical_sequences"] == "3.1.35"  # second "3.1.33"
    assert numbers["two_terminal_triplets"] == "3.1.36"
    assert numbers["double_two_terminal_triplets"] == "3.1.37"
    assert numbers["value_honor"] == "3.1.38"
    assert numbers["seven_honour_pairs"] == "3.2.3" and numbers["seven_stars"] == "3.2.5"
    # every seed number is used, by exactly one item except the Kongs item (one row per kong count)
    seen = sorted(set(numbers.values()), key=lambda n: tuple(map(int, n.split("."))))
    expected = ([f"1.1.{k}" for k in range(1, 11)] + [f"2.1.{k}" for k in range(1, 14)]
                + [f"3.1.{k}" for k in range(1, 39)] + [f"3.2.{k}" for k in range(1, 7)])
    assert seen == expected
    assert sum(1 for n in numbers.values() if n == "3.1.31") == 4
