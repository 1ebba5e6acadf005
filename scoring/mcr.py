"""MCR - Chinese Official rules (Green Book fans, seed 001 values and names, seed 003 kong chart).

One row per fan in `FANS`. Rulings (RULES.md and scoring/RULINGS.md):
- the 81 Green Book fans plus Mixed Kongs (明暗杠, 6) from the seed-003 kong chart;
- non-repeat through each row's `implies`; exclusions that only concern a fan's own sets (Pure Straight and its
  Short Straight, Big Three Dragons and the Pung of Terminals of its own pungs ...) are enforced by the
  predicates and listed in `within`;
- the set-combination fans follow non-separation, non-identical and account-once (`_combine`), and record the
  pair fans a combination fan's own sets would make as excluded by it (`view.cache["excluded_within"]`);
- kongs and concealed pungs follow the seed-003 chart (`_seed_kong_series`), or under the variant "mil" the Green
  Book / MIL values and series of the reference engines (`_mil_kong_series`); `MCRVariant` is that option.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import combinations
from typing import Any

from .decomposition import CHOW, HONORS_KNITTED, KNITTED_STRAIGHT, SEVEN_PAIRS, STANDARD
from .disjoint_sets import DisjointSets
from .engine import Fan, RuleSet, View, register_rule_set
from .errors import FanscanError
from .hand import WinContext
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
from .tiles import (
    FIRST_DRAGON,
    FIRST_HONOR,
    GREEN,
    INDEX,
    N_KINDS,
    REVERSIBLE,
    TERMINALS,
    TERMINALS_AND_HONORS,
    WINDS,
)

BASIC_FORMS = (STANDARD, KNITTED_STRAIGHT)


# ---------------------------------------------------------------------------------------------------------------
# Set-combination fans: non-separation, non-identical and account-once (score_principles.xml, seed 001)

_CHOW_PAIR_ORDER = ("pure_double_chow", "mixed_double_chow", "short_straight", "two_terminal_chows")


def _chow2(a: int, b: int) -> str | None:
    if a > b:
        a, b = b, a
    if a // 9 == b // 9:
        d = b - a
        if d == 0:
            return "pure_double_chow"
        if d == 3:
            return "short_straight"
        if d == 6 and a % 9 == 0:
            return "two_terminal_chows"
        return None
    return "mixed_double_chow" if a % 9 == b % 9 else None


def _chow3(a: int, b: int, c: int) -> str | None:
    a, b, c = sorted((a, b, c))
    sa, sb, sc = a // 9, b // 9, c // 9
    if sa == sb == sc:
        if a == b == c:
            return "pure_triple_chow"
        if (b - a == c - b == 1) or (b - a == c - b == 2):
            return "pure_shifted_chows"
        if a % 9 == 0 and b - a == 3 and c - b == 3:
            return "pure_straight"
        return None
    if len({sa, sb, sc}) != 3:
        return None
    ranks = sorted((a % 9, b % 9, c % 9))
    if ranks[0] == ranks[2]:
        return "mixed_triple_chow"
    if ranks == [0, 3, 6]:
        return "mixed_straight"
    if ranks[1] - ranks[0] == 1 and ranks[2] - ranks[1] == 1:
        return "mixed_shifted_chows"
    return None


def _chow4(ch: list[int]) -> str | None:
    a, b, c, d = ch
    if not a // 9 == b // 9 == c // 9 == d // 9:
        return None
    if a == b == c == d:
        return "quadruple_chow"
    if (b - a == c - b == d - c == 1) or (b - a == c - b == d - c == 2):
        return "four_shifted_chows"
    return None


def _pung2(a: int, b: int) -> str | None:
    if a < FIRST_HONOR and b < FIRST_HONOR and a // 9 != b // 9 and a % 9 == b % 9:
        return "double_pung"
    return None


def _pung3(a: int, b: int, c: int) -> str | None:
    a, b, c = sorted((a, b, c))
    if c >= FIRST_HONOR:
        return None
    if a // 9 == b // 9 == c // 9:
        return "pure_shifted_pungs" if b - a == 1 and c - b == 1 else None
    if len({a // 9, b // 9, c // 9}) != 3:
        return None
    ranks = sorted((a % 9, b % 9, c % 9))
    if ranks[0] == ranks[2]:
        return "triple_pung"
    if ranks[1] - ranks[0] == 1 and ranks[2] - ranks[1] == 1:
        return "mixed_shifted_pungs"
    return None


def _pung4(p: list[int]) -> str | None:
    a, b, c, d = p
    if d < FIRST_HONOR and a // 9 == d // 9 and b - a == c - b == d - c == 1:
        return "four_pure_shifted_pungs"
    return None


def _none(*_sets: int) -> None:
    return None


def _within(idx, items: list[int], two, three, tiles, order: tuple[str, ...], by: str, record: list | None) -> None:
    """Record the fans a combination fan's own sets would have scored without it - excluded by it (non-separation):
    for a three-set fan its pairs as a forest (Pure Triple Chow: Pure Double Chow x2, not x3), for a four-set fan
    the best three-set fan and pair (Quadruple Chow: Pure Triple Chow and Pure Double Chow)."""
    if record is None:
        return
    own = [items[i] for i in idx]
    for fan_id, evidence in _combine(own, two, three if len(own) == 4 else _none, _none, tiles, order).items():
        record.extend((fan_id, tiles_, by) for tiles_ in evidence)


def _combine(items: list[int], two, three, four, tiles, order: tuple[str, ...],
             record: list | None = None) -> dict[str, list]:
    """Fans formed by combining sets (chows or pungs): one 4-set fan, or the best 3-set fan plus one pair fan of
    the spare set with one of the three (account-once), or else pair fans as a forest - each new pair must bring
    in a set not yet used (account-once), so the pairs never close a cycle. `record` (a list) receives
    (fan id, tiles, excluding fan id) for the pair fans a combination fan's own sets would make."""
    out: dict[str, list] = {}
    n = len(items)
    if n < 2:
        return out
    if n == 4:
        f = four(items)
        if f:
            out[f] = [tuple(x for t in items for x in tiles(t))]
            _within(range(4), items, two, three, tiles, order, f, record)
            return out
    if n >= 3:
        best = None
        for trio in combinations(range(n), 3):
            f = three(*(items[i] for i in trio))
            if not f:
                continue
            extra = None
            for spare in (i for i in range(n) if i not in trio):
                for i in trio:
                    g = two(items[spare], items[i])
                    if g and (extra is None or order.index(g) < order.index(extra[0])):
                        extra = (g, spare, i)
            key = (-VALUES[f] - (VALUES[extra[0]] if extra else 0), trio)
            if best is None or key < best[0]:
                best = (key, f, trio, extra)
        if best:
            _, f, trio, extra = best
            out[f] = [tuple(x for i in trio for x in tiles(items[i]))]
            _within(trio, items, two, three, tiles, order, f, record)
            if extra:
                out[extra[0]] = [tiles(items[extra[1]]) + tiles(items[extra[2]])]
            return out
    edges = []
    for i, j in combinations(range(n), 2):
        g = two(items[i], items[j])
        if g:
            edges.append((order.index(g), i, j, g))
    edges.sort()
    groups = DisjointSets(n)
    for _, i, j, g in edges:
        if groups.union(i, j):
            out.setdefault(g, []).append(tiles(items[i]) + tiles(items[j]))
    return out


