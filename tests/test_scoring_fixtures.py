"""The public MCR fixtures (tests/fixtures/mcr, MIT, see SOURCE.md there): every expected fan list reproduced
under the MCR variant "mil" (the Green Book / MIL values these fixtures follow). Under the default variant (the
seed's kong chart) only the hands with three or more kongs may differ, and only in the kong fans."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from fanscan.scoring import parse_hand, score, waits
from fanscan.scoring.crosscheck import CODE_TO_ID, fan_counts

FIXTURES = Path(__file__).parent / "fixtures" / "mcr"
CASES = json.loads((FIXTURES / "gb-mahjong-cases.json").read_text(encoding="utf-8"))
# The fans the seed-003 kong chart and the Green Book count differently (RULES.md, "Kongs and concealed pungs").
KONG_SERIES = {"concealed_kong", "two_concealed_kongs", "two_concealed_pungs", "three_concealed_pungs",
               "four_concealed_pungs"}


def expected(names: list[str]) -> Counter:
    return Counter(CODE_TO_ID[n.removeprefix("FAN_")] for n in names)


def expected_lists(case: dict) -> list[Counter]:
    return [expected(case["expectedNames"])] + ([expected(case["altExpectedNames"])] if case["altExpectedNames"]
                                                 else [])


def test_fixture_counts() -> None:
    assert len(CASES["fanCases"]) == 130 and len(CASES["tingCases"]) == 20


@pytest.mark.parametrize("case", CASES["fanCases"], ids=[c["input"] for c in CASES["fanCases"]])
def test_fan_case_under_mil(case: dict) -> None:
    got = fan_counts(score(case["input"], variant="mil"))
    assert got in expected_lists(case), (dict(got), [dict(e) for e in expected_lists(case)])


def test_seed_variant_differs_only_on_three_or_more_kongs() -> None:
    differing = []
    for case in CASES["fanCases"]:
        got = fan_counts(score(case["input"]))
        if got not in expected_lists(case):
            exp = expected_lists(case)[0]
            assert set((got - exp) + (exp - got)) <= KONG_SERIES, case["input"]
            differing.append(case["input"])
    assert len(differing) == 6
    assert all(sum(1 for m in parse_hand(h).melds if m.kind == "kong") >= 3 for h in differing)


@pytest.mark.parametrize("case", CASES["tingCases"], ids=[c["input"] for c in CASES["tingCases"]])
def test_ting_case(case: dict) -> None:
    want = sorted(n.removeprefix("TILE_") for n in case["expectedNames"])
    assert sorted(waits(case["input"])) == want
