"""A few hundred random hands against pymahjonggb (optional extra `diff`): every difference must be one that
RULES.md explains. Skipped when pymahjonggb is not installed; benchmarks/differential.py runs tens of thousands."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from fanscan.scoring import WinContext, format_hand, is_complete, parse_hand, score
from fanscan.scoring.crosscheck import EXPLAINED, classify_difference, reference_is_winning, reference_score
from fanscan.scoring.random_hands import random_hand, with_one_tile_replaced

pytest.importorskip("MahjongGB")


def test_random_hands_agree_with_the_reference_engine() -> None:
    rng = random.Random(20260913)
    categories: Counter = Counter()
    unexplained = []
    for _ in range(400):
        hand = random_hand(rng)
        ours = score(hand)
        ours_fans = Counter({f.id: f.count for f in ours.fans})
        theirs, theirs_total = reference_score(hand, hand.context)
        alts = [Counter({f.id: f.count for f in a.fans}) for a in ours.alternatives]
        cat = classify_difference(hand, ours_fans, theirs, ours.total, theirs_total, alts)
        categories[cat or "same"] += 1
        if cat is not None and cat not in EXPLAINED:
            unexplained.append((format_hand(hand), dict(ours_fans - theirs), dict(theirs - ours_fans)))
    assert not unexplained, unexplained[:5]
    assert categories["same"] > 300


def test_kong_differences_are_classified() -> None:
    for text, category, delta in (("[1111m][2222p]345s678sCC", "two_concealed_kongs_6_vs_8", 2),
                                  ("[1111m,1][2222p]345s678sCC", "mixed_kongs_5_vs_6", 1)):
        hand = parse_hand(text)
        ours = score(hand)
        theirs, theirs_total = reference_score(hand, WinContext())
        assert ours.total - theirs_total == delta
        ours_fans = Counter({f.id: f.count for f in ours.fans})
        assert classify_difference(hand, ours_fans, theirs, ours.total, theirs_total) == category


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
