"""GB notation read and written, the structured form, and validation errors (one line, saying what and where)."""

from __future__ import annotations

import json
import random

import pytest
from fanscan.scoring import FanscanError, Hand, Meld, WinContext, format_hand, parse_hand, score
from fanscan.scoring.random_hands import random_hand
from fanscan.scoring.tiles import ALL_TILE_IDS, ASCII_TEXT, CHINESE_NAMES, ENGLISH_NAMES, GLYPHS, tile_text


def test_tiles_table() -> None:
    assert len(ALL_TILE_IDS) == 42
    assert ALL_TILE_IDS[:3] == ("1m", "2m", "3m") and ALL_TILE_IDS[27:34] == ("E", "S", "W", "N", "C", "F", "P")
    assert ENGLISH_NAMES["3p"] == "3 Dots" and ENGLISH_NAMES["P"] == "White Dragon" and ENGLISH_NAMES["a"] == "Plum"
    assert CHINESE_NAMES["1m"] == "一万" and CHINESE_NAMES["C"] == "中" and CHINESE_NAMES["h"] == "冬"
    # Unicode block order differs from ours: bamboo before dots; red dragon U+1F004, white U+1F006
    assert GLYPHS["1s"] == "\U0001F010" and GLYPHS["1p"] == "\U0001F019" and GLYPHS["C"] == "\U0001F004"
    assert GLYPHS["P"] == "\U0001F006" and GLYPHS["a"] == "\U0001F022" and GLYPHS["e"] == "\U0001F026"
    assert ASCII_TEXT["5s"] == "[5s]" and tile_text("E", "en") == "East Wind"
    assert len(set(GLYPHS.values())) == 42


def test_parse_melds_context_and_flowers() -> None:
    hand = parse_hand("[345m,1][EEE,2][1111p][4444s,6]9p9p|SW1011|ace")
    assert [m.kind for m in hand.melds] == ["chow", "pung", "kong", "kong"]
    assert hand.melds[0].tiles == ("3m", "4m", "5m") and hand.melds[0].claim == 1
    assert hand.melds[2].concealed and not hand.melds[3].concealed and hand.melds[3].added
    assert hand.standing == ("9p",) and hand.winning_tile == "9p"
    ctx = hand.context
    assert (ctx.prevalent_wind, ctx.seat_wind) == ("S", "W")
    assert ctx.self_drawn and not ctx.last_of_kind and ctx.last_tile and ctx.kong_replacement
    assert not ctx.robbing_kong and ctx.flowers == ("a", "c", "e") and ctx.n_flowers == 3


def test_fourth_flag_is_robbing_on_a_discard() -> None:
    ctx = parse_hand("[123m,1][345m,1]567m34sCC5s|EE0001|3").context
    assert ctx.robbing_kong and not ctx.kong_replacement and ctx.flower_count == 3 and ctx.n_flowers == 3


def canonical(hand: Hand) -> tuple:
    """A hand up to the order its standing tiles are written in (format_hand sorts them)."""
    return hand.melds, sorted(hand.standing), hand.winning_tile, hand.context


def test_thirteen_tiles_is_a_waiting_hand() -> None:
    hand = parse_hand("1112345678999s ")
    assert hand.winning_tile is None and len(hand.standing) == 13


@pytest.mark.parametrize("text", [
    "[EEE,2][SSSS,1]WWWNN55pN|EE1000", "[345m,1]22456p222567s", "19m19p119sESWNPFC|EE1000|d",
    "[1111s][2222m,2][3333p,7][4444p]88s", "[123m,1][345m,1]567m34sCC5s|EE0101|3",
])
def test_format_round_trip(text: str) -> None:
    hand = parse_hand(text)
    again = parse_hand(format_hand(hand))
    assert canonical(again) == canonical(hand)


def test_format_round_trip_random_hands() -> None:
    rng = random.Random(7)
    for _ in range(300):
        hand = random_hand(rng)
        assert canonical(parse_hand(format_hand(hand))) == canonical(hand)


def test_structured_form_json_round_trip() -> None:
    rng = random.Random(8)
    for _ in range(100):
        hand = random_hand(rng)
        data = json.loads(json.dumps(hand.to_dict()))
        assert Hand.from_dict(data) == hand


