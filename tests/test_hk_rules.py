"""HK (seed 000): the replacement table, the cap, the win context, the rulings of scoring/HK-RULINGS.md,
and the same hand under MCR and HK (consistent explanations, one JSON schema)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from fanscan.scoring import RULE_SETS, FanscanError, WinContext, get_rule_set, parse_hand, register_rule_set, score
from fanscan.scoring.hk import _ROWS, LIMIT, REPLACES, _table_order, make_rule_set

from fanscan.cli import main

SELF = {"self_drawn": True}


def hk(hand: str, rules: str = "hk", **ctx):
    """Score under HK; keyword context fields replace the string's own context (if any is given)."""
    return score(hand, WinContext(**ctx) if ctx else None, rules=rules)


def scored(result) -> dict[str, int]:
    return {f.id: f.count for f in result.fans}


def excluded(result) -> dict[str, str]:
    return {e.id: e.implied_by for e in result.excluded}


# ---------------------------------------------------------------------------------------------------------------
# Replacement rules: one hand per (tighter, looser) pair of REPLACES where both hold

BOTH_HOLD: dict[tuple[str, str], tuple[str, dict]] = {
    ("fully_concealed_hand", "self_draw"): ("123m456m789m123p55p", SELF),
    ("kong_on_kong", "win_on_kong"): ("[1111m][2222p]345s678s9s9s",
                                      {**SELF, "kong_replacement": True, "kong_on_kong": True}),
    ("pure_less_terminals", "mixed_less_terminals"): ("123m789p999s111s99m", {}),
    ("two_numbers", "three_numbers"): ("111m222m111p222p11s", {}),
    ("small_tiles", "medium_tiles"): ("345m345m345p345s55p", {}),
    ("big_tiles", "medium_tiles"): ("567m567m567p567s77p", {}),
    ("medium_tiles", "no_terminals"): ("345m456p567s345m77p", {}),
    ("big_four_winds", "big_three_winds"): ("EEESSSWWWNNN55p", {}),
    ("small_four_winds", "big_three_winds"): ("EEESSSWWW123mNN", {}),
    ("small_four_winds", "small_three_winds"): ("EEESSSWWW123mNN", {}),
    ("big_three_winds", "small_three_winds"): ("EEESSSWWW123mNN", {}),  # both hold only with Small Four Winds
    ("four_identical_sequences", "three_identical_sequences"): ("123m123m123m123m55p", {}),
    ("four_identical_sequences", "double_two_identical_sequences"): ("123m123m123m123m55p", {}),
    ("four_identical_sequences", "two_identical_sequences"): ("123m123m123m123m55p", {}),
    ("three_identical_sequences", "two_identical_sequences"): ("123m123m123m456p99s", {}),
    ("double_two_identical_sequences", "two_identical_sequences"): ("[123m,1]123m456p456p99s", {}),
    ("four_ladies", "pure_shifted_triplets"): ("[111m,1]222m333m123m55p", {}),
    ("double_two_terminal_triplets", "two_terminal_triplets"): ("111m999m111p999pEE", {}),
    ("four_concealed_triplets", "three_concealed_triplets"): ("111m222p333s444s99m", {}),
    ("big_seven_pairs", "seven_pairs"): ("1111m33m55p77p99sEE", {}),
    ("seven_honour_pairs", "seven_pairs"): ("EESSWWNNCCFFPP", {}),
    ("seven_stars", "thirteen_not_connected"): ("147m258p3sESWNCFP", {}),
}

# Pairs whose definitions cannot both hold; the table still states the family order (RULES.md).
NEVER_BOTH: dict[tuple[str, str], tuple[str, str]] = {
    ("fully_concealed_hand", "concealed_hand"): ("123m456m789m123p55p|EE1000", "123m456m789m123p55p"),
    ("one_suit", "mixed_one_suit"): ("123m456m789m111m55m", "123m456m789m111mEE"),
    ("one_suit", "one_voided_suit"): ("123m456m789m111m55m", "123m456m789m123p55p"),
    ("pure_terminals", "mixed_terminals"): ("111m999m111p999p11s", "111m999pEEE111sNN"),
    ("small_tiles", "big_tiles"): ("123m234p345s123m55p", "567m678p789s567m99p"),
    ("big_four_winds", "small_four_winds"): ("EEESSSWWWNNN55p", "EEESSSWWW123mNN"),
    ("big_four_winds", "small_three_winds"): ("EEESSSWWWNNN55p", "EEESSS123m456pWW"),
    ("big_three_dragons", "small_three_dragons"): ("CCCFFFPPP123m55p", "CCCFFF123m456pPP"),
    ("thirteen_orphans", "seven_stars"): ("19m19p19sESWNCFP1m", "147m258p3sESWNCFP"),
    ("thirteen_orphans", "thirteen_not_connected"): ("19m19p19sESWNCFP1m", "13579m159pESWNCF"),
}