def _prepare(v: View, variant: MCRVariant) -> None:
    """Per-arrangement MCR facts the predicates share."""
    c = v.cache
    c["kong_series"] = _KONG_SERIES[variant.kong_series](v)
    if v.form in BASIC_FORMS:
        within: list = []
        c["excluded_within"] = within
        combos = _combine(v.chows, _chow2, _chow3, _chow4, chow_tiles, _CHOW_PAIR_ORDER, within)
        numbered = [t for t in v.pungs if t < FIRST_HONOR]
        kongs = v.info.kong_tiles
        combos.update(_combine(numbered, _pung2, _pung3, _pung4,
                               lambda t: (t,) * (4 if t in kongs else 3), ("double_pung",), within))
        c["combos"] = combos
    else:
        c["combos"] = {}
    info = v.info
    if "tiles" not in info.cache:
        info.cache["tiles"] = _tile_facts(info)


def _tile_facts(info) -> dict[str, Any]:
    tiles = info.tiles
    ranks = {i % 9 for i in tiles if i < FIRST_HONOR}
    suits = info.suits
    n_suits = bin(suits).count("1")
    return {
        "n_suits": n_suits,
        "ranks": ranks,
        "min_rank": min(ranks) if ranks else -1,
        "max_rank": max(ranks) if ranks else -1,
        "tile_hog": tuple((i,) * 4 for i in range(N_KINDS) if info.counts[i] == 4 and i not in info.kong_tiles),
        "honors_only": not suits,
        "terminals_only": tiles <= TERMINALS,
        "t_and_h_only": tiles <= TERMINALS_AND_HONORS,
        "no_t_and_h": not (tiles & TERMINALS_AND_HONORS),
        "winds": any(info.counts[FIRST_HONOR:FIRST_DRAGON]),
        "dragons": any(info.counts[FIRST_DRAGON:N_KINDS]),
    }


def _combo(fan_id: str):
    def predicate(v: View):
        return tuple(v.cache["combos"].get(fan_id, ()))
    return predicate


# ---------------------------------------------------------------------------------------------------------------
# Honour pungs


def _big_four_winds(v: View):
    w = wind_pungs(v)
    return (pungs_tiles(v, w),) if len(w) == 4 else ()


def _little_four_winds(v: View):
    w = wind_pungs(v)
    if len(w) == 3 and v.pair is not None and FIRST_HONOR <= v.pair < FIRST_DRAGON:
        return ((*pungs_tiles(v, w), v.pair, v.pair),)
    return ()


def _big_three_winds(v: View):
    w = wind_pungs(v)
    return (pungs_tiles(v, w[:3]),) if len(w) >= 3 else ()


def _big_three_dragons(v: View):
    d = dragon_pungs(v)
    return (pungs_tiles(v, d),) if len(d) == 3 else ()


def _little_three_dragons(v: View):
    d = dragon_pungs(v)
    if len(d) == 2 and v.pair is not None and v.pair >= FIRST_DRAGON:
        return ((*pungs_tiles(v, d), v.pair, v.pair),)
    return ()


def _two_dragon_pungs(v: View):
    d = dragon_pungs(v)
    return (pungs_tiles(v, d[:2]),) if len(d) >= 2 else ()


def _dragon_pung(v: View):
    return tuple(pung_tiles(v, t) for t in dragon_pungs(v))


def _wind_of(name: str):
    def predicate(v: View):
        w = FIRST_HONOR + WINDS.index(getattr(v.info.ctx, name))
        return (pung_tiles(v, w),) if w in v.pungs else ()
    return predicate


