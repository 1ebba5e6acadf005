"""Comparing fanscan with the Chinese 1998 reference engines (gb-mahjong fixtures, PyPI `pymahjonggb`).

Under the MCR variant "mil" (`mcr.MIL`: the Green Book / MIL values the reference engines use) fanscan must agree
with them: the same fans and total, or - where a hand can be read in several ways of equal value - the same total
with the reference's fan list being one of fanscan's own `alternatives`. `compare` says which; there is no list
of excused differences. `pymahjonggb` itself is optional (extra `diff`) and imported only by `reference_score`.
"""

from __future__ import annotations

from collections import Counter

from .hand import Hand, WinContext
from .mcr import FANS
from .score import Score
from .tiles import INDEX, WINDS

#: GB-Mahjong fixture code (FAN_XXX without prefix) -> fan id
CODE_TO_ID = {f.code: f.id for f in FANS}
#: Chinese name -> fan id (pymahjonggb reports Chinese names)
ZH_TO_ID = {f.name_zh: f.id for f in FANS}

#: What `compare` returns
SAME = "same"
EQUAL_TOTAL_TIE = "equal_total_tie"
DIFFERENT = "different"


def fan_counts(result: Score) -> Counter:
    return Counter({f.id: f.count for f in result.fans})


def compare(ours: Score, theirs: Counter, theirs_total: int) -> str:
    """SAME: the same fans and total. EQUAL_TOTAL_TIE: the same total, and the reference's fans are those of one
    of our equal-total `alternatives` (another reading of the hand, which we report too). DIFFERENT otherwise."""
    if ours.total != theirs_total:
        return DIFFERENT
    if fan_counts(ours) == theirs:
        return SAME
    if any(Counter({f.id: f.count for f in alt.fans}) == theirs for alt in ours.alternatives):
        return EQUAL_TOTAL_TIE
    return DIFFERENT


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

__all__ = ["CODE_TO_ID", "DIFFERENT", "EQUAL_TOTAL_TIE", "INDEX", "SAME", "compare", "fan_counts", "reference_args",
           "reference_is_winning", "reference_score"]
