"""Comparing fanscan with the Chinese 1998 reference engines (gb-mahjong fixtures, PyPI `pymahjonggb`).

RULES.md names the only places where the rulings differ from those engines; `classify_difference` sorts a
difference into one of them or reports it as unexplained. Used by the tests and `benchmarks/differential.py`;
`pymahjonggb` itself is optional (extra `diff`) and imported only by `reference_score`.
"""

from __future__ import annotations

from collections import Counter

from .hand import Hand, WinContext
from .mcr import FANS
from .tiles import INDEX, WINDS

#: fan ids the kong chart of seed 003 governs
KONG_CHART_FANS = frozenset({
    "melded_kong", "concealed_kong", "two_melded_kongs", "mixed_kongs", "two_concealed_kongs", "three_kongs",
    "four_kongs", "two_concealed_pungs", "three_concealed_pungs", "four_concealed_pungs", "all_pungs",
})
#: GB-Mahjong fixture code (FAN_XXX without prefix) -> fan id
CODE_TO_ID = {f.code: f.id for f in FANS}
#: Chinese name -> fan id (pymahjonggb reports Chinese names)
ZH_TO_ID = {f.name_zh: f.id for f in FANS}
VALUES = {f.id: f.value for f in FANS}

EXPLAINED = {
    "two_concealed_kongs_6_vs_8": "Two Concealed Kongs is 8 here (seed 001), 6 in the Chinese 1998 list",
    "mixed_kongs_5_vs_6": "one melded + one concealed kong: Mixed Kongs 6 here (seed-003 chart), 明暗杠 5 there",
    "kong_chart_3_or_more": "three or more kongs: the seed-003 chart here, the MIL rule there",
    "tie_break_equal_total": "same total, another arrangement or pairing of 1-fan set fans chosen among equals "
                             "(RULES.md: ties broken deterministically, equal alternatives reported)",
}


def classify_difference(hand: Hand, ours: Counter, theirs: Counter, ours_total: int | None = None,
                        theirs_total: int | None = None, alternatives: list[Counter] | tuple = ()) -> str | None:
    """None when both agree; else the RULES.md category that explains the difference, or "unexplained".

    Categories (EXPLAINED): the value of Two Concealed Kongs (8 here, 6 there) or of one melded + one concealed
    kong (Mixed Kongs 6 here, 明暗杠 5 there); three or more kongs (the chart here, differences only among the
    kong and concealed-pung fans); and ties - the same total once those values are allowed for, the reference
    having picked another arrangement (one of our `alternatives`) or another pairing of the 1-fan set fans."""
    if ours == theirs and (ours_total is None or ours_total == theirs_total):
        return None
    mk = sum(1 for m in hand.melds if m.kind == "kong" and not m.concealed)
    ck = sum(1 for m in hand.melds if m.kind == "kong" and m.concealed)
    diff = set((ours - theirs) + (theirs - ours))
    value_category = None  # the RULES.md value difference this hand carries, and its size
    delta = 0
    if mk + ck == 2 and ck == 2 and "two_concealed_kongs" in ours:
        value_category, delta = "two_concealed_kongs_6_vs_8", 2
    elif mk == 1 and ck == 1 and "mixed_kongs" in ours:
        value_category, delta = "mixed_kongs_5_vs_6", 1
    totals = ours_total is not None and theirs_total is not None
    if ours == theirs:  # same fans, another total: a value difference
        if value_category and totals and ours_total - theirs_total == delta:
            return value_category
        if mk + ck >= 3 and totals:
            return "kong_chart_3_or_more"
        return "unexplained"
    if totals and ours_total - theirs_total == delta:
        # the same total (allowing for the kong values): a tie the two engines break differently
        if any(alt == theirs for alt in alternatives):
            return "tie_break_equal_total"
        pair_fans = {"pure_double_chow", "mixed_double_chow", "short_straight", "two_terminal_chows"}
        if diff <= pair_fans:
            return "tie_break_equal_total"
    if mk + ck >= 3 and diff <= KONG_CHART_FANS:
        return "kong_chart_3_or_more"
    return "unexplained"


# --- pymahjonggb (optional) --------------------------------------------------------------------------------

_SUIT_CODE = {"m": "W", "s": "T", "p": "B"}
_HONOR_CODE = {"E": "F1", "S": "F2", "W": "F3", "N": "F4", "C": "J1", "F": "J2", "P": "J3"}


def _code(tile: str) -> str:
    return _SUIT_CODE[tile[1]] + tile[0] if len(tile) == 2 else _HONOR_CODE[tile]


def reference_args(hand: Hand, ctx: WinContext) -> dict:
    """Keyword arguments of `MahjongGB.MahjongFanCalculator` for a hand and its context."""
    packs = []
    for m in hand.melds:
        if m.kind == "chow":
            packs.append(("CHI", _code(m.tiles[1]), m.claim or 1))
        elif m.kind == "pung":
            packs.append(("PENG", _code(m.tile), m.claim or 1))
        else:
            offer = 0 if m.concealed else ((m.claim - 4) if m.claim and m.claim >= 5 else (m.claim or 1))
            packs.append(("GANG", _code(m.tile), offer))
    win = hand.winning_tile
    exposed = sum(m.tiles.count(win) for m in hand.melds if not m.concealed)
    return {
        "pack": tuple(packs), "hand": tuple(_code(t) for t in hand.standing), "winTile": _code(win),
        "flowerCount": ctx.n_flowers, "isSelfDrawn": ctx.self_drawn,
        "is4thTile": ctx.last_of_kind or exposed == 3,
        "isAboutKong": ctx.kong_replacement or ctx.robbing_kong, "isWallLast": ctx.last_tile,
        "seatWind": WINDS.index(ctx.seat_wind), "prevalentWind": WINDS.index(ctx.prevalent_wind),
        "verbose": True,
    }


def reference_score(hand: Hand, ctx: WinContext) -> tuple[Counter, int]:
    """(fan id -> count, total) from pymahjonggb; raises ImportError when it is not installed."""
    from MahjongGB import MahjongFanCalculator  # optional extra "diff"

    result = MahjongFanCalculator(**reference_args(hand, ctx))
    fans: Counter = Counter()
    total = 0
    for value, count, name_zh, _name_en in result:
        fid = ZH_TO_ID.get(name_zh) or _REF_ALIASES.get(name_zh)
        if fid is None:
            raise KeyError(f"unknown reference fan {name_zh}")
        fans[fid] += count
        total += value * count
    return fans, total


# pymahjonggb's names that differ from the table's (its wait fans are called "unique wait")
def reference_is_winning(hand: Hand) -> bool:
    """Whether pymahjonggb accepts a hand as complete (its calculator refuses others with ERROR_NOT_WIN)."""
    from MahjongGB import MahjongFanCalculator  # optional extra "diff"

    try:
        MahjongFanCalculator(**reference_args(hand, WinContext()))
    except Exception as error:  # the binding raises a plain TypeError with the code as message
        if "NOT_WIN" in str(error):
            return False
        raise
    return True


_REF_ALIASES = {"独听・边张": "edge_wait", "独听・嵌张": "closed_wait", "独听・单钓": "pair_wait",
                "嵌张": "closed_wait", "单钓": "pair_wait"}

__all__ = ["CODE_TO_ID", "EXPLAINED", "INDEX", "classify_difference", "reference_args", "reference_is_winning",
           "reference_score"]