def test_structured_form_is_validated() -> None:
    good = parse_hand("[345m,1]22456p222567s").to_dict()
    good["standing"] = good["standing"] + ["2s"]
    with pytest.raises(FanscanError, match="tiles"):
        Hand.from_dict(good)
    with pytest.raises(FanscanError, match="chow"):
        Meld.from_dict({"kind": "chow", "tiles": ["1m", "2m", "4m"]})
    with pytest.raises(FanscanError, match="not a tile id"):
        Meld.from_dict({"kind": "pung", "tiles": ["x", "x", "x"]})
    with pytest.raises(FanscanError, match="unknown field"):
        WinContext.from_dict({"self_drawn": True, "windy": 1})


@pytest.mark.parametrize(("text", "message"), [
    ("123m456p789s123sEx", r"unexpected character 'x' at position 18"),
    ("123m456p789s123se", r"did you mean 'E'"),
    ("123m456p789s12s77z", r"not 1z-7z"),
    ("123m456p789s12355", r"'12355' at position 13 have no suit"),
    ("103m456p789s12355s", r"'0' at position 2"),
    ("m123456p789s12355s", r"suit letter 'm' at position 1"),
    ("[123m,1456p789s1235s5s", r"never closed"),
    ("[124m,1]456p789s1235s5s", r"not a chow"),
    ("[123m,4]456p789s1235s5s", r"claim index 4"),
    ("[11m]456p789s123555s5s", r"3 tiles .* or 4"),
    ("123m456p789s123s5s5s5s", r"15 tiles"),
    ("123m456p789s123s5s", r"13 tiles.*winning"),
    ("11111m456p789s12s5s", r"5 copies of 1m"),
    ("[1111m]1m56p789s123s5s5s", r"5 copies of 1m"),
    ("123m456p789s123s5s5s|EX1000", r"seat wind 'X'"),
    ("123m456p789s123s5s5s|EE10", r"EE1000"),
    ("123m456p789s123s5s5s|EE1200", r"flag '2'"),
    ("123m456p789s123s5s5s|EE1000|az", r"flower 'z'"),
    ("123m456p789s123s5s5s|EE1000|aa", r"once"),
    ("123m456p789s123s5s5s|EE1000|9", r"8 flowers"),
    ("123m456p789s123s5s5s|EE1001", r"needs a kong"),
    ("[123m,1][345s,1]567m34sCC5s|EE0001", r"robbing the kong on 5s"),
    ("[123m,1][456m,1]55s345sCC5s|EE0100", r"last of its kind on 5s"),
    ("123m456p789s24689s", r"not a winning hand"),
    ("", r"empty"),
])
def test_errors_are_one_line(text: str, message: str) -> None:
    with pytest.raises(FanscanError, match=message) as info:
        score(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("ctx", "message"), [
    (WinContext(self_drawn=True, robbing_kong=True), "cannot be self-drawn"),
    (WinContext(kong_replacement=True), "self-draw"),
    (WinContext(robbing_kong=True, last_tile=True), "last tile"),
    (WinContext(seat_wind="X"), "seat wind"),
    (WinContext(flowers=("a", "a")), "twice"),
    (WinContext(self_drawn=True, kong_replacement=True), "needs a kong"),
])
def test_impossible_context_is_refused(ctx: WinContext, message: str) -> None:
    with pytest.raises(FanscanError, match=message):
        score("[123m,1][345m,1]567m34sCC5s", ctx)


def test_context_argument_replaces_the_strings() -> None:
    hand = "[123m,1][345m,1]567m34sCC5s|EE0000"
    assert "self_drawn" not in {f.id for f in score(hand).fans}
    assert "self_drawn" in {f.id for f in score(hand, WinContext(self_drawn=True)).fans}


def test_format_tiles_groups_digits_by_suit_in_tile_order() -> None:
    from fanscan.scoring.notation import format_tiles

    # Written by hand: characters, then dots, then bamboo, each suit's digits ascending, honours last.
    assert format_tiles(["E", "9s", "3m", "1m", "5p", "2m", "P", "1s"]) == "123m5p19sEP"
    assert format_tiles([]) == ""


@pytest.mark.parametrize(("text", "position"), [("|0\n0", 2), ("123m\r456m", 4), ("11m\u20282m", 3)])
def test_a_line_break_inside_the_hand_string_is_one_line_error(text: str, position: int) -> None:
    # Found by the property test: the context's error quoted the text, line break and all.
    with pytest.raises(FanscanError, match=f"^a hand string is one line; it breaks after position {position}$"):
        parse_hand(text)