def _pung_of_terminals(v: View):
    """Pungs of terminals or honours that no honour fan has used: dragon pungs always score a dragon fan, wind
    pungs score Prevalent/Seat Wind or, three or more, a wind family fan (their own pungs only, RULES.md). The
    honour pungs left out are recorded as excluded by the honour fan that takes them (the first of the candidates
    that scores), and Nine Gates takes one pung of terminals (score_definition.xml: 幺九刻×1)."""
    ctx = v.info.ctx
    winds = wind_pungs(v)
    prevalent = FIRST_HONOR + WINDS.index(ctx.prevalent_wind)
    seat = FIRST_HONOR + WINDS.index(ctx.seat_wind)
    record = v.cache.setdefault("excluded_within", [])
    out = []
    for t in v.pungs:
        if t in TERMINALS:
            out.append(pung_tiles(v, t))
        elif t >= FIRST_DRAGON:
            record.append(("pung_of_terminals", pung_tiles(v, t), _DRAGON_FANS))
        elif len(winds) >= 3:
            record.append(("pung_of_terminals", pung_tiles(v, t), _WIND_FAMILY_FANS))
        elif t in (prevalent, seat):
            record.append(("pung_of_terminals", pung_tiles(v, t),
                           tuple(f for f, w in (("prevalent_wind", prevalent), ("seat_wind", seat)) if w == t)))
        elif t >= FIRST_HONOR:
            out.append(pung_tiles(v, t))
    if out and _nine_gates(v):
        record.append(("pung_of_terminals", out[0], "nine_gates"))
        out = out[1:]
    return tuple(out)


# The honour fans that take an honour pung from Pung of Terminals, tightest first.
_DRAGON_FANS = ("big_three_dragons", "little_three_dragons", "two_dragon_pungs", "dragon_pung")
_WIND_FAMILY_FANS = ("big_four_winds", "little_four_winds", "big_three_winds")


# ---------------------------------------------------------------------------------------------------------------
# Kongs and concealed pungs: the seed-003 chart (RULES.md), or the Green Book / MIL series (variant "mil")


def _kong_fan(v: View) -> str | None:
    """The kong fan of one or two kongs (both variants; only the values differ)."""
    mk, ck = v.info.melded_kongs, v.info.concealed_kongs
    k = mk + ck
    if k == 1:
        return "melded_kong" if mk else "concealed_kong"
    if k == 2:
        return ("two_melded_kongs", "mixed_kongs", "two_concealed_kongs")[ck]
    return None


def _kong_tiles(v: View, concealed: bool | None = None) -> tuple[int, ...]:
    return tuple(x for kind, t, open_ in v.info.melds if kind == 2 and (concealed is None or open_ != concealed)
                 for x in (t,) * 4)


_CONCEALED_SERIES = {2: "two_concealed_pungs", 3: "three_concealed_pungs", 4: "four_concealed_pungs"}


def _seed_kong_series(v: View) -> dict[str, tuple]:
    """Seed 003: K = 1 or 2 scores its kong fan; K = 3 or 4 scores Three / Four Kongs plus Concealed Kong (ck = 1)
    or Two Concealed Kongs (ck = 2); the concealed-pung series on T unless the concealed pungs are exactly ck <= 2
    concealed kongs already scored as such."""
    info = v.info
    out: dict[str, tuple] = {}
    k, ck = info.n_kongs, info.concealed_kongs
    if k:
        fan = _kong_fan(v)
        if fan:
            out[fan] = (_kong_tiles(v),)
        else:
            out["three_kongs" if k == 3 else "four_kongs"] = (_kong_tiles(v),)
            if ck in (1, 2):
                out[("concealed_kong", "two_concealed_kongs")[ck - 1]] = (_kong_tiles(v, concealed=True),)
    t = v.concealed_pungs
    if t in _CONCEALED_SERIES and not (t == ck and ck <= 2):
        out[_CONCEALED_SERIES[t]] = (concealed_pung_tiles(v),)
    return out


def _mil_kong_series(v: View) -> dict[str, tuple]:
    """Green Book / MIL (the reference engines): K = 1 or 2 scores its kong fan, K = 3 or 4 Three / Four Kongs
    and nothing more for the concealed ones; a concealed kong counts as a concealed pung in the series, except
    that Two Concealed Kongs already covers two concealed pungs that are exactly those kongs."""
    info = v.info
    out: dict[str, tuple] = {}
    k, ck = info.n_kongs, info.concealed_kongs
    if k:
        fan = _kong_fan(v) or ("three_kongs" if k == 3 else "four_kongs")
        out[fan] = (_kong_tiles(v),)
    t = v.concealed_pungs
    if t in _CONCEALED_SERIES and not (k == 2 and ck == 2 and t == 2):
        out[_CONCEALED_SERIES[t]] = (concealed_pung_tiles(v),)
    return out


def _from_kong_series(fan_id: str):
    def predicate(v: View):
        return v.cache["kong_series"].get(fan_id, ())
    return predicate


# ---------------------------------------------------------------------------------------------------------------
# Whole-hand shapes


def _all_pungs(v: View):
    return WHOLE if v.form == STANDARD and not v.chows else ()


def _all_chows(v: View):
    if v.form == STANDARD and len(v.chows) == 4 and v.pair < FIRST_HONOR:
        return WHOLE
    if v.form == KNITTED_STRAIGHT and len(v.chows) == 1 and v.pair < FIRST_HONOR:
        return WHOLE
    return ()


def _group_all(v: View, test) -> bool:
    """Every set and the pair satisfy `test(tiles)` (standard form only)."""
    return v.form == STANDARD and all(test(g) for g in groups_with_pair(v))


