"""Every row of the seed-003 kong chart (27 rows + 10 notes) is a test (RULES.md, "Kongs and concealed pungs").

Each row is built as a concrete hand with `mk` melded kongs, `ck` concealed kongs, `cp` concealed pungs and `mp`
melded pungs (the rest chows), self-drawn on the pair so that every concealed pung stays concealed. The row's value
is the sum of the chart's fans as scored: the kong fans, the concealed-pung series and All Pungs ("Pung hand").
"""

from __future__ import annotations

import pytest
from fanscan.scoring import score

CHART_FANS = {
    "melded_kong", "concealed_kong", "two_melded_kongs", "mixed_kongs", "two_concealed_kongs", "three_kongs",
    "four_kongs", "two_concealed_pungs", "three_concealed_pungs", "four_concealed_pungs", "all_pungs",
}

# Pung/kong tiles (odd numbers, no shifted or even patterns) and chows that combine with nothing.
PUNG_TILES = ["1m", "3p", "5s", "7m"]
CHOWS = ["678p", "234s", "456p"]


def chart_hand(mk: int, ck: int, cp: int, mp: int) -> str:
    melds, standing = [], []
    tiles = iter(PUNG_TILES)
    for _ in range(mk):
        t = next(tiles)
        melds.append(f"[{t[0] * 4}{t[1]},1]")
    for _ in range(ck):
        t = next(tiles)
        melds.append(f"[{t[0] * 4}{t[1]}]")
    for _ in range(mp):
        t = next(tiles)
        melds.append(f"[{t[0] * 3}{t[1]},2]")
    for _ in range(cp):
        t = next(tiles)
        standing.append(t[0] * 3 + t[1])
    chows = iter(CHOWS)
    for _ in range(4 - mk - ck - cp - mp):
        standing.append(next(chows))
    return "".join(melds) + "".join(standing) + "9p9p|EE1000"


def chart_value(hand: str) -> tuple[int, list[str]]:
    result = score(hand)
    fans = [f for f in result.fans if f.id in CHART_FANS]
    return sum(f.points for f in fans), sorted(f.id for f in fans)


# (chart value, chart text, mk, ck, cp, mp)
ROWS = [
    (1, "Melded Kong", 1, 0, 0, 0),
    (2, "Concealed Kong", 0, 1, 0, 0),
    (2, "Two concealed triplets", 0, 0, 2, 0),
    (4, "Two concealed triplets + Concealed Kong = 2 + 2", 0, 1, 1, 0),
    (4, "Two Kongs", 2, 0, 0, 0),
    (6, "Mixed Kongs", 1, 1, 0, 0),
    (8, "Mixed Kongs + Two concealed triplets = 6 + 2", 1, 1, 1, 0),
    (8, "Two concealed Kongs", 0, 2, 0, 0),
    (16, "Three concealed triplets", 0, 0, 3, 0),
    (18, "Three concealed triplets + Concealed Kong = 16 + 2", 0, 1, 2, 0),
    (24, "Three concealed triplets + Two concealed Kongs = 16 + 8", 0, 2, 1, 0),
    (28, "Three concealed triplets + Mixed Kongs + Pung hand = 16 + 6 + 6", 1, 1, 2, 0),
    (32, "Three Kongs", 3, 0, 0, 0),
    (34, "Three Kongs + Concealed Kong = 32 + 2", 2, 1, 0, 0),
    (40, "Three Kongs + Two concealed Kongs = 32 + 8", 1, 2, 0, 0),
    (42, "Three Kongs + Concealed Kong + Two concealed triplets + Pung hand = 32 + 2 + 2 + 6", 2, 1, 1, 0),
    (48, "Three Kongs + Three concealed triplets = 32 + 16 (Two concealed Kongs not counted)", 0, 3, 0, 0),
    (62, "Three Kongs + Two concealed Kongs + Three concealed triplets + Pung hand = 32 + 8 + 16 + 6", 1, 2, 1, 0),
    (64, "Four concealed triplets", 0, 0, 4, 0),
    (66, "Four concealed triplets + Concealed Kong = 64 + 2", 0, 1, 3, 0),
    (72, "Four concealed triplets + Two concealed Kongs = 64 + 8", 0, 2, 2, 0),
    (88, "Four Kongs", 4, 0, 0, 0),
    (90, "Four Kongs + Concealed Kong = 88 + 2", 3, 1, 0, 0),
    (96, "Four Kongs + Two concealed Kongs = 88 + 8", 2, 2, 0, 0),
    (96, "Three Kongs + Four concealed triplets = 32 + 64", 0, 3, 1, 0),
    (104, "Four Kongs + Three concealed triplets = 88 + 16", 1, 3, 0, 0),
    (152, "Four Kongs + Four concealed triplets = 88 + 64", 0, 4, 0, 0),
    # the chart's notes
    (8, "Concealed Kong + Pung hand = 2 + 6", 0, 1, 0, 3),
    (12, "Two mixed Kongs + Pung hand = 6 + 6", 1, 1, 0, 2),
    (14, "Two concealed Kongs + Pung hand = 8 + 6", 0, 2, 0, 2),
    (28, "Two mixed Kongs + Pung hand + Three concealed triplets = 6 + 6 + 16", 1, 1, 2, 0),
    (30, "Two concealed Kongs + Pung hand + Three concealed triplets = 8 + 6 + 16", 0, 2, 1, 1),
    (40, "Three Kongs + Concealed Kong + Pung hand = 32 + 2 + 6", 2, 1, 0, 1),
    (46, "Three Kongs + Two concealed Kongs + Pung hand = 32 + 8 + 6", 1, 2, 0, 1),
    (54, "Three Kongs + Three concealed triplets + Pung hand = 32 + 16 + 6", 0, 3, 0, 1),
]

