"""The worked examples of score_definition.xml (tests/fixtures/mcr, MIT): "【牌例】 hand 计：fans".

Each example is converted to GB notation and scored under the MCR variant "mil" (the Green Book values the page
uses). The total must be the page's, valued with the page's own fan values ("计88番" in each definition, not our
table); the fan list must be reproduced too, except where the page pairs equal 1-fan fans otherwise (its Two
Terminal Chows example: same total). Examples the page marks 略 (omitted) have no hand.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from pathlib import Path

import pytest
from fanscan.scoring import parse_hand, score
from fanscan.scoring.crosscheck import ZH_TO_ID, fan_counts

XML = Path(__file__).parent / "fixtures" / "mcr" / "score_definition.xml"
WIND_ZH = {"东": "E", "南": "S", "西": "W", "北": "N"}
ALIASES = {"嵌张": "closed_wait", "单钓": "pair_wait", "单钓将": "pair_wait", "独听・边张": "edge_wait",
           "坎张": "closed_wait", "Two Dragons Pungs": "two_dragon_pungs", "独听・嵌张": "closed_wait",
           "独听・单钓": "pair_wait"}
# Values the page's definitions do not state in words: the Green Book's (九莲宝灯 88, 平和 2) and the reference
# engines' 明暗杠 5 (one melded + one concealed kong).
UNSTATED_VALUES = {"nine_gates": 88, "all_chows": 2, "mixed_kongs": 5}
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


def _page_values() -> dict[str, int]:
    """Fan id -> value as the page states it in each definition ("大四喜 Big Four Winds：... 计88番")."""
    text = html.unescape(XML.read_text(encoding="utf-8"))
    values = dict(UNSTATED_VALUES)
    for entry in re.findall(r"<string>(.*?)</string>", text, re.S):
        m = re.match(r"(\S+) [^：]*：.*?计(\d+)番", entry, re.S)
        if m and (ZH_TO_ID.get(m.group(1)) or ALIASES.get(m.group(1))):
            values[ZH_TO_ID.get(m.group(1)) or ALIASES[m.group(1)]] = int(m.group(2))
    return values


EXAMPLES = _examples()
PAGE_VALUES = _page_values()


def test_examples_found() -> None:
    assert len(EXAMPLES) >= 100


def test_page_values_found() -> None:
    assert len(PAGE_VALUES) >= 75 and PAGE_VALUES["big_four_winds"] == 88 and PAGE_VALUES["two_concealed_kongs"] == 6


@pytest.mark.parametrize(("original", "gb", "expected"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_worked_example(original: str, gb: str, expected: Counter) -> None:
    result = score(parse_hand(gb), variant="mil")
    page_total = sum(PAGE_VALUES[k] * n for k, n in expected.items())
    assert result.total == page_total
    got = fan_counts(result)
    if got != expected:  # equal 1-fan fans paired otherwise (same total, checked above)
        assert all(PAGE_VALUES[k] == 1 for k in (got - expected) + (expected - got)), (got - expected, expected - got)