def _outside_hand(v: View):
    return WHOLE if _group_all(v, lambda ts: any(x in TERMINALS_AND_HONORS for x in ts)) else ()


def _all_fives(v: View):
    return WHOLE if _group_all(v, lambda ts: any(x < FIRST_HONOR and x % 9 == 4 for x in ts)) else ()


def _all_even_pungs(v: View):
    if v.form != STANDARD or v.chows:
        return ()
    # rank 2, 4, 6, 8 is index % 9 == 1, 3, 5, 7
    return WHOLE if all(t < FIRST_HONOR and t % 9 % 2 == 1 for t in [*v.pungs, v.pair]) else ()


def _pure_terminal_chows(v: View):
    ch = v.chows
    if v.form != STANDARD or len(ch) != 4:
        return ()
    s = ch[0] // 9 * 9
    return WHOLE if ch == [s, s, s + 6, s + 6] and v.pair == s + 4 else ()


def _three_suited_terminal_chows(v: View):
    ch = v.chows
    if v.form != STANDARD or len(ch) != 4 or v.pair is None or v.pair >= FIRST_HONOR or v.pair % 9 != 4:
        return ()
    suits = {t // 9 for t in ch}
    if len(suits) != 2 or v.pair // 9 in suits:
        return ()
    want = sorted(s * 9 + r for s in suits for r in (0, 6))
    return WHOLE if ch == want else ()


def _nine_gates(v: View):
    info = v.info
    if info.n_melds or v.form != STANDARD:
        return ()
    hit = info.cache.get("nine_gates")
    if hit is None:
        c = info.standing_counts
        hit = False
        for s in range(3):
            if c[9 * s:9 * s + 9] == (3, 1, 1, 1, 1, 1, 1, 1, 3):
                hit = True
        info.cache["nine_gates"] = hit
    return WHOLE if hit else ()


def _seven_shifted_pairs(v: View):
    if v.form != SEVEN_PAIRS:
        return ()
    tiles = sorted(v.info.tiles)
    if len(tiles) == 7 and tiles[-1] < FIRST_HONOR and tiles[0] // 9 == tiles[-1] // 9 and tiles[-1] - tiles[0] == 6:
        return WHOLE
    return ()


def _greater_honors_knitted(v: View):
    return WHOLE if v.form == HONORS_KNITTED and len(v.info.tiles & set(range(FIRST_HONOR, N_KINDS))) == 7 else ()


def _lesser_honors_knitted(v: View):
    return WHOLE if v.form == HONORS_KNITTED else ()


def _knitted_straight(v: View):
    if v.form == KNITTED_STRAIGHT:
        return (v.knitted,)
    if v.form == HONORS_KNITTED and all(i in v.info.tiles for i in v.knitted):
        return (v.knitted,)
    return ()


# ---------------------------------------------------------------------------------------------------------------
# Tile-content fans (the same for every arrangement)


def _facts(v: View) -> dict[str, Any]:
    return v.info.cache["tiles"]


def _ranks_within(lo: int, hi: int):
    lo, hi = lo - 1, hi - 1  # ranks are index % 9

    def predicate(v: View):
        f = v.info.cache["tiles"]
        if f["min_rank"] >= lo and 0 <= f["max_rank"] <= hi and not v.info.has_honor:
            return WHOLE
        return ()
    return predicate


def _full_flush(v: View):
    return WHOLE if not v.info.has_honor and _facts(v)["n_suits"] == 1 else ()


def _half_flush(v: View):
    return WHOLE if v.info.has_honor and _facts(v)["n_suits"] == 1 else ()


def _one_voided_suit(v: View):
    return WHOLE if _facts(v)["n_suits"] == 2 else ()


def _no_honors(v: View):
    return WHOLE if not v.info.has_honor else ()


def _all_honors(v: View):
    return WHOLE if _facts(v)["honors_only"] else ()


def _all_terminals(v: View):
    return WHOLE if _facts(v)["terminals_only"] else ()


def _all_terminals_and_honors(v: View):
    return WHOLE if _facts(v)["t_and_h_only"] else ()


def _all_simples(v: View):
    return WHOLE if _facts(v)["no_t_and_h"] else ()


def _all_types(v: View):
    f = _facts(v)
    return WHOLE if f["n_suits"] == 3 and f["winds"] and f["dragons"] else ()


def _tile_hog(v: View):
    return v.info.cache["tiles"]["tile_hog"]


# ---------------------------------------------------------------------------------------------------------------
# Win context and waits


def _ctx(v: View) -> WinContext:
    return v.info.ctx


def _self_drawn(v: View):
    return win_tile(v) if _ctx(v).self_drawn else ()


def _last_tile_draw(v: View):
    return win_tile(v) if _ctx(v).self_drawn and _ctx(v).last_tile else ()


def _last_tile_claim(v: View):
    return win_tile(v) if not _ctx(v).self_drawn and _ctx(v).last_tile else ()


def _replacement(v: View):
    return win_tile(v) if _ctx(v).kong_replacement else ()


def _robbing(v: View):
    return win_tile(v) if _ctx(v).robbing_kong else ()


def _last_of_kind(v: View):
    # Said by the user, or implied when the hand's own exposed melds show the other three copies (RULES.md).
    return win_tile(v) if _ctx(v).last_of_kind or v.info.win_in_exposed == 3 else ()


# Concealed Hand and Fully Concealed Hand are satisfied by every hand without a claimed meld; the hands that are
# concealed by definition (Seven Pairs, Thirteen Orphans, the honours-and-knitted hands, Four Concealed Pungs,
# Nine Gates) imply them, so they are listed as not counted - and, dropped, imply nothing (Self Drawn stays).
def _concealed_hand(v: View):
    return WHOLE if not v.info.open and not _ctx(v).self_drawn else ()


def _fully_concealed(v: View):
    return WHOLE if not v.info.open and _ctx(v).self_drawn else ()


def _melded_hand(v: View):
    info = v.info
    if info.n_melds == 4 and info.concealed_kongs == 0 and not _ctx(v).self_drawn:
        return WHOLE
    return ()


def _wait_kind(v: View) -> str | None:
    """Edge, closed or pair wait: only when the hand waited on this one tile alone (formal waits, RULES.md); at
    most one of the three, edge before closed before pair (score_definition.xml)."""
    if v.form == SEVEN_PAIRS:  # the winning tile pairs a single tile: a pair wait (Seven Pairs implies it)
        return "pair_wait" if len(v.info.waits) == 1 else None
    if v.form not in BASIC_FORMS:
        return None
    key = "wait"
    if key in v.cache:
        return v.cache[key]
    win = v.info.win
    kind = None
    edge = closed = single = False
    for k, t in v.concealed_sets:
        if k == CHOW and t <= win <= t + 2:
            if win == t + 1:
                closed = True
            elif (win == t + 2 and t % 9 == 0) or (win == t and t % 9 == 6):
                edge = True
    if v.pair == win:
        single = True
    if (edge or closed or single) and len(v.info.waits) == 1:
        kind = "edge_wait" if edge else "closed_wait" if closed else "pair_wait"
    v.cache[key] = kind
    return kind


def _wait(fan_id: str):
    def predicate(v: View):
        return win_tile(v) if _wait_kind(v) == fan_id else ()
    return predicate


def _flowers(v: View):
    ctx = _ctx(v)
    if ctx.flowers:
        return tuple((INDEX[f],) for f in ctx.flowers)
    return tuple(() for _ in range(ctx.n_flowers))


def _never(v: View):
    return ()


# ---------------------------------------------------------------------------------------------------------------
# The table. Values and English names: seed 001 (Chicken Hand: seed 004 #43); Mixed Kongs: seed 003.
# (id, English, Chinese, value, code (GB-Mahjong FAN_ name), predicate, implies, within)

_ROWS: list[tuple] = [
    # 88
    ("big_four_winds", "Big Four Winds", "大四喜", 88, "DASIXI", _big_four_winds,
     ("big_three_winds", "all_pungs", "prevalent_wind", "seat_wind", "little_four_winds"), ()),
    ("big_three_dragons", "Big Three Dragons", "大三元", 88, "DASANYUAN", _big_three_dragons,
     ("two_dragon_pungs", "dragon_pung"), ()),
    ("all_green", "All Green", "绿一色", 88, "LVYISE", tiles_within(GREEN), ("half_flush",), ()),
    ("nine_gates", "Nine Gates", "九莲宝灯", 88, "JIULIANBAODENG", _nine_gates,
     ("full_flush", "fully_concealed_hand", "concealed_hand", "no_honors"), ("pung_of_terminals",)),
    ("four_kongs", "Four Kongs", "四杠", 88, "SIGANG", _from_kong_series("four_kongs"), ("all_pungs", "pair_wait"), ()),
    ("seven_shifted_pairs", "Seven Shifted Pairs", "连七对", 88, "LIANQIDUI", _seven_shifted_pairs,
     ("full_flush", "seven_pairs", "fully_concealed_hand", "concealed_hand", "no_honors", "pair_wait"), ()),
    ("thirteen_orphans", "Thirteen Orphans", "十三幺", 88, "SHISANYAO", thirteen_orphans,
     ("all_terminals_and_honors", "all_types", "fully_concealed_hand", "concealed_hand", "pair_wait"), ()),
    # 64
    ("all_terminals", "All Terminals", "清幺九", 64, "QINGYAOJIU", _all_terminals,
     ("all_terminals_and_honors", "all_pungs", "outside_hand", "double_pung", "pung_of_terminals", "no_honors"),
     ()),
    ("little_four_winds", "Little Four Winds", "小四喜", 64, "XIAOSIXI", _little_four_winds,
     ("big_three_winds",), ("pung_of_terminals",)),
    ("little_three_dragons", "Little Three Dragons", "小三元", 64, "XIAOSANYUAN", _little_three_dragons,
     ("two_dragon_pungs", "dragon_pung"), ()),
    ("all_honors", "All Honors", "字一色", 64, "ZIYISE", _all_honors,
     ("all_terminals_and_honors", "all_pungs", "outside_hand", "pung_of_terminals"), ()),
    ("four_concealed_pungs", "Four Concealed Pungs", "四暗刻", 64, "SIANKE", _from_kong_series("four_concealed_pungs"),
     ("all_pungs", "fully_concealed_hand", "concealed_hand"), ()),
    ("pure_terminal_chows", "Pure Terminal Chows", "一色双龙会", 64, "YISESHUANGLONGHUI", _pure_terminal_chows,
     ("seven_pairs", "full_flush", "all_chows", "pure_double_chow", "two_terminal_chows", "no_honors"), ()),
    # 48
    ("quadruple_chow", "Quadruple Chow", "一色四同顺", 48, "YISESITONGSHUN", _combo("quadruple_chow"),
     ("pure_shifted_pungs", "tile_hog", "pure_double_chow", "pure_triple_chow", "seven_pairs"), ()),
    ("four_pure_shifted_pungs", "Four Pure Shifted Pungs", "一色四节高", 48, "YISESIJIEGAO",
     _combo("four_pure_shifted_pungs"), ("pure_triple_chow", "pure_shifted_pungs", "all_pungs"), ()),
    # 32
    ("four_shifted_chows", "Four Shifted Chows", "一色四步高", 32, "YISESIBUGAO", _combo("four_shifted_chows"),
     ("pure_shifted_chows", "short_straight", "two_terminal_chows"), ()),
    ("three_kongs", "Three Kongs", "三杠", 32, "SANGANG", _from_kong_series("three_kongs"), (), ()),
    ("all_terminals_and_honors", "All Terminals and Honors", "混幺九", 32, "HUNYAOJIU", _all_terminals_and_honors,
     ("all_pungs", "outside_hand", "pung_of_terminals"), ()),
    # 24
    ("seven_pairs", "Seven Pairs", "七对", 24, "QIDUI", seven_pairs,
     ("fully_concealed_hand", "concealed_hand", "pair_wait"), ()),
    ("greater_honors_knitted", "Greater Honors and Knitted Tiles", "七星不靠", 24, "QIXINGBUKAO",
     _greater_honors_knitted, ("lesser_honors_knitted", "all_types", "fully_concealed_hand", "concealed_hand"), ()),
    ("all_even_pungs", "All Even Pungs", "全双刻", 24, "QUANSHUANGKE", _all_even_pungs,
     ("all_pungs", "all_simples", "no_honors"), ()),
    ("full_flush", "Full Flush", "清一色", 24, "QINGYISE", _full_flush, ("no_honors",), ()),
    ("pure_triple_chow", "Pure Triple Chow", "一色三同顺", 24, "YISESANTONGSHUN", _combo("pure_triple_chow"),
     (), ("pure_double_chow",)),
    ("pure_shifted_pungs", "Pure Shifted Pungs", "一色三节高", 24, "YISESANJIEGAO", _combo("pure_shifted_pungs"),
     (), ()),
    ("upper_tiles", "Upper Tiles", "全大", 24, "QUANDA", _ranks_within(7, 9), ("upper_four", "no_honors"), ()),
    ("middle_tiles", "Middle Tiles", "全中", 24, "QUANZHONG", _ranks_within(4, 6), ("all_simples", "no_honors"), ()),
    ("lower_tiles", "Lower Tiles", "全小", 24, "QUANXIAO", _ranks_within(1, 3), ("lower_four", "no_honors"), ()),
    # 16
    ("pure_straight", "Pure Straight", "清龙", 16, "QINGLONG", _combo("pure_straight"), (),
     ("short_straight", "two_terminal_chows")),
    ("three_suited_terminal_chows", "Three-Suited Terminal Chows", "三色双龙会", 16, "SANSESHUANGLONGHUI",
     _three_suited_terminal_chows, ("all_chows", "two_terminal_chows", "mixed_double_chow", "no_honors"), ()),
    ("pure_shifted_chows", "Pure Shifted Chows", "一色三步高", 16, "YISESANBUGAO", _combo("pure_shifted_chows"),
     (), ()),
    ("all_fives", "All Fives", "全带五", 16, "QUANDAIWU", _all_fives, ("all_simples", "no_honors"), ()),
    ("triple_pung", "Triple Pung", "三同刻", 16, "SANTONGKE", _combo("triple_pung"), (), ("double_pung",)),
    ("three_concealed_pungs", "Three Concealed Pungs", "三暗刻", 16, "SANANKE",
     _from_kong_series("three_concealed_pungs"), (), ()),
    # 12
    ("lesser_honors_knitted", "Lesser Honors and Knitted Tiles", "全不靠", 12, "QUANBUKAO", _lesser_honors_knitted,
     ("all_types", "fully_concealed_hand", "concealed_hand"), ()),
    ("knitted_straight", "Knitted Straight", "组合龙", 12, "ZUHELONG", _knitted_straight, (), ()),
    ("upper_four", "Upper Four", "大于五", 12, "DAYUWU", _ranks_within(6, 9), ("no_honors",), ()),
    ("lower_four", "Lower Four", "小于五", 12, "XIAOYUWU", _ranks_within(1, 4), ("no_honors",), ()),
    ("big_three_winds", "Big Three Winds", "三风刻", 12, "SANFENGKE", _big_three_winds, (), ("pung_of_terminals",)),
    # 8
    ("mixed_straight", "Mixed Straight", "花龙", 8, "HUALONG", _combo("mixed_straight"), (), ()),
    ("reversible_tiles", "Reversible Tiles", "推不倒", 8, "TUIBUDAO", tiles_within(REVERSIBLE), ("one_voided_suit",),
     ()),
    ("mixed_triple_chow", "Mixed Triple Chow", "三色三同顺", 8, "SANSESANTONGSHUN", _combo("mixed_triple_chow"), (),
     ("mixed_double_chow",)),
    ("mixed_shifted_pungs", "Mixed Shifted Pungs", "三色三节高", 8, "SANSESANJIEGAO", _combo("mixed_shifted_pungs"),
     (), ()),
    ("chicken_hand", "Chicken Hand", "无番和", 8, "WUFANHU", _never, (), ()),
    ("last_tile_draw", "Last Tile Draw", "妙手回春", 8, "MIAOSHOUHUICHUN", _last_tile_draw, ("self_drawn",), ()),
    ("last_tile_claim", "Last Tile Claim", "海底捞月", 8, "HAIDILAOYUE", _last_tile_claim, (), ()),
    ("out_with_replacement_tile", "Out with Replacement Tile", "杠上开花", 8, "GANGSHANGKAIHUA", _replacement,
     ("self_drawn",), ()),
    ("robbing_the_kong", "Robbing the Kong", "抢杠和", 8, "QIANGGANGHU", _robbing, ("last_of_its_kind",), ()),
    ("two_concealed_kongs", "Two Concealed Kongs", "双暗杠", 8, "SHUANGANGANG",
     _from_kong_series("two_concealed_kongs"), (), ()),
    # 6
    ("all_pungs", "All Pungs", "碰碰和", 6, "PENGPENGHU", _all_pungs, (), ()),
    ("half_flush", "Half Flush", "混一色", 6, "HUNYISE", _half_flush, (), ()),
    ("mixed_shifted_chows", "Mixed Shifted Chows", "三色三步高", 6, "SANSESANBUGAO", _combo("mixed_shifted_chows"),
     (), ()),
    ("all_types", "All Types", "五门齐", 6, "WUMENQI", _all_types, (), ()),
    ("melded_hand", "Melded Hand", "全求人", 6, "QUANQIUREN", _melded_hand, ("pair_wait",), ()),
    ("two_dragon_pungs", "Two Dragon Pungs", "双箭刻", 6, "SHUANGJIANKE", _two_dragon_pungs, ("dragon_pung",),
     ("pung_of_terminals",)),
    ("mixed_kongs", "Mixed Kongs", "明暗杠", 6, "MINGANGANG", _from_kong_series("mixed_kongs"), (), ()),
    # 4
    ("outside_hand", "Outside Hand", "全带幺", 4, "QUANDAIYAO", _outside_hand, (), ()),
    ("fully_concealed_hand", "Fully Concealed Hand", "不求人", 4, "BUQIUREN", _fully_concealed,
     ("self_drawn", "concealed_hand"), ()),
    ("two_melded_kongs", "Two Melded Kongs", "双明杠", 4, "SHUANGMINGGANG", _from_kong_series("two_melded_kongs"), (),
     ()),
    ("last_of_its_kind", "Last of its Kind", "和绝张", 4, "HUJUEZHANG", _last_of_kind, (), ()),
    # 2
    ("dragon_pung", "Dragon Pung", "箭刻", 2, "JIANKE", _dragon_pung, (), ("pung_of_terminals",)),
    ("prevalent_wind", "Prevalent Wind", "圈风刻", 2, "QUANFENGKE", _wind_of("prevalent_wind"), (),
     ("pung_of_terminals",)),
    ("seat_wind", "Seat Wind", "门风刻", 2, "MENFENGKE", _wind_of("seat_wind"), (), ("pung_of_terminals",)),
    ("concealed_hand", "Concealed Hand", "门前清", 2, "MENQIANQING", _concealed_hand, (), ()),
    ("all_chows", "All Chows", "平和", 2, "PINGHU", _all_chows, ("no_honors",), ()),
    ("tile_hog", "Tile Hog", "四归一", 2, "SIGUIYI", _tile_hog, (), ()),
    ("double_pung", "Double Pung", "双同刻", 2, "SHUANGTONGKE", _combo("double_pung"), (), ()),
    ("two_concealed_pungs", "Two Concealed Pungs", "双暗刻", 2, "SHUANGANKE", _from_kong_series("two_concealed_pungs"),
     (), ()),
    ("concealed_kong", "Concealed Kong", "暗杠", 2, "ANGANG", _from_kong_series("concealed_kong"), (), ()),
    ("all_simples", "All Simples", "断幺", 2, "DUANYAO", _all_simples, ("no_honors",), ()),
    # 1
    ("pure_double_chow", "Pure Double Chow", "一般高", 1, "YIBANGAO", _combo("pure_double_chow"), (), ()),
    ("mixed_double_chow", "Mixed Double Chow", "喜相逢", 1, "XIXIANGFENG", _combo("mixed_double_chow"), (), ()),
    ("short_straight", "Short Straight", "连六", 1, "LIANLIU", _combo("short_straight"), (), ()),
    ("two_terminal_chows", "Two Terminal Chows", "老少副", 1, "LAOSHAOFU", _combo("two_terminal_chows"), (), ()),
    ("pung_of_terminals", "Pung of Terminals", "幺九刻", 1, "YAOJIUKE", _pung_of_terminals, (), ()),
    ("melded_kong", "Melded Kong", "明杠", 1, "MINGGANG", _from_kong_series("melded_kong"), (), ()),
    ("one_voided_suit", "One Voided Suit", "缺一门", 1, "QUEYIMEN", _one_voided_suit, (), ()),
    ("no_honors", "No Honor Tiles", "无字", 1, "WUZI", _no_honors, (), ()),
    ("edge_wait", "Edge Wait", "边张", 1, "BIANZHANG", _wait("edge_wait"), (), ()),
    ("closed_wait", "Closed Wait", "坎张", 1, "KANZHANG", _wait("closed_wait"), (), ()),
    ("pair_wait", "Pair Wait", "单钓将", 1, "DANDIAOJIANG", _wait("pair_wait"), (), ()),
    ("self_drawn", "Self Drawn", "自摸", 1, "ZIMO", _self_drawn, (), ()),
    ("flowers", "Flowers", "花牌", 1, "HUAPAI", _flowers, (), ()),
]

VALUES: dict[str, int] = {row[0]: row[3] for row in _ROWS}


def _settle(total: int, ctx: WinContext) -> dict[str, Any]:
    """Seed 001: every opponent pays 8; the discarder pays the hand's value on top, or all three after a self-draw."""
    if ctx.self_drawn:
        payments = {"each_opponent": 8 + total}
        receives = 3 * (8 + total)
    else:
        payments = {"discarder": 8 + total, "each_other_opponent": 8}
        receives = 8 + total + 2 * 8
    return {"base": 8, "self_drawn": ctx.self_drawn, "payments": payments, "winner_receives": receives}


# Hand tags a fan needs (engine.hand_tags): the engine skips the predicate without them (speed only).
_NEEDS: dict[str, tuple[str, ...]] = {
    "big_four_winds": ('winds',),
    "big_three_dragons": ('dragons',),
    "little_four_winds": ('winds',),
    "little_three_dragons": ('dragons',),
    "all_honors": ('honors',),
    "big_three_winds": ('winds',),
    "two_dragon_pungs": ('dragons',),
    "dragon_pung": ('dragons',),
    "prevalent_wind": ('winds',),
    "seat_wind": ('winds',),
    "all_types": ('winds', 'dragons'),
    "half_flush": ('honors',),
    "four_kongs": ('kongs',),
    "three_kongs": ('kongs',),
    "two_concealed_kongs": ('kongs',),
    "mixed_kongs": ('kongs',),
    "two_melded_kongs": ('kongs',),
    "concealed_kong": ('kongs',),
    "melded_kong": ('kongs',),
    "out_with_replacement_tile": ('kong_replacement',),
    "flowers": ('flowers',),
    "self_drawn": ('self_drawn',),
    "last_tile_draw": ('self_drawn', 'last_tile'),
    "last_tile_claim": ('discard', 'last_tile'),
    "robbing_the_kong": ('robbing_kong',),
    "fully_concealed_hand": ('self_drawn', 'concealed'),
    "concealed_hand": ('discard', 'concealed'),
    "melded_hand": ('discard',),
    "seven_pairs": ('no_melds',),
    "seven_shifted_pairs": ('no_melds',),
    "thirteen_orphans": ('no_melds', 'honors'),
    "greater_honors_knitted": ('no_melds', 'honors'),
    "lesser_honors_knitted": ('no_melds',),
    "nine_gates": ('no_melds',),
}

_KONG_SERIES = {"seed-003": _seed_kong_series, "green-book": _mil_kong_series}


@dataclass(frozen=True)
class MCRVariant:
    """Where the seed's rulings and the Green Book / MIL conventions differ (the style of the riichi `mahjong`
    library's `OptionalRules`): a small frozen config, passed as `score(hand, variant=...)` by name or as is.

    `two_concealed_kongs` / `mixed_kongs`: the values of 双暗杠 and 明暗杠 (one melded + one concealed kong);
    `kong_series`: "seed-003" (the Four Winds chart of RULES.md) or "green-book" (three or four kongs score Three /
    Four Kongs only, a concealed kong counts in the concealed-pung series)."""

    name: str = "seed"
    two_concealed_kongs: int = 8
    mixed_kongs: int = 6
    kong_series: str = "seed-003"
    description: str = "the seed's rulings (RULES.md, scoring/RULINGS.md): seed-003 kong chart, Two Concealed Kongs 8"

    def __post_init__(self) -> None:
        if self.kong_series not in _KONG_SERIES:
            raise ValueError(f"kong_series must be one of {', '.join(_KONG_SERIES)}, not {self.kong_series!r}")


SEED = MCRVariant()
MIL = MCRVariant("mil", two_concealed_kongs=6, mixed_kongs=5, kong_series="green-book",
                 description="Green Book / MIL values as the reference engine PyMahjongGB counts them: Two Concealed "
                             "Kongs 6, one melded + one concealed kong 5, three or more kongs without the kong fans")
VARIANTS: dict[str, MCRVariant] = {v.name: v for v in (SEED, MIL)}


def _fans(variant: MCRVariant) -> tuple[Fan, ...]:
    values = {"two_concealed_kongs": variant.two_concealed_kongs, "mixed_kongs": variant.mixed_kongs}
    return tuple(
        Fan(id=fid, name=en, name_zh=zh, value=values.get(fid, val), predicate=pred, implies=implies, within=within,
            counts_to_minimum=fid != "flowers", needs=_NEEDS.get(fid, ()), number=str(k + 1), code=code)
        for k, (fid, en, zh, val, code, pred, implies, within) in enumerate(_ROWS)
    )


@lru_cache(maxsize=16)
def _rule_set(variant: MCRVariant) -> RuleSet:
    return RuleSet(
        name="mcr",
        title="Chinese Official (MCR): Green Book fans, " + (
            "seed-003 kong chart" if variant.kong_series == "seed-003" else "Green Book / MIL kong series"),
        fans=_fans(variant),
        minimum=8,
        fallback="chicken_hand",
        settle=_settle,
        prepare=partial(_prepare, variant=variant),
        variant=variant.name,
        variants=tuple(VARIANTS),
        with_variant=mcr_rules,
    )


def mcr_rules(variant: MCRVariant | str = SEED) -> RuleSet:
    """The MCR rule set of a variant, given by name ("seed", "mil") or as an `MCRVariant`."""
    if isinstance(variant, str):
        if variant not in VARIANTS:
            raise FanscanError(f"unknown MCR variant {variant!r}; known: {', '.join(VARIANTS)}")
        variant = VARIANTS[variant]
    if not isinstance(variant, MCRVariant):
        raise FanscanError(f"an MCR variant is a name ({', '.join(VARIANTS)}) or an MCRVariant, not {variant!r}")
    return _rule_set(variant)


MCR = register_rule_set(mcr_rules(SEED))
FANS: tuple[Fan, ...] = MCR.fans