def test_replacement_cases_cover_the_table():
    pairs = {(a, b) for a, bs in REPLACES.items() for b in bs}
    assert pairs == set(BOTH_HOLD) | set(NEVER_BOTH)
    assert not set(BOTH_HOLD) & set(NEVER_BOTH)


@pytest.mark.parametrize("pair", sorted(BOTH_HOLD))
def test_tighter_item_replaces_looser(pair):
    tight, loose = pair
    hand, ctx = BOTH_HOLD[pair]
    result = hk(hand, **ctx)
    assert loose not in scored(result)
    assert loose in excluded(result)
    # the looser item was dropped by this item or by an item that replaces both (Small Four Winds)
    by = excluded(result)[loose]
    assert by == tight or (tight in excluded(result) and loose in REPLACES[by])
    assert result.total_uncapped == sum(f.points for f in result.fans)


@pytest.mark.parametrize("pair", sorted(NEVER_BOTH))
def test_exclusive_pairs_never_hold_together(pair):
    tight, loose = pair
    tight_hand, loose_hand = NEVER_BOTH[pair]
    a, b = hk(tight_hand), hk(loose_hand)
    held_a = set(scored(a)) | set(excluded(a))
    held_b = set(scored(b)) | set(excluded(b))
    assert tight in held_a and loose not in held_a
    assert loose in held_b and tight not in held_b


def test_house_rule_is_one_line():
    """Dropping one entry of REPLACES (Medium Tiles no longer replaces No Terminals) changes the score."""
    house = make_rule_set({**REPLACES, "medium_tiles": ()}, name="hk-house-test")
    register_rule_set(house)
    try:
        hand = "345m456p567s345m77p"
        std, own = hk(hand), hk(hand, rules="hk-house-test")
        assert "no_terminals" not in scored(std) and "no_terminals" in scored(own)
        assert own.total == std.total + 1
    finally:
        del RULE_SETS["hk-house-test"]


def test_table_order_puts_replacers_first_and_refuses_cycles():
    fans = get_rule_set("hk").fans
    pos = {f.id: k for k, f in enumerate(fans)}
    for a, bs in REPLACES.items():
        assert all(pos[a] < pos[b] for b in bs)
    with pytest.raises(ValueError, match="cycle"):
        _table_order(_ROWS, {"one_suit": ("mixed_one_suit",), "mixed_one_suit": ("one_suit",)})


def test_replacement_is_not_transitive():
    """Small Tiles replaces Medium Tiles, and Medium Tiles replaces No Terminals - yet a 3-5 hand keeps No
    Terminals, because a replaced item replaces nothing (ruling R4)."""
    r = hk("345m345m345p345s55p")
    assert {"small_tiles", "no_terminals"} <= set(scored(r))
    assert excluded(r)["medium_tiles"] == "small_tiles"


# ---------------------------------------------------------------------------------------------------------------
# The cap


def test_total_capped_at_limit_with_uncapped_shown():
    r = hk("EEESSSWWWNNN55p")
    assert r.total_uncapped == sum(f.points for f in r.fans) > LIMIT
    assert r.total == LIMIT == r.cap
    d = r.to_dict()
    assert (d["total"], d["cap"], d["total_uncapped"], d["rules"]) == (LIMIT, LIMIT, r.total_uncapped, "hk")


def test_total_below_cap_is_the_sum():
    r = hk("123m456m789m123p55p")
    assert r.total == r.total_uncapped == sum(f.points for f in r.fans) < LIMIT
    assert r.minimum is None and r.meets_minimum and r.settlement is None


