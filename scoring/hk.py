"""HK - the "Hong Kong Rule" list of seed 000 (limit 18), as a second table on the MCR engine.

Seed 000 is the only source of this list and is garbled in places; ../shared/RULES.md fixes its numbering and says
how its items combine, and scoring/HK-RULINGS.md records every further decision (R1, R2 ... cited below).

- One row per item (`_ROWS`), numbered as in the seed after the RULES.md renumbering (`number`). The Kongs item
  (3.1.31) is four rows, one per kong count, because its value is not per kong.
- "Limit" items score `LIMIT` = 18; the total is capped at 18 by the engine (`RuleSet.cap`; the JSON shows
  `total` = capped and `total_uncapped`).
- "Within one family the tighter item replaces the looser one" is the single table `REPLACES` below: a house rule
  is a one-line change there. Replacement is not transitive: an item that is replaced replaces nothing itself
  (engine rule), so list every item an item replaces.
- Tile-content items (2.1.x) look at every tile of the hand in every winning shape; the regular-pattern items
  (3.1.x) need the standard shape (four sets and a pair); the special items (3.2.x) are the other shapes (R1).
- Winning shapes: standard, seven pairs (a four of a kind is two pairs), thirteen orphans, and thirteen not
  connected (14 different tiles, no two of one suit with consecutive numbers). The MCR knitted shapes are not
  winning shapes here (`hk_arrangements`).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from .decomposition import CHOW, SEVEN_PAIRS, STANDARD, THIRTEEN_ORPHANS, Arrangement, arrangements
from .engine import Fan, RuleSet, View, register_rule_set
from .patterns import (
    WHOLE,
    chow_tiles,
    concealed_pung_tiles,
    dragon_pungs,
    groups_with_pair,
    pung_tiles,
    pungs_tiles,
    seven_pairs,
    thirteen_orphans,
    tiles_within,
    win_tile,
    wind_pungs,
)
from .tiles import FIRST_DRAGON, FIRST_HONOR, GREEN, INDEX, N_KINDS, TERMINALS, TERMINALS_AND_HONORS, WINDS

LIMIT = 18
NOT_CONNECTED = "not_connected"  # HK's own shape (3.2.4 Thirteen Not Connected and 3.2.5 Seven Stars)
HK_FORMS = (STANDARD, SEVEN_PAIRS, THIRTEEN_ORPHANS)
BLUE = frozenset({INDEX["8p"], INDEX["P"], *(INDEX[w] for w in WINDS)})  # 2.1.9 All Blue
ALL_HONORS = frozenset(range(FIRST_HONOR, N_KINDS))

# ---------------------------------------------------------------------------------------------------------------
# THE replacement table (RULES.md "Interpretation"): item -> the items it replaces when both are satisfied.
# Within one family the tighter item replaces the looser one; items of different families add up.
# Not transitive: list every item replaced (small_tiles replaces medium_tiles, yet No Terminals still adds).

REPLACES: dict[str, tuple[str, ...]] = {
    # win
    "fully_concealed_hand": ("concealed_hand", "self_draw"),
    "kong_on_kong": ("win_on_kong",),
    # suits (All Green and All Blue add to the flush)
    "one_suit": ("mixed_one_suit", "one_voided_suit"),
    # terminals
    "pure_terminals": ("mixed_terminals",),
    "pure_less_terminals": ("mixed_less_terminals",),
    # numbers: one of Small / Medium / Big (R4: Small, then Big, before Medium, so No Terminals can add)
    "two_numbers": ("three_numbers",),
    "small_tiles": ("medium_tiles", "big_tiles"),
    "big_tiles": ("medium_tiles",),
    "medium_tiles": ("no_terminals",),
    # honours (Value Honor still adds per pung)
    "big_four_winds": ("small_four_winds", "big_three_winds", "small_three_winds"),
    "small_four_winds": ("big_three_winds", "small_three_winds"),
    "big_three_winds": ("small_three_winds",),
    "big_three_dragons": ("small_three_dragons",),
    # sequences
    "four_identical_sequences": ("three_identical_sequences", "double_two_identical_sequences",
                                 "two_identical_sequences"),
    "three_identical_sequences": ("two_identical_sequences",),
    "double_two_identical_sequences": ("two_identical_sequences",),
    "four_ladies": ("pure_shifted_triplets",),
    # others
    "double_two_terminal_triplets": ("two_terminal_triplets",),
    "four_concealed_triplets": ("three_concealed_triplets",),
    "big_seven_pairs": ("seven_pairs",),
    "seven_honour_pairs": ("seven_pairs",),
    "thirteen_orphans": ("seven_stars", "thirteen_not_connected"),
    "seven_stars": ("thirteen_not_connected",),
}


# ---------------------------------------------------------------------------------------------------------------
# Winning shapes


def _not_connected(counts: tuple[int, ...]) -> bool:
    """14 different tiles and no two tiles of one suit with consecutive numbers (RULES.md)."""
    if sum(counts) != 14 or max(counts) != 1:
        return False
    return not any(counts[i] and counts[i + 1] for s in range(3) for i in range(9 * s, 9 * s + 8))


def hk_arrangements(counts: tuple[int, ...], n_melds: int) -> tuple[Arrangement, ...]:
    """The readings of the concealed part that are winning shapes under HK: the engine's standard, seven-pairs
    and thirteen-orphans readings, plus the not-connected shape (its tiles listed as singles).

    Not memoised itself: `arrangements` is (as flat tuples the garbage collector stops tracking); a cache of
    `Arrangement` objects here held tens of thousands of tracked tuples, which made every full collection
    walk them (7 ms pauses in the HK benchmark), to save a few microseconds a hand."""
    out = tuple(a for a in arrangements(counts, n_melds) if a.form in HK_FORMS)
    if n_melds == 0 and _not_connected(counts):
        out += (Arrangement(NOT_CONNECTED, singles=tuple(i for i in range(N_KINDS) if counts[i])),)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Facts shared by the predicates


def _tile_facts(info) -> dict[str, Any]:
    tiles = info.tiles
    numbered = [i for i in tiles if i < FIRST_HONOR]
    ranks = frozenset(i % 9 + 1 for i in numbered)
    return {
        "n_suits": bin(info.suits).count("1"),
        "ranks": ranks,
        "numbered_only": not info.has_honor,
        "has_terminal": bool(tiles & TERMINALS),
    }


def _prepare(v: View) -> None:
    info = v.info
    if "hk" not in info.cache:
        info.cache["hk"] = _tile_facts(info)


def _facts(v: View) -> dict[str, Any]:
    return v.info.cache["hk"]


def _std(predicate):
    """Regular-pattern items (3.1.x) score only in the standard shape (R1)."""
    def wrapped(v: View):
        return predicate(v) if v.form == STANDARD else ()
    wrapped.__name__ = predicate.__name__
    return wrapped


def _numbered_pungs(v: View) -> list[int]:
    return [t for t in v.pungs if t < FIRST_HONOR]


def _chows_ev(chows) -> tuple[int, ...]:
    return tuple(x for t in chows for x in chow_tiles(t))


# ---------------------------------------------------------------------------------------------------------------
# 1.1 Win-related items (the win context; the photo cannot show it)


def _self_draw(v: View):
    return win_tile(v) if v.info.ctx.self_drawn else ()


def _concealed_hand(v: View):
    # Concealed kongs keep the hand concealed; a discard is melded (seed 000 preamble). Every shape (R2).
    return WHOLE if not v.info.open and not v.info.ctx.self_drawn else ()


def _fully_concealed_hand(v: View):
    return WHOLE if not v.info.open and v.info.ctx.self_drawn else ()


def _win_on_kong(v: View):
    ctx = v.info.ctx
    return win_tile(v) if ctx.kong_replacement or ctx.flower_replacement else ()


def _rob_a_kong(v: View):
    return win_tile(v) if v.info.ctx.robbing_kong else ()


def _kong_on_kong(v: View):
    return win_tile(v) if v.info.ctx.kong_on_kong else ()


def _final_draw(v: View):
    ctx = v.info.ctx
    return win_tile(v) if ctx.last_tile and ctx.self_drawn else ()


def _final_discard(v: View):
    ctx = v.info.ctx
    return win_tile(v) if ctx.last_tile and not ctx.self_drawn else ()


def _bless_of_heaven(v: View):
    ctx = v.info.ctx
    return WHOLE if ctx.first_tile and ctx.self_drawn and ctx.seat_wind == "E" else ()


def _bless_of_earth(v: View):
    ctx = v.info.ctx  # East cannot win on the first discard (refused by hand.check_context_fields)
    return WHOLE if ctx.first_tile and not ctx.self_drawn else ()


# ---------------------------------------------------------------------------------------------------------------
# 2.1 Common items: the tiles of the hand, every shape


def _no_terminals(v: View):
    return WHOLE if _facts(v)["numbered_only"] and not _facts(v)["has_terminal"] else ()


def _one_voided_suit(v: View):
    f = _facts(v)
    return WHOLE if f["numbered_only"] and f["n_suits"] == 2 else ()


def _mixed_one_suit(v: View):
    return WHOLE if v.info.has_honor and _facts(v)["n_suits"] == 1 else ()


def _one_suit(v: View):
    f = _facts(v)
    return WHOLE if f["numbered_only"] and f["n_suits"] == 1 else ()


def _ranks_within(lo: int, hi: int):
    """Numbered tiles only, every number in lo..hi (R3: honours are not numbered tiles)."""
    def predicate(v: View):
        f = _facts(v)
        return WHOLE if f["numbered_only"] and lo <= min(f["ranks"]) and max(f["ranks"]) <= hi else ()
    predicate.__name__ = f"_ranks_{lo}_{hi}"
    return predicate


def _mixed_terminals(v: View):
    # Terminals and honours only, both present (R5: all honours is All Honors, not this).
    info = v.info
    return WHOLE if info.tiles <= TERMINALS_AND_HONORS and info.has_honor and _facts(v)["has_terminal"] else ()


def _n_numbers(n: int):
    """Numbered tiles only, at most n different numbers (R3)."""
    def predicate(v: View):
        f = _facts(v)
        return WHOLE if f["numbered_only"] and len(f["ranks"]) <= n else ()
    return predicate


# ---------------------------------------------------------------------------------------------------------------
# 3.1 Regular patterns: four sets and a pair (melds included)


@_std
def _all_sequences(v: View):
    return WHOLE if len(v.chows) == 4 else ()


@_std
def _special_eyes(v: View):
    p = v.pair
    return ((p, p),) if p < FIRST_HONOR and p % 9 + 1 in (2, 5, 8) else ()


def _three_chows(v: View, test) -> tuple:
    """The first three chows (sorted) that pass `test(a, b, c)`; once per hand."""
    for trio in combinations(v.chows, 3):
        if test(*trio):
            return (_chows_ev(trio),)
    return ()


def _three_suits(*tiles: int) -> bool:
    return len({t // 9 for t in tiles}) == 3


@_std
def _mixed_straight(v: View):
    return _three_chows(v, lambda a, b, c: _three_suits(a, b, c) and sorted(t % 9 for t in (a, b, c)) == [0, 3, 6])


@_std
def _mixed_shifted_sequences(v: View):
    def test(a: int, b: int, c: int) -> bool:
        r = sorted(t % 9 for t in (a, b, c))
        return _three_suits(a, b, c) and r[1] == r[0] + 1 and r[2] == r[1] + 1
    return _three_chows(v, test)


def _four_in_one(v: View) -> dict[str, list]:
    """Tiles held four times outside a kong, by how the four are spread (once per tile, R6):
    a pung and a chow (small), the pair and two chows (medium), four chows (big)."""
    got = v.cache.get("four_in_one")
    if got is None:
        got = {"small": [], "medium": [], "big": []}
        info = v.info
        for t in info.tiles:
            if info.counts[t] == 4 and t not in info.kong_tiles:
                kind = "small" if t in v.pungs else "medium" if t == v.pair else "big"
                got[kind].append((t,) * 4)
        v.cache["four_in_one"] = got
    return got


def _four_in_one_of(kind: str):
    @_std
    def predicate(v: View):
        return tuple(_four_in_one(v)[kind])
    return predicate


def _less_terminals(allowed: frozenset):
    """Mixed / Pure Less Terminals: every set and the pair hold a tile of `allowed` (terminals, or terminals and
    honours); some tile is not one (there is a chow - else it is Mixed or Pure Terminals)."""
    @_std
    def predicate(v: View):
        if v.chows and all(any(x in allowed for x in g) for g in groups_with_pair(v)):
            return WHOLE
        return ()
    return predicate


@_std
def _pure_straight(v: View):
    return _three_chows(v, lambda a, b, c: a % 9 == 0 and b == a + 3 and c == a + 6)


@_std
def _pure_shifted_sequences(v: View):
    # one suit, each up one number (R7: a shift of two is not this item)
    return _three_chows(v, lambda a, b, c: a // 9 == c // 9 and b == a + 1 and c == a + 2)


@_std
def _mixed_triple_sequences(v: View):
    return _three_chows(v, lambda a, b, c: _three_suits(a, b, c) and a % 9 == b % 9 == c % 9)


@_std
def _all_triplets(v: View):
    return WHOLE if not v.chows else ()


def _three_pungs(v: View, test) -> tuple:
    for trio in combinations(_numbered_pungs(v), 3):
        if test(*trio):
            return (pungs_tiles(v, trio),)
    return ()


@_std
def _mixed_shifted_triplets(v: View):
    def test(a: int, b: int, c: int) -> bool:
        r = sorted(t % 9 for t in (a, b, c))
        return _three_suits(a, b, c) and r[1] == r[0] + 1 and r[2] == r[1] + 1
    return _three_pungs(v, test)


@_std
def _small_three_winds(v: View):
    w = wind_pungs(v)
    if len(w) >= 2 and FIRST_HONOR <= v.pair < FIRST_DRAGON:
        return ((*pungs_tiles(v, w[:2]), v.pair, v.pair),)
    return ()


_TYPE_OF = tuple(i // 9 if i < FIRST_HONOR else 3 if i < FIRST_DRAGON else 4 for i in range(N_KINDS))


@_std
def _all_types(v: View):
    types = [_TYPE_OF[g[0]] for g in groups_with_pair(v)]
    return WHOLE if len(set(types)) == 5 else ()


def _short_straight(a: int, b: int) -> bool:
    a, b = min(a, b), max(a, b)
    return a // 9 == b // 9 and b == a + 3


@_std
def _two_short_straights(v: View):
    # two short straights (two chows of one suit, 123+456 ...) with no chow shared (R8)
    ch = v.chows
    if len(ch) != 4:
        return ()
    for pairing in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        if all(_short_straight(ch[i], ch[j]) for i, j in pairing):
            return (_chows_ev([ch[i] for p in pairing for i in p]),)
    return ()


@_std
def _pure_shifted_triplets(v: View):
    return _three_pungs(v, lambda a, b, c: a // 9 == c // 9 and b == a + 1 and c == a + 2)


@_std
def _all_linked(v: View):
    # one number (any suits) in every set and in the pair (R9: one tile in all five would need six copies)
    if v.pair >= FIRST_HONOR:
        return ()
    rank = v.pair % 9
    for k, t, _, _ in v.groups:
        if t >= FIRST_HONOR or not (t % 9 <= rank <= t % 9 + 2 if k == CHOW else t % 9 == rank):
            return ()
    return WHOLE


@_std
def _small_three_dragons(v: View):
    d = dragon_pungs(v)
    if len(d) == 2 and v.pair >= FIRST_DRAGON:
        return ((*pungs_tiles(v, d), v.pair, v.pair),)
    return ()


@_std
def _big_three_winds(v: View):
    w = wind_pungs(v)
    return (pungs_tiles(v, w),) if len(w) >= 3 else ()


@_std
def _big_three_dragons(v: View):
    d = dragon_pungs(v)
    return (pungs_tiles(v, d),) if len(d) == 3 else ()


@_std
def _small_four_winds(v: View):
    w = wind_pungs(v)
    if len(w) == 3 and FIRST_HONOR <= v.pair < FIRST_DRAGON:
        return ((*pungs_tiles(v, w), v.pair, v.pair),)
    return ()


@_std
def _four_ladies(v: View):
    # pure shifted triplets t, t+1, t+2 and the chow t, t+1, t+2 of the same tiles
    for trio in combinations(_numbered_pungs(v), 3):
        a, b, c = trio
        if a // 9 == c // 9 and b == a + 1 and c == a + 2 and a in v.chows:
            return ((*pungs_tiles(v, trio), *chow_tiles(a)),)
    return ()


@_std
def _nine_gates(v: View):
    # 1112345678999 of one suit plus any tile of that suit, nothing declared (R10)
    info = v.info
    if info.n_melds:
        return ()
    c = info.counts
    for s in range(3):
        seg = c[9 * s:9 * s + 9]
        if sum(seg) == 14 and seg[0] >= 3 and seg[8] >= 3 and all(seg[1:8]):
            return WHOLE
    return ()


@_std
def _big_four_winds(v: View):
    w = wind_pungs(v)
    return (pungs_tiles(v, w),) if len(w) == 4 else ()


@_std
def _all_honors(v: View):
    return WHOLE if not v.info.suits else ()


@_std
def _double_triplets(v: View):
    # each match: every two pungs (or kongs) of one number in two suits (R11: three suits = three matches)
    p = _numbered_pungs(v)
    return tuple(pungs_tiles(v, (a, b)) for a, b in combinations(p, 2) if a % 9 == b % 9 and a // 9 != b // 9)


@_std
def _three_concealed_triplets(v: View):
    return (concealed_pung_tiles(v),) if v.concealed_pungs >= 3 else ()


@_std
def _four_concealed_triplets(v: View):
    return (concealed_pung_tiles(v),) if v.concealed_pungs == 4 else ()


def _kongs(n: int):
    """3.1.31 Kongs: 1, 2, 6, Limit for exactly 1, 2, 3, 4 kongs (melded or concealed)."""
    def predicate(v: View):
        info = v.info
        if info.n_kongs != n:
            return ()
        return (tuple(x for t in sorted(info.kong_tiles) for x in (t,) * 4),)
    return predicate


def _identical(n: int):
    """n identical sequences (the most repeated chow)."""
    @_std
    def predicate(v: View):
        for t, k in Counter(v.chows).items():
            if k >= n:
                return (_chows_ev([t] * n),)
        return ()
    return predicate


@_std
def _double_two_identical_sequences(v: View):
    pairs = [t for t, k in Counter(v.chows).items() for _ in range(k // 2)]
    return (_chows_ev(sorted(pairs * 2)),) if len(pairs) >= 2 else ()


def _terminal_triplet_pairs(v: View) -> list[int]:
    """Suits (0-2) holding both a pung/kong of 1 and one of 9 (R12)."""
    p = set(v.pungs)
    return [s for s in range(3) if 9 * s in p and 9 * s + 8 in p]


@_std
def _two_terminal_triplets(v: View):
    suits = _terminal_triplet_pairs(v)
    return (pungs_tiles(v, (9 * suits[0], 9 * suits[0] + 8)),) if suits else ()


@_std
def _double_two_terminal_triplets(v: View):
    suits = _terminal_triplet_pairs(v)
    return (pungs_tiles(v, [9 * s + r for s in suits for r in (0, 8)]),) if len(suits) >= 2 else ()


@_std
def _value_honor(v: View):
    # 1 per dragon pung, per seat-wind pung, per prevalent-wind pung (2 when both); other winds 0 (R13)
    ctx = v.info.ctx
    seat = FIRST_HONOR + WINDS.index(ctx.seat_wind)
    prevalent = FIRST_HONOR + WINDS.index(ctx.prevalent_wind)
    out = []
    for t in v.pungs:
        if t >= FIRST_DRAGON:
            out.append(pung_tiles(v, t))
        else:
            out.extend(pung_tiles(v, t) for w in (seat, prevalent) if t == w)
    return tuple(out)


# ---------------------------------------------------------------------------------------------------------------
# 3.2 Special patterns: the other shapes


def _big_seven_pairs(v: View):
    # seven pairs with two identical pairs (a four of a kind); once, however many (R14)
    if v.form != SEVEN_PAIRS:
        return ()
    quads = tuple(x for t in sorted(v.info.tiles) if v.info.counts[t] == 4 for x in (t,) * 4)
    return (quads,) if quads else ()


def _seven_honour_pairs(v: View):
    return WHOLE if v.form == SEVEN_PAIRS and not v.info.suits else ()


def _thirteen_not_connected(v: View):
    return WHOLE if v.form == NOT_CONNECTED else ()


def _seven_stars(v: View):
    return WHOLE if v.form == NOT_CONNECTED and v.info.tiles >= ALL_HONORS else ()


# ---------------------------------------------------------------------------------------------------------------
# The table, in seed order: (number, id, English name, Chinese name, value, predicate, seed text as fixed)

_ROWS: list[tuple] = [
    ("1.1.1", "self_draw", "Self Draw", "自摸", 2, _self_draw, "Wins on a self-drawn tile."),
    ("1.1.2", "concealed_hand", "Concealed Hand", "門前清", 1, _concealed_hand,
     "Wins with a concealed hand on a tile discarded by another player."),
    ("1.1.3", "fully_concealed_hand", "Fully Concealed Hand", "不求人", 3, _fully_concealed_hand,
     "Wins with a concealed hand on a self-drawn tile."),
    ("1.1.4", "win_on_kong", "Win on Kong", "槓上開花", 1, _win_on_kong,
     "Wins on a replacement tile after a kong or a flower."),
    ("1.1.5", "rob_a_kong", "Rob a Kong", "搶槓", 1, _rob_a_kong,
     "Wins on the tile another player adds to a melded pung to make a kong."),
    ("1.1.6", "kong_on_kong", "Kong on Kong", "槓上槓", 6, _kong_on_kong,
     "Wins on the replacement tile after two consecutive kongs."),
    ("1.1.7", "final_draw", "Final Draw", "海底撈月", 1, _final_draw,
     "Wins by self-draw on the last tile of the wall."),
    ("1.1.8", "final_discard", "Final Discard", "河底撈魚", 1, _final_discard,
     "Wins on the discard after the last tile of the wall is drawn."),
    ("1.1.9", "bless_of_heaven", "Bless of Heaven", "天糊", LIMIT, _bless_of_heaven,
     "East wins by self-draw on the first tile (the dealt hand)."),
    ("1.1.10", "bless_of_earth", "Bless of Earth", "地糊", LIMIT, _bless_of_earth, "Wins on the first discard."),
    ("2.1.1", "no_terminals", "No Terminals (All Simples)", "斷么", 1, _no_terminals, "Numbered tiles 2-8 only."),
    ("2.1.2", "one_voided_suit", "One Voided Suit", "缺一門", 1, _one_voided_suit, "Two suits, no honours."),
    ("2.1.3", "mixed_one_suit", "Mixed One Suit (Half Flush)", "混一色", 3, _mixed_one_suit,
     "One suit and honours."),
    ("2.1.4", "one_suit", "One Suit (Flush)", "清一色", 9, _one_suit, "One suit only."),
    ("2.1.5", "small_tiles", "Small Tiles", "小於六", 3, _ranks_within(1, 5), "Numbered tiles 1-5 only."),
    ("2.1.6", "medium_tiles", "Medium Tiles", "全中", 3, _ranks_within(3, 7), "Numbered tiles 3-7 only."),
    ("2.1.7", "big_tiles", "Big Tiles", "大於四", 3, _ranks_within(5, 9), "Numbered tiles 5-9 only."),
    ("2.1.8", "all_green", "All Green", "綠一色", 6, tiles_within(GREEN), "2 3 4 6 8 bamboo and green dragon only."),
    ("2.1.9", "all_blue", "All Blue", "藍一色", 12, tiles_within(BLUE), "8 dots, white dragon and winds only."),
    ("2.1.10", "mixed_terminals", "Mixed Terminals", "混么九", 9, _mixed_terminals,
     "Terminals and honours only (seed: '3.1.10')."),
    ("2.1.11", "pure_terminals", "Pure Terminals", "清么九", LIMIT, tiles_within(TERMINALS), "Terminals only."),
    ("2.1.12", "three_numbers", "Three Numbers", "三數", 6, _n_numbers(3), "Numbered tiles of three numbers."),
    ("2.1.13", "two_numbers", "Two Numbers", "二數", 12, _n_numbers(2), "Numbered tiles of two numbers."),
    ("3.1.1", "all_sequences", "All Sequences", "平糊", 1, _all_sequences, "Four chows and a pair."),
    ("3.1.2", "special_eyes", "Special Eyes", "二五八將", 1, _special_eyes, "The pair is of 2, 5 or 8."),
    ("3.1.3", "mixed_straight", "Mixed Straight", "花龍", 2, _mixed_straight,
     "Chows 123, 456, 789, one in each suit."),
    ("3.1.4", "mixed_shifted_sequences", "Mixed Shifted Sequences", "三色三步高", 2, _mixed_shifted_sequences,
     "Three chows in three suits, each up one number."),
    ("3.1.5", "small_four_in_one", "Small Four in One", "小四歸一", 1, _four_in_one_of("small"),
     "Four of one tile across a chow and a pung (per tile)."),
    ("3.1.6", "medium_four_in_one", "Medium Four in One", "中四歸一", 2, _four_in_one_of("medium"),
     "Four of one tile across two chows and the pair (per tile)."),
    ("3.1.7", "big_four_in_one", "Big Four in One", "大四歸一", 6, _four_in_one_of("big"),
     "Four of one tile across four chows (per tile)."),
    ("3.1.8", "mixed_less_terminals", "Mixed Less Terminals and Honors", "混全帶么", 2,
     _less_terminals(TERMINALS_AND_HONORS),
     "A terminal or honour in every set and the pair; not all terminals and honours."),
    ("3.1.9", "pure_less_terminals", "Pure Less Terminals", "純全帶么", 3, _less_terminals(TERMINALS),
     "A terminal in every set and the pair; not all terminals."),
    ("3.1.10", "pure_straight", "Pure Straight", "清龍", 3, _pure_straight, "Chows 123, 456, 789 of one suit."),
    ("3.1.11", "pure_shifted_sequences", "Pure Shifted Sequences", "一色三步高", 3, _pure_shifted_sequences,
     "Three chows of one suit, each up one number."),
    ("3.1.12", "mixed_triple_sequences", "Mixed Triple Sequences (Triple Similar Sequences)", "三色同順", 3,
     _mixed_triple_sequences, "Three chows of one number, one in each suit."),
    ("3.1.13", "all_triplets", "All Triplets", "對對糊", 3, _all_triplets, "Four pungs or kongs and a pair."),
    ("3.1.14", "mixed_shifted_triplets", "Mixed Shifted Triplets", "三色三節高", 3, _mixed_shifted_triplets,
     "Pungs or kongs in three suits, each up one number."),
    ("3.1.15", "small_three_winds", "Small Three Winds", "小三風", 3, _small_three_winds,
     "Two wind pungs and a wind pair."),
    ("3.1.16", "all_types", "All Types", "五門齊", 3, _all_types,
     "The four sets and the pair are of five types: characters, bamboo, dots, winds, dragons."),
    ("3.1.17", "two_short_straights", "Two Short Straights", "雙連六", 4, _two_short_straights,
     "Two short straights (two chows of one suit such as 123+456), no chow shared."),
    ("3.1.18", "pure_shifted_triplets", "Pure Shifted Triplets", "一色三節高", 4, _pure_shifted_triplets,
     "Three pungs of one suit, each up one number."),
    ("3.1.19", "all_linked", "All Linked", "全帶同數", 6, _all_linked,
     "Every set and the pair hold a tile of one same number."),
    ("3.1.20", "small_three_dragons", "Small Three Dragons", "小三元", 6, _small_three_dragons,
     "Two dragon pungs and a dragon pair."),
    ("3.1.21", "big_three_winds", "Big Three Winds", "大三風", 6, _big_three_winds, "Three wind pungs."),
    ("3.1.22", "big_three_dragons", "Big Three Dragons", "大三元", 9, _big_three_dragons, "Three dragon pungs."),
    ("3.1.23", "small_four_winds", "Small Four Winds", "小四喜", 12, _small_four_winds,
     "Three wind pungs and a wind pair."),
    ("3.1.24", "four_ladies", "Four Ladies", "四姊妹", 12, _four_ladies,
     "Pure shifted triplets and the chow of the same three tiles."),
    ("3.1.25", "nine_gates", "Nine Gates", "九子連環", LIMIT, _nine_gates,
     "1112345678999 of one suit plus any tile of that suit, concealed."),
    ("3.1.26", "big_four_winds", "Big Four Winds", "大四喜", LIMIT, _big_four_winds, "Four wind pungs."),
    ("3.1.27", "all_honors", "All Honors", "字一色", LIMIT, _all_honors, "Honours only (four sets and a pair)."),
    ("3.1.28", "double_triplets", "Double Triplets", "雙同刻", 1, _double_triplets,
     "Two pungs of one number in two suits (each match)."),
    ("3.1.29", "three_concealed_triplets", "Three Concealed Triplets", "三暗刻", 1, _three_concealed_triplets,
     "Three concealed pungs or kongs."),
    ("3.1.30", "four_concealed_triplets", "Four Concealed Triplets", "四暗刻", LIMIT, _four_concealed_triplets,
     "Four concealed pungs or kongs."),
    ("3.1.31", "one_kong", "Kongs (1 kong)", "一槓", 1, _kongs(1), "One kong."),
    ("3.1.31", "two_kongs", "Kongs (2 kongs)", "兩槓", 2, _kongs(2), "Two kongs."),
    ("3.1.31", "three_kongs", "Kongs (3 kongs)", "三槓", 6, _kongs(3), "Three kongs."),
    ("3.1.31", "four_kongs", "Kongs (4 kongs)", "十八羅漢", LIMIT, _kongs(4), "Four kongs."),
    ("3.1.32", "two_identical_sequences", "Two Identical Sequences", "一般高", 2, _identical(2),
     "Two identical chows."),
    ("3.1.33", "three_identical_sequences", "Three Identical Sequences", "一色三同順", 6, _identical(3),
     "Three identical chows."),
    ("3.1.34", "four_identical_sequences", "Four Identical Sequences", "一色四同順", LIMIT, _identical(4),
     "Four identical chows (seed: second '3.1.32')."),
    ("3.1.35", "double_two_identical_sequences", "Double Two Identical Sequences", "兩般高", 4,
     _double_two_identical_sequences, "Two pairs of identical chows (seed: second '3.1.33')."),
    ("3.1.36", "two_terminal_triplets", "Two Terminal Triplets", "老少刻", 1, _two_terminal_triplets,
     "Pungs of 1 and 9 of one suit (seed: '3.1.34')."),
    ("3.1.37", "double_two_terminal_triplets", "Double Two Terminal Triplets", "雙老少刻", 6,
     _double_two_terminal_triplets, "Pungs of 1 and 9 in two suits (seed: '3.1.35')."),
    ("3.1.38", "value_honor", "Value Honor", "番子", 1, _value_honor,
     "Each dragon pung, seat-wind pung and prevalent-wind pung; 2 for a wind that is both (seed: '3.1.36')."),
    ("3.2.1", "seven_pairs", "Seven Pairs", "七對子", 6, seven_pairs, "Seven pairs."),
    ("3.2.2", "big_seven_pairs", "Big Seven Pairs", "豪華七對", 9, _big_seven_pairs,
     "Seven pairs, two of them identical (a four of a kind)."),
    ("3.2.3", "seven_honour_pairs", "Seven Honour Pairs", "字七對", LIMIT, _seven_honour_pairs,
     "Seven pairs of honours (seed: 'Seven Stars', Limit)."),
    ("3.2.4", "thirteen_not_connected", "Thirteen Not Connected", "十三不靠", 5, _thirteen_not_connected,
     "14 different tiles, no two of one suit with consecutive numbers."),
    ("3.2.5", "seven_stars", "Seven Stars", "七星不靠", 6, _seven_stars,
     "Thirteen not connected with one of each honour."),
    ("3.2.6", "thirteen_orphans", "Thirteen Orphans", "十三么", LIMIT, thirteen_orphans,
     "One of each terminal and honour, one of them twice."),
]


def _table_order(rows: list[tuple], replaces: dict[str, tuple[str, ...]]) -> list[tuple]:
    """Seed order, except that an item comes after every item that replaces it (the engine applies
    replacements in table order). Stable: a house rule in REPLACES reorders only what it must."""
    replaced_by: dict[str, set[str]] = {}
    for a, bs in replaces.items():
        for b in bs:
            replaced_by.setdefault(b, set()).add(a)
    placed: set[str] = set()
    out: list[tuple] = []
    pending = list(rows)
    while pending:
        for k, row in enumerate(pending):
            if replaced_by.get(row[1], set()) <= placed:
                out.append(pending.pop(k))
                placed.add(row[1])
                break
        else:
            raise ValueError("REPLACES has a cycle")
    return out


def make_rule_set(replaces: dict[str, tuple[str, ...]] = REPLACES, name: str = "hk",
                  title: str = f"Hong Kong (seed 000 list, limit {LIMIT})") -> RuleSet:
    """The HK rule set for a replacement table: `make_rule_set({**REPLACES, "medium_tiles": ()}, "hk-house")` is a
    house rule (register it with `register_rule_set`)."""
    fans = tuple(
        Fan(id=fid, name=en, name_zh=zh, value=val, predicate=pred, implies=tuple(replaces.get(fid, ())),
            number=num, description=text)
        for num, fid, en, zh, val, pred, text in _table_order(_ROWS, replaces)
    )
    return RuleSet(name=name, title=title, fans=fans, minimum=None, cap=LIMIT, prepare=_prepare,
                   arrangements=hk_arrangements,
                   shapes="4 sets and a pair (or seven pairs, thirteen orphans, thirteen not connected)",
                   dropped_heading="not counted (replaced by a tighter item of its family)",
                   dropped_by="replaced by", drops="replaces")


HK = register_rule_set(make_rule_set())
FANS: tuple[Fan, ...] = HK.fans
