"""Properties every rule set must have, run for MCR and HK on the same generated hands: no crash, deterministic,
independent of how the hand is written (meld order, standing-tile order, notation round trip).

Hands come from the engine's generator (`scoring.random_hands.random_hand`, which the benchmark also uses), plus
an HK generator for what it lacks: not-connected hands and the HK-only win context (flower replacement, kong on
kong, first tile).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from fanscan.scoring import FanscanError, Hand, WinContext, format_hand, parse_hand, score
from fanscan.scoring.decomposition import arrangements
from fanscan.scoring.hk import hk_arrangements
from fanscan.scoring.random_hands import random_hand, rewritten
from fanscan.scoring.tiles import FLOWERS, INDEX, N_KINDS, PLAYING_TILE_IDS, WINDS
from hypothesis import given, settings
from hypothesis import strategies as st

RULES = ("mcr", "hk")
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _not_connected_tiles(rng: random.Random) -> list[int]:
    """14 different tiles, no two of one suit with consecutive numbers."""
    while True:
        honours = rng.sample(range(27, N_KINDS), rng.randint(3, 7))
        numbered: list[int] = []
        for s in range(3):
            ranks: list[int] = []
            for r in rng.sample(range(9), 9):
                if all(abs(r - x) > 1 for x in ranks) and rng.random() < 0.6:
                    ranks.append(r)
            numbered.extend(9 * s + r for r in ranks)
        if len(honours) + len(numbered) >= 14:
            return rng.sample(honours + numbered, 14) if len(numbered) >= 14 - len(honours) else []


def _hk_context(rng: random.Random, hand: Hand) -> WinContext:
    """A possible win context using the HK-only flags."""
    ctx = hand.context or WinContext()
    n_kongs = hand.n_kongs
    pick = rng.random()
    if pick < 0.3:
        return replace(ctx, self_drawn=True, robbing_kong=False, kong_replacement=False, kong_on_kong=False,
                       flower_replacement=True, flowers=tuple(sorted(rng.sample(FLOWERS, rng.randint(1, 4)))),
                       flower_count=None)
    if pick < 0.6 and n_kongs >= 2:
        return replace(ctx, self_drawn=True, robbing_kong=False, kong_replacement=True, kong_on_kong=True)
    if not hand.melds:
        seat = rng.choice(WINDS)
        drawn = seat == "E" or rng.random() < 0.3
        return replace(ctx, first_tile=True, self_drawn=drawn, seat_wind=seat, last_tile=False,
                       kong_replacement=False, robbing_kong=False)
    return ctx


def make_hand(seed: int, hk_extras: bool) -> Hand:
    rng = random.Random(seed)
    if hk_extras and rng.random() < 0.2:
        tiles = []
        while not tiles:
            tiles = _not_connected_tiles(rng)
        ids = [PLAYING_TILE_IDS[i] for i in tiles]
        hand = Hand((), tuple(ids[:-1]), ids[-1], WinContext(seat_wind=rng.choice(WINDS)))
    else:
        hand = random_hand(rng)
    if hk_extras and rng.random() < 0.5:
        hand = hand.with_context(_hk_context(rng, hand))
    return hand


def score_or_refusal(hand: Hand, rules: str):
    """The Score, or None when a rule set refuses a shape it does not know (HK: the MCR knitted hands; MCR: the
    HK not-connected hands that are not knitted); anything else must not raise."""
    try:
        return score(hand, rules=rules)
    except FanscanError as error:
        assert "not a winning hand" in str(error), error
        counts = tuple(sum(1 for t in hand.concealed_tiles() if INDEX[t] == i) for i in range(N_KINDS))
        reader = hk_arrangements if rules == "hk" else arrangements
        assert not reader(counts, len(hand.melds))
        return None


@pytest.mark.parametrize("rules", RULES)
@settings(max_examples=150, deadline=None)
@given(seed=seeds, extras=st.booleans())
def test_no_crash_and_totals_add_up(rules, seed, extras):
    hand = make_hand(seed, extras)
    result = score_or_refusal(hand, rules)
    if result is None:
        return
    ids = {f.id for f in result.fans}
    ctx = result.context
    concealed = not any(not m.concealed for m in hand.melds)
    if rules == "hk":
        # seed 000 / RULES.md: Fully Concealed Hand replaces Concealed Hand and Self Draw; Concealed Hand is a win
        # on another player's tile, so it never meets Self Draw; a concealed hand scores one of the two (R2, R23)
        assert not ({"fully_concealed_hand", "self_draw"} <= ids or {"concealed_hand", "self_draw"} <= ids)
        assert ("fully_concealed_hand" in ids) == (concealed and ctx.self_drawn)
        assert ("concealed_hand" in ids) == (concealed and not ctx.self_drawn)
        assert ("self_draw" in ids) == (ctx.self_drawn and not concealed)
    else:
        # seed 001: flowers are worth 1 each and do not count towards the 8-fan minimum
        assert result.meets_minimum == (result.total - ctx.n_flowers >= 8)


@pytest.mark.parametrize("rules", RULES)
@settings(max_examples=100, deadline=None)
@given(seed=seeds, extras=st.booleans())
def test_deterministic(rules, seed, extras):
    hand = make_hand(seed, extras)
    first = score_or_refusal(hand, rules)
    second = score_or_refusal(hand, rules)
    assert (first is None) == (second is None)
    if first is not None:
        assert first.to_dict() == second.to_dict()  # exactly, display order included


@pytest.mark.parametrize("rules", RULES)
@settings(max_examples=100, deadline=None)
@given(seed=seeds, extras=st.booleans(), shuffle_seed=st.integers(0, 1000))
def test_order_independent(rules, seed, extras, shuffle_seed):
    """Reordering the melds, the standing tiles or the flowers (the winning tile stays the winning tile), or
    writing the hand out and reading it back, changes nothing in the score's JSON."""
    hand = make_hand(seed, extras)
    shuffled = rewritten(random.Random(shuffle_seed), hand)
    base = score_or_refusal(hand, rules)
    other = score_or_refusal(shuffled, rules)
    assert (base is None) == (other is None)
    if base is None:
        return
    # the whole JSON, display order included: tiles, groups and evidence come from the canonical writing
    assert other.to_dict() == base.to_dict()
    if not any(getattr(hand.context, f) for f in ("flower_replacement", "kong_on_kong", "first_tile")):
        # the GB notation carries the MCR context only; HK-only flags travel in the structured context
        again = score(parse_hand(format_hand(shuffled)), rules=rules)
        assert again.to_dict() == base.to_dict()