def test_one_limit_item_reaches_exactly_the_cap():
    r = hk("11123455678999m")  # Nine Gates plus flush and more
    assert "nine_gates" in scored(r) and r.total == LIMIT < r.total_uncapped


# ---------------------------------------------------------------------------------------------------------------
# Win context: HK flags and impossible combinations


@pytest.mark.parametrize("hand, ctx, message", [
    ("[1111m]456m789m123p55p", {"flower_replacement": True, "flower_count": 1}, "self-draw"),
    ("123m456m789m123p55p", {**SELF, "flower_replacement": True}, "needs a flower"),
    ("[1111m]456m789m123p55p", {**SELF, "flower_replacement": True, "kong_replacement": True, "flowers": ("a",)},
     "not both"),
    ("[1111m][2222p]345s678s9s9s", {**SELF, "kong_on_kong": True}, "kong replacement"),
    ("[1111m]456m789m123p55p", {**SELF, "kong_replacement": True, "kong_on_kong": True}, "two kongs"),
    ("123m456m789m123p55p", {"first_tile": True, "seat_wind": "E"}, "East makes the first discard"),
    ("123m456m789m123p55p", {**SELF, "first_tile": True, "last_tile": True}, "last tile"),
    ("123m456m789m55p123p", {"first_tile": True, "robbing_kong": True, "seat_wind": "S"}, "robbed kong"),
    ("[1111m]456m789m123p55p", {**SELF, "first_tile": True, "kong_replacement": True}, "replacement"),
    ("[123m,1]456m789m123p55p", {**SELF, "first_tile": True}, "no melds"),
    ("[1111m]456m789m123p55p", {**SELF, "first_tile": True}, "no melds"),
])
def test_impossible_context_refused(hand, ctx, message):
    for rules in ("hk", "mcr"):  # the hand model refuses it, whatever the rule set
        with pytest.raises(FanscanError, match=message):
            hk(hand, rules=rules, **ctx)


def test_flower_replacement_scores_win_on_kong():
    r = hk("123m456m789m123p55p", **SELF, flower_replacement=True, flowers=("b",))
    assert scored(r)["win_on_kong"] == 1 and "fully_concealed_hand" in scored(r)


def test_context_fields_round_trip_and_mcr_ignores_them():
    ctx = WinContext(self_drawn=True, first_tile=True, flowers=("a", "e"), flower_replacement=True)
    assert WinContext.from_dict(ctx.to_dict()) == ctx
    plain = score("123m456m789m123p55p", WinContext(self_drawn=True), rules="mcr")
    first = score("123m456m789m123p55p", ctx, rules="mcr")
    assert first.total - first.total_without_flowers == 2  # the two flowers, nothing for the HK-only flags
    assert first.total_without_flowers == plain.total_without_flowers


# ---------------------------------------------------------------------------------------------------------------
# Rulings (scoring/HK-RULINGS.md)


def test_r1_blocks_by_shape():
    r = hk("1133557799m2244m")  # seven pairs in one suit: the common block (2.1) applies to every shape
    assert {"seven_pairs", "one_suit"} <= set(scored(r))
    r = hk("EESSWWNNCCFFPP")  # All Honors (3.1.27) is a regular pattern: Seven Honour Pairs scores instead
    assert "seven_honour_pairs" in scored(r) and "all_honors" not in scored(r)
    r = hk("EEESSSCCCFFFPP")
    assert "all_honors" in scored(r)


def test_r2_concealed_in_every_shape_and_with_concealed_kongs():
    assert "concealed_hand" in scored(hk("[1111m]456m789m123p55p"))
    assert "fully_concealed_hand" in scored(hk("19m19p19sESWNCFP1m", **SELF))
    assert "concealed_hand" in scored(hk("1133m5577p99sEE11p"))
    assert "concealed_hand" not in scored(hk("[1111m,1]456m789m123p55p"))


def test_r3_numbered_only_items_refuse_honours():
    r = hk("123m234p345s123mEE")
    assert not {"small_tiles", "three_numbers", "two_numbers", "no_terminals"} & set(scored(r))


def test_r4_small_or_big_before_medium():
    r = hk("567m567m567p567s77p")
    assert {"big_tiles", "no_terminals"} <= set(scored(r)) and excluded(r)["medium_tiles"] == "big_tiles"


