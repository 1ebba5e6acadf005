"""HandProposal: built from a grouping, JSON round trip, warnings in words."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.scoring.notation import format_hand
from fanscan.vision import group
from fanscan.vision.group import choose_reading
from fanscan.vision.proposal import DROPPED, EMPTY, MELD, WINNING, HandProposal, build_proposal, revise
from hand_layouts import lay_row, tiles_of


def _proposal(specs, **kwargs) -> HandProposal:
    tiles = lay_row(specs, **kwargs)
    return build_proposal(tiles, choose_reading(tiles), "photo.jpg", (640, 480), timings_ms={"group": 1.5})


def test_json_round_trip_keeps_everything():
    specs = [{"tile": "3m", "sideways": True}, "4m", "5m",
             {"tile": "1p", "gap_before": 20}, *tiles_of("23p789s45p"), (("6p", 0.55), ("7p", 0.41)), "E",
             (("none", 0.9), ("C", 0.1)), {"tile": "E", "gap_before": 25}]
    proposal = _proposal(specs)
    text = proposal.to_json(indent=1)
    again = HandProposal.from_json(text)
    assert again == proposal
    assert again.to_dict() == json.loads(text)
    assert proposal.melds[0].kind == "chow" and proposal.melds[0].tile_numbers == [1, 2, 3]
    assert proposal.tiles[0].role == MELD and proposal.tiles[-1].role == WINNING
    assert proposal.tiles[-2].role == DROPPED
    assert proposal.hand.startswith("[345m,1]") and proposal.hand.endswith("E")


def test_warnings_name_uncertain_tiles_and_missing_ones():
    specs = [*tiles_of("123m45p"), (("6p", 0.55), ("7p", 0.41), ("2s", 0.04)), *tiles_of("789sEEE1p")]
    proposal = _proposal(specs)
    assert proposal.status == "ready"
    assert "tile 6 uncertain: 6p 0.55 / 7p 0.41" in proposal.warnings
    assert any(w.startswith("13 tiles found, a finished hand shows 14: one may be hidden") for w in proposal.warnings)
    assert [t.number for t in proposal.uncertain_tiles(0.8)] == [6]


def test_a_reading_changed_by_the_rules_is_said_so(monkeypatch):
    monkeypatch.setattr(group, "RULES_MARGIN", math.log(1000.0))  # the rules may overrule the classifier
    specs = [*tiles_of("123m45p"), (("7p", 0.55), ("6p", 0.41)), *tiles_of("789sEEE1p"), "1p"]
    proposal = _proposal(specs)
    assert proposal.status == "complete" and proposal.tiles[5].tile == "6p"
    assert any("tile 6 read as 6p" in w and "preferred 7p" in w for w in proposal.warnings)
    assert proposal.alternatives and proposal.alternatives[-1].changes == [(6, "6p", "7p")]
    assert proposal.alternatives[-1].relative_probability == pytest.approx(0.55 / 0.41, rel=1e-3)


def test_tile_numbers_run_top_row_first_then_left_to_right():
    bottom = lay_row(tiles_of("456p"), y=200)
    top = lay_row(tiles_of("123m"), y=50)
    tiles = bottom + top
    proposal = build_proposal(tiles, choose_reading(tiles), None, (100, 100))
    assert [t.tile for t in proposal.tiles] == ["1m", "2m", "3m", "4p", "5p", "6p"]
    assert [t.number for t in proposal.tiles] == [1, 2, 3, 4, 5, 6]


def test_no_tiles_is_an_empty_proposal_with_a_warning():
    proposal = build_proposal([], choose_reading([]), "cat.jpg", (10, 10))
    assert proposal.status == EMPTY and proposal.hand == "" and proposal.tiles == []
    assert proposal.warnings == ["no tiles found in this photo"]
    assert HandProposal.from_dict(proposal.to_dict()) == proposal


@pytest.mark.parametrize("text", ["[]", '{"tiles": []}', '{"image_size": [1], "status": "x"}', "not json"])
def test_a_broken_proposal_file_is_a_fanscan_error(text):
    with pytest.raises(FanscanError):
        HandProposal.from_json(text)


def test_revise_rereads_the_hand_around_a_fixed_tile():
    specs = [*tiles_of("123m456p789s11pEE"), (("N", 0.9995), ("E", 0.0005))]
    proposal = _proposal(specs)
    assert proposal.status == "incomplete" and proposal.hand.endswith("N")
    fixed = revise(proposal, {14: "E"})
    assert fixed.status == "complete" and fixed.hand == "123m11456p789sEEE"
    assert sorted(fixed.hand_tiles()) == sorted(tiles_of("123m456p789s11pEEE"))
    assert fixed.tiles[13].tile == "E" and fixed.tiles[13].confidence == 1.0
    assert not any("do not form a winning hand" in w for w in fixed.warnings)
    with pytest.raises(FanscanError, match="no tile 15"):
        revise(proposal, {15: "E"})
    with pytest.raises(FanscanError, match="not a tile id"):
        revise(proposal, {3: "Q"})


def test_warnings_use_the_proposal_tile_numbers():
    # The second row is given first: its tiles are numbered after the first row's.
    row2 = lay_row([*tiles_of("456p789s11pEE"), "back", "E"], y=200)
    row1 = lay_row(tiles_of("123m"), y=50)
    tiles = row2 + row1
    proposal = build_proposal(tiles, choose_reading(tiles), None, (500, 300))
    assert any(w.startswith("tile 14 face down") for w in proposal.warnings)
    assert proposal.tiles[13].role == "unused"


def test_only_face_down_or_non_tiles_is_an_empty_proposal():
    tiles = lay_row([(("back", 0.6), ("P", 0.3)), (("none", 0.7), ("1m", 0.3))])
    proposal = build_proposal(tiles, choose_reading(tiles), "shape.jpg", (640, 480))
    assert proposal.status == EMPTY and proposal.hand == ""
    assert "no tiles found in this photo" in proposal.warnings
    assert not any("0 tiles found" in w for w in proposal.warnings)


def test_alternatives_making_the_same_hand_are_listed_once():
    specs = [*tiles_of("34p"), (("2p", 0.5), ("5p", 0.45), ("9s", 0.05)), *tiles_of("123m789sEEE1p"), "1p"]
    tiles = lay_row(specs)
    grouping = choose_reading(tiles)
    runner_up = grouping.alternatives[0]
    # Two readings that make the same hand (as when either of two equal tiles is read otherwise).
    doubled = replace(grouping, alternatives=(runner_up, replace(runner_up, cost=runner_up.cost + 1)))
    proposal = build_proposal(tiles, doubled, None, (640, 480))
    assert [a.hand for a in proposal.alternatives] == [format_hand(runner_up.hand())]
    assert proposal.alternatives[0].relative_probability == pytest.approx(0.45 / 0.5, rel=1e-3)
