"""benchmarks/evaluate.py: photo groups from the labelled boxes, and the measures from per-photo counts (precision
counts every kept detection, face-down ones too; whole hands three ways); the script runs on a small split."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "data" / "mini_yolo" / "train"
MODELS = [ROOT / "models" / "tile_detector.onnx", ROOT / "models" / "tile_classifier.onnx"]


@pytest.fixture
def evaluate(monkeypatch):
    # The benchmark scripts import each other as siblings (as when run as `python benchmarks/x.py`).
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import evaluate

    return evaluate


def boxes(count: int, width: float, height: float) -> np.ndarray:
    return np.array([[i * width, 0, (i + 1) * width, height] for i in range(count)], np.float64).reshape(-1, 4)


def test_groups_come_from_the_labelled_boxes(evaluate):
    assert evaluate.photo_group(boxes(14, 30, 40)) == "hand rows"
    assert evaluate.photo_group(boxes(36, 30, 40)) == "table photos"
    assert evaluate.photo_group(boxes(5, 30, 40)) == "few tiles"
    assert evaluate.photo_group(boxes(14, 10, 80)) == "squeezed photos"  # 8x taller than wide
    assert evaluate.photo_group(boxes(0, 1, 1)) == "few tiles"


def test_measures_from_counts(evaluate):
    result = evaluate.PhotoResult
    photos = [
        # 14 labelled, 16 detections: 1 read `none`, 15 kept of which 13 match (2 unmatched: a back and a stray).
        result("a.jpg", "hand rows", 14, detections=16, kept=15, matched_raw=13, matched=13, read_right_top1=12,
               read_right_proposed=13, crops=14, crops_right=14, hand=True, exact=True, exact_classifier=False,
               exact_as_scored=True, overrides=[5]),
        result("b.jpg", "table photos", 30, detections=30, kept=30, matched_raw=29, matched=29, read_right_top1=29,
               read_right_proposed=29, crops=30, crops_right=29),
        result("c.jpg", "hand rows", 14, hand=True, labels="unrepairable"),  # whole hand only
        # A discard found beside the hand and set aside: not exact as tiles, exact as the hand scored.
        result("d.jpg", "hand rows", 14, hand=True, labels="unrepairable", exact_as_scored=True),
    ]
    measures = evaluate.summarise(photos)
    assert measures["labelled_tiles"] == 44 and measures["photos_without_box_measures"] == 2
    assert measures["recall"] == round(42 / 44, 4)
    assert measures["precision"] == round(42 / 45, 4)
    assert measures["precision_raw"] == round(42 / 46, 4)
    assert measures["end_to_end_accuracy"] == round(41 / 44, 4)
    assert measures["classifier_top1_labelled"] == round(43 / 44, 4)
    assert (measures["hand_photos"], measures["hands_exact"], measures["hands_exact_classifier"]) == (3, 1, 0)
    assert (measures["hands_as_scored"], measures["whole_hand_as_scored"]) == (2, round(2 / 3, 4))
    assert (measures["hands_with_override"], measures["overrides_made_exact"], measures["overrides_made_wrong"]) \
        == (1, 1, 0)


def test_tiles_set_aside_on_the_table_are_in_no_scored_hand(evaluate):
    from fanscan.vision.proposal import TABLE, HandProposal, ProposedTile

    def tile(number: int, reading: str, role: str = "standing") -> ProposedTile:
        box = [number * 30.0, 0.0, number * 30.0 + 28, 40.0]
        quad = [[box[0], 0.0], [box[2], 0.0], [box[2], 40.0], [box[0], 40.0]]
        return ProposedTile(number, quad, box, "up", 0.9, reading, 0.9, role=role)

    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "C", "C"]
    tiles = [tile(n, r) for n, r in enumerate(hand, start=1)] + [tile(15, "9m", TABLE)]
    proposal = HandProposal(image=None, image_size=(640, 480), tiles=tiles, melds=[], hand="", flowers=[],
                            status="complete")
    assert evaluate.scored_readings(proposal) == hand
    expected = evaluate.face_multiset(hand)
    assert evaluate.face_multiset([t.tile for t in tiles]) != expected  # as whole_hand_exact counts it
    assert evaluate.face_multiset(evaluate.scored_readings(proposal)) == expected


def test_squeeze_factors_are_fixed_and_in_range(evaluate):
    factors = [evaluate.squeeze_factors(f"photo_{i}.jpg") for i in range(50)]
    assert factors == [evaluate.squeeze_factors(f"photo_{i}.jpg") for i in range(50)]
    assert all(sorted(f)[0] == 1.0 and 3.0 <= max(f) <= 8.0 for f in factors)
    assert {f[0] == 1.0 for f in factors} == {True, False}  # both axes occur


@pytest.mark.skipif(not all(m.exists() for m in MODELS), reason="needs the shipped models")
def test_the_script_and_its_wrapper_agree_on_a_small_split(tmp_path):
    full, flat = tmp_path / "full.json", tmp_path / "flat.json"
    for script, out in (("evaluate.py", full), ("eval_detection.py", flat)):
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--data", str(MINI), "--json",
                               str(out)], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    everything, summary = json.loads(full.read_text()), json.loads(flat.read_text())
    assert everything["all"]["photos"] == 3 and len(everything["per_photo"]) == 3
    for key in ("recall", "precision", "end_to_end_accuracy", "whole_hand_exact"):
        assert summary[key] == everything["all"][key]
    labelled = sum(p["labelled"] for p in everything["per_photo"] if p["labels"] != "unrepairable")
    assert everything["all"]["labelled_tiles"] == labelled
    assert len(summary["misses"]) == sum(len(p["misses"]) for p in everything["per_photo"])


def test_all_sets_side_by_side_in_one_markdown_table(evaluate):
    result = {"sets": {
        "dev": {"all": {"photos": 2, "labelled_tiles": 28, "recall": 0.5, "precision": 1.0,
                        "end_to_end_accuracy": 0.25, "end_to_end_as_proposed": 0.25,
                        "classifier_top1_labelled": 0.75, "whole_hand_exact": None}},
        "riichi-table-leomiura": {"missing": "../shared/data/riichi-table-leomiura", "note": ""},
    }}
    lines = evaluate.markdown_table(result).splitlines()
    assert len(lines) == 4 and lines[0].startswith("| set | photos | labelled tiles | recall | precision")
    assert lines[2] == "| dev | 2 | 28 | 0.500 | 1.000 | 0.250 | 0.250 | 0.750 | — | — |"
    assert lines[3].startswith("| riichi-table-leomiura | — |")


def test_all_reports_a_missing_set_and_measures_the_others(evaluate, tmp_path):
    from fanscan.vision.splits import DEV

    class NoPipeline:
        pass

    measured = []
    evaluate_one = evaluate.evaluate

    def fake_evaluate(folder, pipeline, split, limit, progress, squeeze, turned_copies):
        measured.append((folder.name, split, squeeze))
        return {"data": str(folder), "split": split or "all", "all": {"recall": 1.0, "precision": 1.0},
                "groups": {}, "seconds": 0.0, "per_photo": []}

    pipeline = NoPipeline()
    pipeline.detector = type("D", (), {"path": tmp_path / "d.onnx"})()
    (tmp_path / "here").mkdir()
    sets = (evaluate.DevelopmentSet("here", "here", DEV, squeeze=True), evaluate.DevelopmentSet("gone", "gone"))
    try:
        evaluate.evaluate = fake_evaluate
        result = evaluate.evaluate_all(pipeline, tmp_path, sets=sets)
    finally:
        evaluate.evaluate = evaluate_one
    assert measured == [("here", DEV, True)]
    assert result["sets"]["here"]["all"]["recall"] == 1.0 and "missing" in result["sets"]["gone"]


def test_all_builds_a_set_by_its_builder_whatever_its_name(evaluate, tmp_path, monkeypatch):
    import close_ups

    built, large = [], []
    monkeypatch.setattr(close_ups, "SOURCES", ("here",))
    monkeypatch.setattr(close_ups, "build", lambda folder, root: built.append((folder.name, root)))
    monkeypatch.setattr(evaluate, "evaluate", lambda folder, *a, **k: {
        "data": str(folder), "split": "all", "all": {"recall": 0.5, "precision": 0.5}, "groups": {}, "seconds": 0.0,
        "per_photo": []})
    monkeypatch.setattr(evaluate, "large_tiles_row", lambda pipeline, folder, limit, note: large.append(folder.name)
                        or {"all": {"recall": 0.25, "precision": 0.75}})
    pipeline = type("P", (), {"detector": type("D", (), {"path": tmp_path / "d.onnx"})()})()
    (tmp_path / "here").mkdir()
    sets = (evaluate.DevelopmentSet("mine", "here", built_by=evaluate.CLOSE_UPS_BUILDER),
            evaluate.DevelopmentSet("big ones", "here", built_by=evaluate.LARGE_TILES_BUILDER),
            evaluate.DevelopmentSet("plain", "here"))
    rows = evaluate.evaluate_all(pipeline, tmp_path, sets=sets)["sets"]
    assert built == [("close-ups", tmp_path)] and large == ["here"]
    assert rows["mine"]["data"] == "built by benchmarks/close_ups.py" and rows["plain"]["data"].endswith("here")
    assert rows["big ones"]["all"]["recall"] == 0.25
    with pytest.raises(ValueError, match=r"built_by 'elsewhere\.py'"):
        evaluate.DevelopmentSet("odd", "here", built_by="elsewhere.py")


def test_a_close_up_cut_never_goes_through_another_tile(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import close_ups

    image = np.zeros((200, 400, 3), np.uint8)
    row = np.array([[10 + 42 * k, 50, 50 + 42 * k, 110] for k in range(5)], np.float64)
    cut = close_ups.cut_run(image, row, [0, 1, 2, 3, 4], [1, 2])
    # The margin (6 % of 60 px, rounded out to whole pixels) reaches 2 px into each neighbour: 5 % of it, no more.
    assert cut is not None and cut.classes == [1, 2]
    assert cut.boxes[:, 0].min() == pytest.approx(52 - 48) and cut.pixels.shape[:2] == (68, 90)
    crowded = row.copy()
    crowded[0] = [30, 50, 70, 110]  # reaches 18 px under tile 2: a cut around tile 2 holds 55 % of it
    assert close_ups.cut_run(image, crowded, [0, 1, 2, 3, 4], [1]) is None


def test_the_large_tiles_are_one_row_a_case_a_photo(evaluate, monkeypatch, tmp_path):
    import eval_large_tiles as large

    # Two cases: one tile found and read right; two tiles, one found and misread, plus a false box.
    results = [large.CaseResult("crop", "a", 0.6, 1, detections=1, kept=1, matched_raw=1, matched=1, read_right=1),
               large.CaseResult("white", "b", 0.3, 2, detections=2, kept=2, matched_raw=1, matched=1)]
    monkeypatch.setattr(large, "load_sources", lambda data: ["a", "b"])
    monkeypatch.setattr(large, "build_cases", lambda sources, count, seed: [0, 1])
    monkeypatch.setattr(large, "evaluate_case", lambda pipeline, case: results[case])
    row = evaluate.large_tiles_row(object(), tmp_path, None, "note")
    assert row["all"]["photos"] == 2 and row["all"]["labelled_tiles"] == 3
    assert (row["all"]["recall"], row["all"]["precision"], row["all"]["end_to_end_accuracy"]) == \
        (round(2 / 3, 4), round(2 / 3, 4), round(1 / 3, 4))
    assert [p["read_right_top1"] for p in row["per_photo"]] == [1, 0]
    line = evaluate.markdown_table({"sets": {"large tiles": row}}).splitlines()[2]
    assert line.startswith("| large tiles | 2 | 3 | 0.667 | 0.667 | 0.333 | — |")


def test_the_close_up_box_calibration_keeps_every_set_and_then_reads_best(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import calibrate_close_up_boxes as calibrate

    def point(sx, sy, rows):
        sets = {name: dict(zip(calibrate.MEASURES, row, strict=True)) for name, row in rows.items()}
        return {"box_scale_x": sx, "box_scale_y": sy, "sets": sets}

    base = point(0.95, 1.1, {"a": (0.90, 0.80, 0.70), "b": (0.50, 0.50, 0.50)})
    better_read_loses_b = point(0.9, 1.0, {"a": (0.95, 0.85, 0.90), "b": (0.40, 0.50, 0.55)})
    within_slack = point(0.9, 1.05, {"a": (0.899, 0.799, 0.72), "b": (0.50, 0.50, 0.51)})
    same_read_further = point(0.8, 0.9, {"a": (0.899, 0.799, 0.72), "b": (0.50, 0.50, 0.51)})
    grid = [base, better_read_loses_b, same_read_further, within_slack]
    # b's recall falls 0.1: not eligible, however well it reads; of the two equal reads the nearer one.
    assert calibrate.choose(grid, (0.95, 1.1), base["sets"]) is within_slack
    assert calibrate.choose([base], (0.95, 1.1), base["sets"]) is base
    assert not calibrate.eligible(point(1, 1, {"a": (0.897, 0.80, 0.9), "b": (0.5, 0.5, 0.5)})["sets"], base["sets"])


@pytest.mark.parametrize("bar", ["1", "0.5", "nan", "big"])
def test_an_outsized_box_bar_that_is_no_ratio_over_one_is_refused_before_any_model_loads(evaluate, bar, capsys):
    with pytest.raises(SystemExit) as stopped:
        evaluate.main(["--all", "--outsized-boxes", bar])
    assert stopped.value.code == 2
    assert f"{bar!r} is no ratio of long sides over 1" in capsys.readouterr().err


def test_the_outsized_box_bar_reaches_the_pipeline_and_can_be_switched_off(evaluate):
    assert evaluate.make_pipeline(outsized_boxes=2.5).outsized_boxes == 2.5
    assert evaluate.make_pipeline(outsized_boxes=None).outsized_boxes is None