def test_r5_mixed_terminals_needs_terminals_and_honours():
    assert "mixed_terminals" not in scored(hk("EEESSSCCCFFFPP"))
    assert "mixed_terminals" in scored(hk("111m999pEEE111sNN"))


def test_r6_four_in_one_per_tile_and_not_for_kongs():
    r = hk("111m123m999p789p55s")
    assert scored(r)["small_four_in_one"] == 2
    r = hk("[1111m,1]456m789m123p55p")
    assert not {"small_four_in_one", "medium_four_in_one", "big_four_in_one"} & set(scored(r))


def test_r8_two_short_straights_may_share_a_suit():
    assert "two_short_straights" in scored(hk("123m456m456m789m99s"))


def test_r9_all_linked_is_one_number_across_suits():
    assert "all_linked" in scored(hk("345m456p555s567m55p"))
    assert "all_linked" not in scored(hk("345m456p555s567mEE"))


def test_r10_nine_gates_on_any_winning_tile():
    # the 13 tiles before the win (1112345567899) are not the nine-sided wait, yet the hand holds the pattern
    h = parse_hand("11123455678999m")
    assert sorted(h.standing) != sorted("1112345678999")
    assert "nine_gates" in scored(hk("11123455678999m"))
    assert "nine_gates" not in scored(hk("[111m,1]2345678999m5m"))


def test_r11_double_triplets_each_match_and_kongs():
    assert scored(hk("222m222p222s456s99m"))["double_triplets"] == 3
    assert scored(hk("[2222m,1]222p456s789s99m"))["double_triplets"] == 1


def test_r12_terminal_triplets_of_one_suit():
    assert "two_terminal_triplets" in scored(hk("[1111m,1]999m456p789p55s"))
    assert "two_terminal_triplets" not in scored(hk("111m999p456p789p55s"))


def test_r13_value_honor():
    assert scored(hk("CCC123m456p789s55s"))["value_honor"] == 1
    assert scored(hk("EEE123m456p789s55s", seat_wind="E", prevalent_wind="E"))["value_honor"] == 2
    assert scored(hk("SSS123m456p789s55s", seat_wind="S", prevalent_wind="E"))["value_honor"] == 1
    assert scored(hk("SSS123m456p789s55s", seat_wind="W", prevalent_wind="S"))["value_honor"] == 1
    assert "value_honor" not in scored(hk("NNN123m456p789s55s", seat_wind="S", prevalent_wind="E"))
    assert "value_honor" not in scored(hk("123m456p789s111sCC"))  # a pair is not a meld
    assert scored(hk("[CCCC,1]FFF123m456p55s"))["value_honor"] == 2  # kongs count


def test_r14_big_seven_pairs_once():
    r = hk("1111m3333p55p77p99s")
    assert scored(r)["big_seven_pairs"] == 1 and "seven_pairs" in excluded(r)


def test_r15_seven_honour_pairs_and_big_seven_pairs_add():
    r = hk("EEEESSWWNNCCFF")
    assert {"seven_honour_pairs", "big_seven_pairs"} <= set(scored(r))
    assert r.total_uncapped == 1 + LIMIT + 9 and r.total == LIMIT


def test_r17_not_connected_shape_and_no_knitted_forms():
    # a knitted straight is an MCR shape only
    assert score("147m258p369s123m55p", rules="mcr").total > 0
    with pytest.raises(FanscanError, match=r"not a winning hand.*thirteen not connected"):
        hk("147m258p369s123m55p")
    # gaps of two are not connected; an MCR Lesser Honors and Knitted hand is one too
    assert hk("13579m159pESWNCF").arrangement.form == "not_connected"
    r = hk("147m258p369sESWNC")
    assert "thirteen_not_connected" in scored(r)
    assert [g.kind for g in r.arrangement.groups] == ["single"]
    with pytest.raises(FanscanError, match="not a winning hand"):
        hk("12m58p369sESWNCFP")  # 1m 2m are consecutive


