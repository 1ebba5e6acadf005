"""Random hands against pymahjonggb (optional extra `diff`) under the MCR variant "mil" - the Green Book / MIL
values the reference engine uses: every hand must score the same fans and total, or the same total with the
reference's fans being one of our equal-total alternatives. No list of excused differences. Skipped when
pymahjonggb is not installed; benchmarks/differential.py runs hundreds of thousands."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from fanscan.scoring import WinContext, format_hand, is_complete, parse_hand, score
from fanscan.scoring.crosscheck import DIFFERENT, SAME, compare, fan_counts, reference_is_winning, reference_score
from fanscan.scoring.random_hands import random_hand, with_one_tile_replaced

pytest.importorskip("MahjongGB")


def test_random_hands_agree_with_the_reference_engine_under_mil() -> None:
    rng = random.Random(20260913)
    outcomes: Counter = Counter()
    different = []
    for _ in range(600):
        hand = random_hand(rng)
        ours = score(hand, variant="mil")
        theirs, theirs_total = reference_score(hand, hand.context)
        outcome = compare(ours, theirs, theirs_total)
        outcomes[outcome] += 1
        if outcome == DIFFERENT:
            different.append((format_hand(hand), ours.total, theirs_total, dict(fan_counts(ours) - theirs),
                              dict(theirs - fan_counts(ours))))
    assert not different, different[:5]
    assert outcomes[SAME] > 550


@pytest.mark.parametrize(("text", "seed_total", "mil_total"), [
    # Two Concealed Kongs: seed 8, Green Book 6; + Concealed Hand 2, Short Straight 1, Pung of Terminals 1 (CC),
    # Pair Wait 1
    ("[1111m][2222p]345s678sCC", 8 + 2 + 1 + 1 + 1, 6 + 2 + 1 + 1 + 1),
    # one melded + one concealed kong: Mixed Kongs 6 (seed 003) / 明暗杠 5; + Short Straight, Pung of Terminals,
    # Pair Wait
    ("[1111m,1][2222p]345s678sCC", 6 + 3, 5 + 3),
    # three kongs, two concealed: seed = Three Kongs 32 + Two Concealed Kongs 8; MIL = Three Kongs 32 + Two
    # Concealed Pungs 2 (the concealed kongs count as concealed pungs); + Out with Replacement Tile 8, Pung of
    # Terminals 1 (1111s), One Voided Suit 1, Pair Wait 1
    ("[6666m][5555m,6][1111s][789m,2]EE|EW1001", 32 + 8 + 8 + 3, 32 + 2 + 8 + 3),
])
def test_kong_values_of_the_two_variants(text: str, seed_total: int, mil_total: int) -> None:
    assert score(text).total == seed_total
    assert score(text, variant="mil").total == mil_total
    hand = parse_hand(text)
    _, theirs_total = reference_score(hand, hand.context or WinContext())
    assert theirs_total == mil_total


def test_completeness_agrees_with_the_reference_engine() -> None:
    # complete hands with one standing tile replaced at random: complete or not, both engines must agree
    rng = random.Random(99)
    checked = 0
    for _ in range(600):
        changed = with_one_tile_replaced(rng, random_hand(rng))
        if changed is None:
            continue  # five of a kind
        ours = is_complete(changed.concealed_tiles(), len(changed.melds))
        assert ours == reference_is_winning(changed), format_hand(changed)
        checked += 1
    assert checked > 500
