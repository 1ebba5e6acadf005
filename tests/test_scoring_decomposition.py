"""Hand analysis: every arrangement of a complete hand, the fast completeness check, waits."""

from __future__ import annotations

import pytest
from fanscan.scoring import FanscanError, decompose, is_complete, parse_hand, waits
from fanscan.scoring.decomposition import arrangements, formal_waits, is_winning
from fanscan.scoring.hand import tile_counts


def forms(text: str) -> list[str]:
    return sorted(a.form for a in decompose(text))


def test_standard_readings_are_all_listed() -> None:
    found = decompose("111222333m456p7s7s")  # 111 222 333 or 123 123 123: two readings of the 1-3m block
    assert len(found) == 2
    assert {tuple(sorted(g.kind for g in a.groups)) for a in found} == {
        ("chow", "pair", "pung", "pung", "pung"), ("chow", "chow", "chow", "chow", "pair")}


@pytest.mark.parametrize(("text", "form"), [
    ("1133m4466p2288sEE", "seven_pairs"),
    ("19m19p19sESWNCFP1m", "thirteen_orphans"),
    ("147m258p36sESWNCF", "honors_knitted"),
    ("147m258p369s123m5p5p", "knitted_straight"),
    ("[123m,1]456p789s234s5m5m", "standard"),
])
def test_each_form(text: str, form: str) -> None:
    assert form in forms(text)


def test_seven_pairs_and_standard_both_listed() -> None:
    assert forms("11223344556677p") == ["seven_pairs", "standard", "standard", "standard"]  # pair 11, 44 or 77


def test_melds_are_kept_as_they_are() -> None:
    found = decompose("[111m,1][1111p]234m567s9p9p")
    assert len(found) == 1
    groups = found[0].groups
    assert groups[0].melded and groups[0].tiles == ["1m"] * 3
    assert not groups[1].melded and groups[1].kind == "kong"


def test_is_complete() -> None:
    assert is_complete(["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m", "5m"])
    assert not is_complete(["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m", "E"])
    assert is_complete({"E": 3, "S": 2}, n_melds=3)
    assert not is_complete({"E": 3, "S": 1, "W": 1}, n_melds=3)
    with pytest.raises(FanscanError):
        is_complete(["x"])


def test_is_winning_agrees_with_arrangements_on_all_small_suit_hands() -> None:
    # every 1-suit count vector of 5 tiles with 3 melds: completeness and enumeration agree
    import itertools

    checked = 0
    for combo in itertools.combinations_with_replacement(range(9), 5):
        counts = [0] * 34
        for i in combo:
            counts[i] += 1
        if max(counts) > 4:
            continue
        checked += 1
        assert is_winning(tuple(counts), 3) == bool(arrangements(tuple(counts), 3)), combo
    assert checked > 1000


def test_waits_practical_and_formal() -> None:
    assert waits("1112345678999m") == [f"{n}m" for n in range(1, 10)]
    assert waits("234m345s333pEEEE") == [] and waits("234m345s333pEEEE", formal=True) == ["E"]
    assert waits("19m19p19sESWNCFP") == ["1m", "9m", "1p", "9p", "1s", "9s", "E", "S", "W", "N", "C", "F", "P"]
    hand = parse_hand("4444666s123m789p ")
    counts = tile_counts(hand.standing)
    assert [i for i in formal_waits(tuple(counts), 0)] == [21, 22]  # 4s 5s
    with pytest.raises(FanscanError, match="13-tile"):
        waits("123m456p789s1235s5s")


def test_decompose_needs_a_complete_hand() -> None:
    assert decompose("123m456p789s24689s") == []
    with pytest.raises(FanscanError):
        decompose("123m456p789s1235s")