def test_r18_first_tile():
    assert "bless_of_heaven" in scored(hk("123m456m789m123p55p", **SELF, first_tile=True))
    r = hk("123m456m789m123p55p", **SELF, first_tile=True, seat_wind="N")  # accepted, no blessing
    assert not {"bless_of_heaven", "bless_of_earth"} & set(scored(r))
    r = hk("123m456m789m123p55p", **SELF, first_tile=True, flower_replacement=True, flower_count=1)
    assert {"bless_of_heaven", "win_on_kong"} <= set(scored(r))


def test_r20_discard_completes_a_melded_pung_unless_it_reads_into_a_chow():
    assert "three_concealed_triplets" not in scored(hk("111m222p456s99m333s"))
    assert "three_concealed_triplets" in scored(hk("111m222p456s99m333s", **SELF))
    # 3s completes 333s or the chow 345s: the chow reading keeps the pung concealed
    assert "three_concealed_triplets" in scored(hk("111m222p33s345s99m3s"))


def test_r22_families_add():
    r = hk("111m999m111p999p11s")
    assert {"pure_terminals", "two_numbers", "all_triplets", "four_concealed_triplets"} <= set(scored(r))


def test_r23_robbing_a_kong_keeps_the_hand_concealed():
    assert {"rob_a_kong", "concealed_hand"} <= set(scored(hk("123m456m789m55p123p", robbing_kong=True)))


def test_r26_all_sequences_allows_an_honour_pair():
    assert "all_sequences" in scored(hk("123m456m789m123pEE"))


# ---------------------------------------------------------------------------------------------------------------
# Same hand under MCR and HK


CROSS_HANDS = [
    ("123m456m789m123p55p", {}), ("[EEE,1][SSS,2]WWWNNC C".replace(" ", "") + "C", {}),
    ("EEESSSWWWNNN55p", {**SELF}), ("19m19p19sESWNCFP1m", {}), ("1133m5577p99sEE11p", {}),
    ("[1111m][2222p]345s678s9s9s", {**SELF, "kong_replacement": True}), ("123m456m789m55p123p", {"robbing_kong": True}),
    ("147m258p369sESWNC", {}), ("11123455678999m", {"last_tile": True}),
]


