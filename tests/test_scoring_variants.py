"""MCR rule variants (`--variant`, `score(..., variant=...)`): the seed's rulings (default) and the Green Book /
MIL values. Expected totals are summed by hand from seed 001 / 003 (seed) and the Green Book (mil)."""

from __future__ import annotations

import json

import pytest
from fanscan.scoring import FanscanError, score
from fanscan.scoring.mcr import MIL, SEED, MCRVariant

from fanscan.cli import main

TWO_CONCEALED_KONGS = "[1111m][2222p]345s678sCC"


@pytest.mark.parametrize(("hand", "variant", "total"), [
    # Two Concealed Kongs 8 | 6; Concealed Hand 2; Short Straight 345s-678s 1; Pung of Terminals 1111m 1; Pair Wait C 1
    (TWO_CONCEALED_KONGS, "seed", 8 + 2 + 1 + 1 + 1),
    (TWO_CONCEALED_KONGS, "mil", 6 + 2 + 1 + 1 + 1),
    # one melded + one concealed kong: Mixed Kongs 6 | 明暗杠 5; Short Straight 1; Pung of Terminals 1; Pair Wait 1
    ("[1111m,1][2222p]345s678sCC", "seed", 6 + 1 + 1 + 1),
    ("[1111m,1][2222p]345s678sCC", "mil", 5 + 1 + 1 + 1),
    # three kongs (one concealed) and a concealed pung, self-drawn on the pair:
    # seed 003: Three Kongs 32 + Concealed Kong 2 + Two Concealed Pungs 2 (1111m kong + 999m pung);
    # Green Book: Three Kongs 32 + Two Concealed Pungs 2 (no kong fan beside Three Kongs).
    # Both: All Pungs 6, Pung of Terminals 1111m 999m 2, One Voided Suit 1, No Honor Tiles 1, Pair Wait 1, Self Drawn 1
    ("[1111m][3333p,1][5555p,2]999m7p7p|EE1000", "seed", 32 + 2 + 2 + 6 + 2 + 1 + 1 + 1 + 1),
    ("[1111m][3333p,1][5555p,2]999m7p7p|EE1000", "mil", 32 + 2 + 6 + 2 + 1 + 1 + 1 + 1),
])
def test_variant_totals(hand: str, variant: str, total: int) -> None:
    result = score(hand, variant=variant)
    assert result.total == total
    assert result.variant == variant and result.to_dict()["variant"] == variant


def test_default_is_the_seed_variant_and_a_config_object_is_accepted() -> None:
    assert score(TWO_CONCEALED_KONGS).variant == "seed"
    assert score(TWO_CONCEALED_KONGS, variant=SEED).total == 13
    assert score(TWO_CONCEALED_KONGS, variant=MIL).total == 11
    house = MCRVariant("house", two_concealed_kongs=7, mixed_kongs=5, kong_series="green-book")
    assert score(TWO_CONCEALED_KONGS, variant=house).total == 7 + 2 + 1 + 1 + 1
    with pytest.raises(ValueError, match="kong_series"):
        MCRVariant("bad", kong_series="chart")


@pytest.mark.parametrize(("rules", "variant", "message"), [
    ("mcr", "green", "unknown MCR variant 'green'"),
    ("hk", "mil", "rule set hk has no variants"),
])
def test_unknown_variant_is_a_user_error(rules: str, variant: str, message: str) -> None:
    with pytest.raises(FanscanError, match=message):
        score(TWO_CONCEALED_KONGS, rules=rules, variant=variant)


def test_cli_states_the_variant(capsys) -> None:
    assert main(["score", TWO_CONCEALED_KONGS, "--variant", "mil"]) == 0
    out = capsys.readouterr().out
    assert "(rules: mcr, variant: mil)" in out and "Total  11 fan" in out
    assert main(["score", TWO_CONCEALED_KONGS, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["variant"] == "seed" and data["total"] == 13
    assert main(["score", TWO_CONCEALED_KONGS, "--rules", "hk"]) == 0
    assert "variant" not in capsys.readouterr().out.split("\n")[0]  # HK has no variants


def test_photo_and_batch_accept_the_flag(capsys) -> None:
    from fanscan.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["photo", "x.jpg", "--variant", "mil"]).variant == "mil"
    assert parser.parse_args(["batch", "photos", "--variant", "mil"]).variant == "mil"


def test_rules_listing_shows_a_variant_values(capsys) -> None:
    assert main(["rules", "--rules", "mcr", "--variant", "mil", "--json"]) == 0
    (listing,) = json.loads(capsys.readouterr().out)
    values = {item["id"]: item["value"] for item in listing["items"]}
    assert listing["variant"] == "mil" and values["two_concealed_kongs"] == 6 and values["mixed_kongs"] == 5
    assert main(["rules", "--rules", "mcr", "--json"]) == 0
    values = {item["id"]: item["value"] for item in json.loads(capsys.readouterr().out)[0]["items"]}
    assert values["two_concealed_kongs"] == 8 and values["mixed_kongs"] == 6
