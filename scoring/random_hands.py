"""Random valid winning hands (seeded), for benchmarks, property tests and differential testing.

Not a model of real play: it aims at variety - chows, pungs, kongs melded or concealed, the special forms, and
win contexts that are possible for the hand - so that every code path of the engine gets exercised.
"""

from __future__ import annotations

import random
from dataclasses import replace

from .decomposition import KNITTED_SETS, ORPHANS
from .errors import FanscanError
from .hand import CHOW, KONG, PUNG, Hand, Meld, WinContext, validate
from .notation import format_hand
from .tiles import FLOWERS, N_KINDS, PLAYING_TILE_IDS, WINDS


def _set_tiles(kind: str, t: int) -> list[int]:
    if kind == CHOW:
        return [t, t + 1, t + 2]
    return [t] * (4 if kind == KONG else 3)


def _standard(rng: random.Random) -> tuple[list[Meld], list[int]] | None:
    counts = [0] * N_KINDS
    sets = []
    # A third of the hands keep to one suit (plus honours now and then), where the set-combination fans,
    # flushes and the special one-suit hands live.
    focus = rng.randrange(3) if rng.random() < 0.35 else None

    def tile() -> int:
        if focus is None or rng.random() < 0.1:
            return rng.randrange(N_KINDS)
        return 9 * focus + rng.randrange(9)

    for _ in range(4):
        r = rng.random()
        if r < 0.55:
            suit, rank = (rng.randrange(3) if focus is None else focus), rng.randrange(7)
            kind, t = CHOW, 9 * suit + rank
        else:
            kind, t = (PUNG if r < 0.9 else KONG), tile()
        for x in _set_tiles(kind, t):
            counts[x] += 1
        sets.append((kind, t))
    pair = tile()
    counts[pair] += 2
    if max(counts) > 4:
        return None
    melds: list[Meld] = []
    concealed: list[int] = [pair, pair]
    for kind, t in sets:
        if kind == KONG:
            if rng.random() < 0.5:
                melds.append(Meld(KONG, PLAYING_TILE_IDS[t], None, True))
            else:
                melds.append(Meld(KONG, PLAYING_TILE_IDS[t], rng.choice((1, 2, 3, 5, 6, 7))))
        elif rng.random() < 0.35:
            melds.append(Meld(kind, PLAYING_TILE_IDS[t], rng.randrange(1, 4)))
        else:
            concealed.extend(_set_tiles(kind, t))
    return melds, concealed


def _special(rng: random.Random) -> list[int]:
    r = rng.random()
    if r < 0.5:  # seven pairs
        kinds = rng.sample(range(N_KINDS), 7)
        if rng.random() < 0.1:  # a four of a kind as two pairs
            kinds[1] = kinds[0]
        return [k for k in kinds for _ in range(2)]
    if r < 0.65:  # thirteen orphans
        return [*ORPHANS, rng.choice(ORPHANS)]
    knit = rng.choice(KNITTED_SETS)
    if r < 0.85:  # honours and knitted tiles: 14 singles
        pool = list(knit) + list(range(27, 34))
        return rng.sample(pool, 14) if rng.random() < 0.7 else list(range(27, 34)) + rng.sample(knit, 7)
    return None  # knitted straight with a set and a pair: built by the caller


def _knitted_standard(rng: random.Random) -> tuple[list[Meld], list[int]] | None:
    knit = list(rng.choice(KNITTED_SETS))
    counts = [0] * N_KINDS
    for x in knit:
        counts[x] += 1
    if rng.random() < 0.6:
        suit, rank = rng.randrange(3), rng.randrange(7)
        kind, t = CHOW, 9 * suit + rank
    else:
        kind, t = PUNG, rng.randrange(N_KINDS)
    pair = rng.randrange(N_KINDS)
    for x in [*_set_tiles(kind, t), pair, pair]:
        counts[x] += 1
    if max(counts) > 4:
        return None
    if rng.random() < 0.3:
        return [Meld(kind, PLAYING_TILE_IDS[t], rng.randrange(1, 4))], [*knit, pair, pair]
    return [], [*knit, *_set_tiles(kind, t), pair, pair]


def _context(rng: random.Random, melds: list[Meld], standing: list[str], win: str) -> WinContext:
    self_drawn = rng.random() < 0.4
    n_kongs = sum(1 for m in melds if m.kind == KONG)
    in_hand = standing.count(win) + sum(m.tiles.count(win) for m in melds)
    last_tile = rng.random() < 0.06
    kong_replacement = self_drawn and n_kongs > 0 and rng.random() < 0.25
    robbing = not self_drawn and not last_tile and in_hand == 0 and rng.random() < 0.1
    last_of_kind = standing.count(win) == 0 and rng.random() < 0.08
    flowers = tuple(sorted(rng.sample(FLOWERS, rng.choice((0, 0, 0, 1, 2, 3)))))
    return WinContext(
        prevalent_wind=rng.choice(WINDS), seat_wind=rng.choice(WINDS), self_drawn=self_drawn,
        last_of_kind=last_of_kind, last_tile=last_tile, kong_replacement=kong_replacement, robbing_kong=robbing,
        flowers=flowers)


def random_hand(rng: random.Random) -> Hand:
    """One random complete, valid hand with a possible win context."""
    while True:
        r = rng.random()
        melds: list[Meld] = []
        built: tuple[list[Meld], list[int]] | None
        if r < 0.9:
            built = _standard(rng)
        elif r < 0.94 or (special := _special(rng)) is None:  # a special form may not fit: knitted instead
            built = _knitted_standard(rng)
        else:
            built = ([], special)
        if built is None:
            continue
        melds, concealed = built
        rng.shuffle(concealed)
        tiles = [PLAYING_TILE_IDS[i] for i in concealed]
        win = tiles.pop()
        ctx = _context(rng, melds, tiles, win)
        return Hand(tuple(melds), tuple(tiles), win, ctx)


def rewritten(rng: random.Random, hand: Hand) -> Hand:
    """The same hand written in another order: melds, standing tiles and flowers shuffled (the winning tile
    stays the winning tile). Anything scored from it must equal what is scored from `hand`."""
    melds = list(hand.melds)
    standing = list(hand.standing)
    rng.shuffle(standing)
    rng.shuffle(melds)
    ctx = hand.context
    if ctx is not None and ctx.flowers:
        flowers = list(ctx.flowers)
        rng.shuffle(flowers)
        ctx = replace(ctx, flowers=tuple(flowers))
    return Hand(tuple(melds), tuple(standing), hand.winning_tile, ctx)


def with_one_tile_replaced(rng: random.Random, hand: Hand) -> Hand | None:
    """The hand with one standing tile replaced by a random tile, without context - complete or not, for the
    completeness checks; None when that makes five of a kind."""
    standing = list(hand.standing)
    standing[rng.randrange(len(standing))] = PLAYING_TILE_IDS[rng.randrange(N_KINDS)]
    changed = Hand(hand.melds, tuple(standing), hand.winning_tile, None)
    try:
        validate(changed)
    except FanscanError:
        return None
    return changed


def random_hand_strings(n: int, seed: int = 0) -> list[str]:
    """n random hands as GB-notation strings (deterministic for a seed)."""
    rng = random.Random(seed)
    return [format_hand(random_hand(rng)) for _ in range(n)]