def _keys(obj) -> object:
    """The schema of a JSON value: dict keys (recursively, lists by their first element)."""
    if isinstance(obj, dict):
        return {k: _keys(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_keys(obj[0])] if obj else []
    return None


def _schema_union(d: dict) -> dict:
    """Key sets, with list-of-dict schemas merged over all elements."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out[k] = _schema_union(v)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            keys: set = set()
            for item in v:
                keys |= set(item)
            out[k] = frozenset(keys)
        else:
            out[k] = None
    return out


@pytest.mark.parametrize("hand, ctx", CROSS_HANDS)
def test_same_json_schema_for_mcr_and_hk(hand, ctx):
    m = score(hand, WinContext(**ctx), rules="mcr").to_dict()
    h = score(hand, WinContext(**ctx), rules="hk").to_dict()
    assert set(m) == set(h)
    assert set(m["context"]) == set(h["context"])
    assert set(m["arrangement"]) == set(h["arrangement"])
    assert {frozenset(f) for f in m["fans"]} == {frozenset(f) for f in h["fans"]}
    for key in ("fans", "excluded", "alternatives"):
        for a in m[key]:
            for b in h[key]:
                assert set(a) == set(b)
    assert (m["rules"], h["rules"]) == ("mcr", "hk")
    assert m["cap"] is None and h["cap"] == LIMIT


def _explains(result) -> None:
    """The explanation is consistent with the hand: totals add up, evidence tiles come from the hand, the
    arrangement's groups hold exactly the hand's tiles."""
    hand = parse_hand(result.hand)
    tiles = Counter(hand.all_tiles())
    assert result.total_uncapped == sum(f.points for f in result.fans)
    assert result.total == (min(result.total_uncapped, result.cap) if result.cap else result.total_uncapped)
    for f in result.fans:
        assert f.count == len(f.tiles) and f.points == f.value * f.count
        for ev in f.tiles:
            if ev and all(t in tiles for t in ev):
                assert not Counter(ev) - tiles, (f.id, ev)
    grouped = Counter(t for g in result.arrangement.groups for t in g.tiles)
    assert grouped == tiles


@pytest.mark.parametrize("hand, ctx", CROSS_HANDS)
def test_consistent_explanations_under_both_rule_sets(hand, ctx):
    m = score(hand, WinContext(**ctx), rules="mcr")
    h = score(hand, WinContext(**ctx), rules="hk")
    assert m.hand == h.hand and m.context == h.context
    _explains(m)
    _explains(h)
    # the shape is read the same way when both rule sets know it
    if m.arrangement.form in ("standard", "seven_pairs", "thirteen_orphans") and m.arrangement.form == \
            h.arrangement.form:
        assert Counter(g.kind for g in m.arrangement.groups) == Counter(g.kind for g in h.arrangement.groups)


# ---------------------------------------------------------------------------------------------------------------
# CLI


def test_cli_score_hk_json(capsys):
    assert main(["score", "EEESSSWWWNNN55p", "--rules", "hk", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["rules"] == "hk" and d["cap"] == LIMIT and d["total"] == LIMIT < d["total_uncapped"]
    assert "big_four_winds" in {f["id"] for f in d["fans"]}


def test_cli_score_hk_text_shows_cap(capsys):
    assert main(["score", "EEESSSWWWNNN55p", "--rules", "hk"]) == 0
    out = capsys.readouterr().out
    assert "Big Four Winds" in out and "capped at 18 (uncapped" in out and "-" not in out.split("Total")[1][:12]


def test_cli_hk_flags(capsys):
    assert main(["score", "[1111m][2222p]345s678s9s9s", "--rules", "hk", "--kong-on-kong", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["context"]["self_drawn"] and d["context"]["kong_replacement"] and d["context"]["kong_on_kong"]
    assert "kong_on_kong" in {f["id"] for f in d["fans"]}
    assert main(["score", "123m456m789m123p55p", "--rules", "hk", "--first-tile", "--seat-wind", "S",
                 "--json"]) == 0
    assert "bless_of_earth" in {f["id"] for f in json.loads(capsys.readouterr().out)["fans"]}
    assert main(["score", "123m456m789m123p55p", "--rules", "hk", "--flower-replacement", "--flowers", "ab",
                 "--json"]) == 0
    assert "win_on_kong" in {f["id"] for f in json.loads(capsys.readouterr().out)["fans"]}
    assert main(["score", "123m456m789m123p55p", "--rules", "hk", "--first-tile"]) == 2
    assert "East makes the first discard" in capsys.readouterr().err


def test_cli_rules_listing(capsys):
    assert main(["rules", "--rules", "hk"]) == 0
    out = capsys.readouterr().out
    lines = [ln.split() for ln in out.splitlines() if ln.startswith("  ") and ln.split()[0][0].isdigit()]
    numbers = [ln[0] for ln in lines]
    assert len(lines) == len(get_rule_set("hk").fans)
    assert numbers.index("1.1.9") < numbers.index("1.1.10") < numbers.index("2.1.1")
    row = next(ln for ln in lines if ln[0] == "2.1.10")
    assert row[1] == "mixed_terminals" and "9" in row
    assert any(ln[0] == "3.1.30" and "Limit" in ln for ln in lines)
    assert main(["rules", "--json"]) == 0
    listing = {r["rules"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(listing) >= {"mcr", "hk"}
    hk_items = {i["id"]: i for i in listing["hk"]["items"]}
    assert hk_items["one_suit"]["replaces"] == ["mixed_one_suit", "one_voided_suit"]
    assert hk_items["four_kongs"]["limit"] and hk_items["four_kongs"]["number"] == "3.1.31"
    assert len(listing["mcr"]["items"]) == len(get_rule_set("mcr").fans)
    assert main(["rules", "--rules", "hk", "-v"]) == 0
    assert "Terminals and honours only (seed: '3.1.10')." in capsys.readouterr().out


def test_r24_every_item_has_both_names():
    for f in get_rule_set("hk").fans:
        assert f.name and f.name_zh and f.description and f.number


def test_r27_best_reading_wins():
    assert hk("123m123m456p456p99s").arrangement.form == "seven_pairs"
    r = hk("111m222m333m123m55p")
    assert "four_identical_sequences" in scored(r) and "four_ladies" not in scored(r)


def test_r28_flowers_score_nothing():
    assert hk("123m456m789m123p55p", flowers=("a", "b", "e")).total == hk("123m456m789m123p55p").total
