"""The worked examples of score_definition.xml (tests/fixtures/mcr, MIT): "【牌例】 hand 计：fans".

Each example is converted to GB notation and scored; the fan list must be reproduced, or the difference must be
the RULES.md kong ruling (three or more kongs). Examples the page marks 略 (omitted) have no hand.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from pathlib import Path

import pytest
from fanscan.scoring import parse_hand, score
from fanscan.scoring.crosscheck import EXPLAINED, VALUES, ZH_TO_ID, classify_difference

XML = Path(__file__).parent / "fixtures" / "mcr" / "score_definition.xml"
WIND_ZH = {"东": "E", "南": "S", "西": "W", "北": "N"}
ALIASES = {"嵌张": "closed_wait", "单钓": "pair_wait", "单钓将": "pair_wait", "独听・边张": "edge_wait",
           "坎张": "closed_wait", "Two Dragons Pungs": "two_dragon_pungs"}
HAND_RE = re.compile(
    r"^(?P<melds>(?:\[[^\]]+\]\s*)*?)\s*\[(?P<standing>[^\]]+)\](?P<how>自摸|点和)\[(?P<win>[^\]]+)\]$")


def _examples() -> list[tuple[str, str, Counter]]:
    text = html.unescape(XML.read_text(encoding="utf-8")).replace("<br/>", "\n").replace("\xa0", " ")
    out = []
    for m in re.finditer(r"【牌例\d*】([^\n]*)\n([^\n]+)\n计：([^\n<]+)", text):
        head, hand_line, fans = m.group(1), m.group(2).strip(), m.group(3).strip().rstrip("。")
        hm = HAND_RE.match(hand_line)
        if not hm:
            continue
        melds = []
        for meld in re.findall(r"\[([^\]]+)\]", hm.group("melds")):
            if meld.startswith("_"):
                inner = meld.strip("_")
                tile = inner[0] + (inner[-1] if inner[-1] in "mps" else "")
                melds.append(f"[{tile[0] * 4}{tile[1:]}]")
            else:
                melds.append(f"[{meld},1]")
        prevalent = seat = "E"
        cm = re.search(r"(.)风圈(.)家", head)
        if cm:
            prevalent, seat = WIND_ZH[cm.group(1)], WIND_ZH[cm.group(2)]
        self_drawn = "1" if hm.group("how") == "自摸" else "0"
        gb = "".join(melds) + hm.group("standing") + hm.group("win") + f"|{prevalent}{seat}{self_drawn}000"
        expected: Counter = Counter()
        for item in fans.split("、"):
            name, _, times = item.partition("×")
            name = name.strip()
            expected[ZH_TO_ID.get(name) or ALIASES[name]] += int(times) if times else 1
        out.append((hand_line, gb, expected))
    return out


EXAMPLES = _examples()


def test_examples_found() -> None:
    assert len(EXAMPLES) >= 100


@pytest.mark.parametrize(("original", "gb", "expected"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_worked_example(original: str, gb: str, expected: Counter) -> None:
    hand = parse_hand(gb)
    result = score(hand)
    got = Counter({f.id: f.count for f in result.fans})
    if got != expected:
        # valued with our table: an equal total is a tie between equal choices (the page itself says so for
        # its Two Terminal Chows example), otherwise it must be a kong ruling
        expected_total = sum(VALUES[k] * n for k, n in expected.items())
        category = classify_difference(hand, got, expected, result.total, expected_total)
        assert category in EXPLAINED, (got - expected, expected - got)
