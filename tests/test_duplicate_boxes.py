"""Duplicate boxes and five of a kind (issue 20 item 11): the proposal never reads more than four tiles of a kind, and
the rules drop a box lying over another (one tile found twice) before they re-read a clear tile as something else.
Synthetic geometries, plus the samples that showed it through the shipped models."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from fanscan.vision.group import NONE, ObservedTile, choose_reading, duplicate_evidence
from hand_layouts import TILE_W, lay_row, tiles_of

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples"
MODELS = [ROOT / "models" / name for name in ("tile_detector.onnx", "tile_classifier.onnx")]


def shifted_copy(tile: ObservedTile, dx: float, candidates) -> ObservedTile:
    """A second box over `tile`, `dx` to the right: the same tile found twice."""
    quad = tuple((x + dx, y) for x, y in tile.quad)
    return ObservedTile(quad, tile.orientation, tuple(candidates))


def counts(reading) -> Counter:
    return Counter(t for t in reading.tiles if t != NONE)


def test_boxes_over_boxes_and_part_tiles_show_as_duplicates():
    row = lay_row(tiles_of("123m456m"))
    assert duplicate_evidence(row) == [0.0] * 6
    # A copy a third of a tile to the right: two thirds over tile 3, under the 0.3 bar over tile 4 ((10 - 2) / 30).
    twice = [*row, shifted_copy(row[2], TILE_W / 3, (("3m", 0.9),))]
    evidence = duplicate_evidence(twice)
    assert evidence[:2] == [0.0, 0.0] and evidence[3:6] == [0.0, 0.0, 0.0]
    assert evidence[2] == pytest.approx(2 / 3) and evidence[6] == pytest.approx(2 / 3)
    # A box of a third of a tile among whole ones is a piece of a tile.
    x0, y0 = row[5].quad[0]
    corners = ((x0 + 40, y0), (x0 + 50, y0), (x0 + 50, y0 + 40), (x0 + 40, y0 + 40))
    piece = ObservedTile(corners, "upright", (("6m", 0.9),))
    assert duplicate_evidence([*row, piece])[-1] == pytest.approx(1 - 1 / 3)


def test_six_white_dragon_boxes_for_three_tiles_never_read_six_of_a_kind():
    # Three white dragons, each found twice (the second box half over the first), every box read P at 0.95 and
    # `none` barely: no reading within the search has four or fewer P. The guarantee reads the surplus as `none`.
    row = lay_row([*tiles_of("345p999p"), "P", "P", "P", *tiles_of("SSSFF")])
    dragons = [row[6], row[7], row[8]]
    copies = [shifted_copy(t, TILE_W / 3, (("P", 0.95), ("none", 1e-9))) for t in dragons]
    grouping = choose_reading([*row, *copies])
    best = grouping.best
    assert counts(best)["P"] <= 4
    assert sum(t == NONE for t in best.tiles) >= 2
    # The proposal is the most probable legal reading; the rules' suggestion is the hand once the three duplicates
    # are dropped: 345p 999p PPP SSS FF.
    complete = next(r for r in (best, grouping.suggestion) if r is not None and r.status == "complete")
    assert sorted(t for t in complete.tiles if t != NONE) == sorted(tiles_of("345p999pPPPSSSFF"))


def test_five_of_a_kind_with_no_legal_reading_in_the_search_reads_the_weakest_as_none_and_says_so():
    # Five clear 1m boxes the classifier is sure of (no `none`, no runner-up within the search): no reading the
    # search reaches has four or fewer 1m. The weakest 1m (0.9) is read `none`, and the grouping says so.
    specs = [*([(("1m", 1.0),)] * 4), (("1m", 0.9), ("7m", 1e-9)), *tiles_of("234p567p99s")]
    grouping = choose_reading(lay_row(specs))
    assert counts(grouping.best)["1m"] == 4 and grouping.best.tiles[4] == NONE
    assert any("more than four of a kind" in w and "1m box read as none" in w for w in grouping.warnings)


def test_the_rules_drop_a_duplicate_box_rather_than_reread_a_clear_tile_as_a_flower():
    # hand_018's shape: 222p 333p 123m 777s PP where one P is found twice. The classifier reads all three P boxes as
    # P; a complete reading must lose one P: drop the box half over another (the duplicate), not read a 7s (0.96)
    # as a flower (0.0074).
    row = lay_row([*tiles_of("222p333p123m"), (("7s", 0.96), ("h", 0.0074)), "7s", "7s", "P", "P"])
    duplicate = shifted_copy(row[-1], TILE_W / 3, (("P", 0.95), ("none", 0.0069)))
    grouping = choose_reading([*row, duplicate])
    readings = [grouping.best, *([grouping.suggestion] if grouping.suggestion else [])]
    complete = [r for r in readings if r.status == "complete"]
    assert complete, [r.status for r in readings]
    assert complete[0].tiles[9] == "7s"
    assert NONE in (complete[0].tiles[-1], complete[0].tiles[-2])


@pytest.mark.skipif(not all(m.exists() for m in MODELS), reason="needs the shipped models")
@pytest.mark.parametrize("name", ["hand_004", "hand_009", "hand_018"])
def test_the_samples_propose_at_most_four_of_a_kind_and_the_labelled_white_dragons(name):
    from fanscan.vision.pipeline import default_pipeline

    labelled = Counter(json.loads((SAMPLES / "manifest.json").read_text(encoding="utf-8"))["photos"][name]["tiles"])
    proposal = default_pipeline().propose(SAMPLES / "images" / f"{name}.jpg")
    read = Counter(t.tile for t in proposal.tiles if t.tile != NONE)
    assert max(read.values()) <= 4
    assert read["P"] == labelled["P"]


@pytest.mark.skipif(not all(m.exists() for m in MODELS), reason="needs the shipped models")
def test_with_the_split_boxes_left_in_the_rules_still_drop_duplicates_not_clear_tiles():
    # The detector's own join of split tiles switched off: the grouping alone must hold (issue 20 item 11).
    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.detect import TileDetector
    from fanscan.vision.pipeline import Pipeline

    detector = TileDetector(threads=1)
    detector.merge_splits = False
    pipeline = Pipeline(detector, TileClassifier(threads=1))
    for name in ("hand_004", "hand_009", "hand_018"):
        proposal = pipeline.propose(SAMPLES / "images" / f"{name}.jpg")
        assert max(Counter(t.tile for t in proposal.tiles if t.tile != NONE).values()) <= 4, name
        suggestion = proposal.rules_suggestion
        if suggestion is not None:  # what the rules change is a white-dragon box to `none`, nothing else
            assert {(old, new) for _, old, new in suggestion.changes} == {("P", NONE)}, name
