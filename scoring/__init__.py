"""The scoring engine: tiles and notation, hand model, decompositions, waits, MCR and HK rule sets. No images.

Installs as `fanscan.scoring`, not as a top-level `scoring`: the design's top-level folders (`scoring/`, `vision/`,
`models/`, `training/`) are sub-packages of the one import name `fanscan` (pyproject.toml,
`[tool.setuptools.package-dir]`), so that no generic `scoring` lands in site-packages. Import it as
`fanscan.scoring` (an editor or a grep for `fanscan.scoring` finds this folder).

Public API (see ENGINE.md):
    parse_hand(text) -> Hand              format_hand(hand) -> str
    canonical_hand(hand) -> Hand          the same hand written one way (melds and standing tiles sorted)
    Hand, Meld, WinContext                dataclasses with to_dict / from_dict (the structured form)
    score(hand, context=None, rules="mcr") -> Score   (Score.to_dict() is the JSON)
    waits(hand13) -> list[str]            decompose(hand) -> list of arrangements
    is_complete(tiles, n_melds) -> bool   fast completeness check (memoised), for the vision grouping step
    RULE_SETS, register_rule_set, RuleSet, Fan   the rule-set registry
"""

from . import (
    hk,  # noqa: F401  (registers the "hk" rule set, seed 000)
    mcr,  # noqa: F401  (registers the "mcr" rule set)
)
from .engine import RULE_SETS, Fan, RuleSet, View, get_rule_set, register_rule_set
from .errors import FanscanError
from .hand import Hand, Meld, WinContext, canonical_hand, validate
from .notation import format_hand, parse_hand
from .score import Score, decompose, is_complete, score, waits

decompositions = decompose

__all__ = [
    "RULE_SETS", "Fan", "FanscanError", "Hand", "Meld", "RuleSet", "Score", "View", "WinContext", "canonical_hand",
    "decompose",
    "decompositions", "format_hand", "get_rule_set", "is_complete", "parse_hand", "register_rule_set", "score",
    "validate", "waits",
]
