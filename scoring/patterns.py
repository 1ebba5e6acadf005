"""Building blocks that the rule-set tables (`mcr.py`, `hk.py`) share: evidence helpers and the predicates that
read the same in every rule set. A predicate takes an `engine.View` and returns its evidence (see ENGINE.md)."""

from __future__ import annotations

from .decomposition import CHOW, KONG, SEVEN_PAIRS, THIRTEEN_ORPHANS
from .engine import View
from .tiles import FIRST_DRAGON, FIRST_HONOR

WHOLE = (None,)  # evidence: the whole hand


def chow_tiles(t: int) -> tuple[int, ...]:
    """The tiles of the chow starting at tile index t."""
    return (t, t + 1, t + 2)


def pung_tiles(v: View, t: int) -> tuple[int, ...]:
    """The tiles of the pung or kong of tile t (four for a declared kong)."""
    return (t,) * (4 if t in v.info.kong_tiles else 3)


def pungs_tiles(v: View, pungs) -> tuple[int, ...]:
    """The tiles of several pungs or kongs, one after another."""
    return tuple(x for t in pungs for x in pung_tiles(v, t))


def wind_pungs(v: View) -> list[int]:
    return [t for t in v.pungs if FIRST_HONOR <= t < FIRST_DRAGON]


def dragon_pungs(v: View) -> list[int]:
    return [t for t in v.pungs if t >= FIRST_DRAGON]


def groups_with_pair(v: View) -> list[tuple[int, ...]]:
    """The tiles of every set (a pung or kong as one tile) and of the pair: one entry per group."""
    out = [chow_tiles(t) if k == CHOW else (t,) for k, t, _, _ in v.groups]
    out.append((v.pair,))
    return out


def concealed_pung_tiles(v: View) -> tuple[int, ...]:
    """The tiles of the pungs and kongs that count as concealed (View.groups' `concealed`)."""
    return tuple(x for k, t, _, concealed in v.groups if concealed for x in (t,) * (4 if k == KONG else 3))


def win_tile(v: View) -> tuple[tuple[int], ...]:
    """Evidence: the winning tile (for the win-context fans)."""
    return ((v.info.win,),)


def tiles_within(allowed: frozenset):
    """A predicate: every tile of the hand is one of `allowed` (All Green, All Blue, Pure Terminals ...)."""
    def predicate(v: View):
        return WHOLE if v.info.tiles <= allowed else ()
    return predicate


def seven_pairs(v: View):
    return WHOLE if v.form == SEVEN_PAIRS else ()


def thirteen_orphans(v: View):
    return WHOLE if v.form == THIRTEEN_ORPHANS else ()