# The two rows RULES.md says contradict the rest of the chart: scored as the rule computes.
CONTRADICTING = [
    # "18 = Two mixed Kongs + Pung hand + Two concealed triplets = 6 + 6 + 6": the parts are 6 + 6 + 2 = 14
    # under every other row (Two Concealed Pungs is 2).
    (18, 14, "Two mixed Kongs + Pung hand + Two concealed triplets", 1, 1, 1, 1),
    # the second "46": Three Kongs + Concealed Kong + Pung hand + Two concealed triplets is the hand of the
    # "42" row (32 + 2 + 2 + 6).
    (46, 42, "Three Kongs + Concealed Kong + Pung hand + Two concealed triplets", 2, 1, 1, 0),
]


def test_chart_has_every_row() -> None:
    assert len(ROWS) + len(CONTRADICTING) == 37


@pytest.mark.parametrize(("value", "text", "mk", "ck", "cp", "mp"), ROWS, ids=[f"{r[0]}-{r[1][:40]}" for r in ROWS])
def test_chart_row(value: int, text: str, mk: int, ck: int, cp: int, mp: int) -> None:
    hand = chart_hand(mk, ck, cp, mp)
    got, fans = chart_value(hand)
    assert got == value, f"{hand}: {fans}"


@pytest.mark.parametrize(("chart", "computed", "text", "mk", "ck", "cp", "mp"), CONTRADICTING)
def test_contradicting_rows_follow_the_rule(chart: int, computed: int, text: str, mk: int, ck: int, cp: int,
                                            mp: int) -> None:
    got, _ = chart_value(chart_hand(mk, ck, cp, mp))
    assert got == computed
    assert got != chart


def test_chart_breakdown_names_the_parts() -> None:
    # 62: one melded and two concealed kongs and a concealed pung
    _, fans = chart_value(chart_hand(1, 2, 1, 0))
    assert fans == ["all_pungs", "three_concealed_pungs", "three_kongs", "two_concealed_kongs"]
    # 48: three concealed kongs: Three Concealed Pungs, and no Two Concealed Kongs
    _, fans = chart_value(chart_hand(0, 3, 0, 0))
    assert fans == ["three_concealed_pungs", "three_kongs"]
    # 8: two concealed kongs are not also Two Concealed Pungs
    _, fans = chart_value(chart_hand(0, 2, 0, 0))
    assert fans == ["two_concealed_kongs"]