notation_chars = st.sampled_from(list("123456789mpsESWNCFP[],|0abcdefgh x"))


@settings(max_examples=300, deadline=None)
@given(st.text(notation_chars, max_size=40))
def test_hk_arbitrary_strings_score_or_refuse(text):
    """Under HK as under MCR (test_scoring_properties): a score or a one-line FanscanError, nothing else."""
    try:
        result = score(text, rules="hk")
    except FanscanError as error:
        assert "\n" not in str(error)
    else:  # what was read is written back in the notation and scores the same
        assert score(result.hand, rules="hk").to_dict() == result.to_dict()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PLAYING_TILE_IDS), min_size=14, max_size=14))
def test_hk_fourteen_random_tiles_score_or_refuse(tiles):
    counts = {t: tiles.count(t) for t in tiles}
    try:
        result = score("".join(tiles), rules="hk")
    except FanscanError as error:
        assert "\n" not in str(error)
        if max(counts.values()) <= 4:  # a valid tile set is refused only when no HK shape reads it
            c = tuple(counts.get(PLAYING_TILE_IDS[i], 0) for i in range(N_KINDS))
            assert not hk_arrangements(c, 0)
    else:
        assert result.arrangement.form in ("standard", "seven_pairs", "thirteen_orphans", "not_connected")
