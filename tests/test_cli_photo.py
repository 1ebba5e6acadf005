"""`fanscan photo` and `fanscan batch` on the bundled samples: JSON, the confirm prompt through stdin, bad input.

Most tests replace the two learned models with the samples' own labels (`LabelPipeline`: boxes from the label file,
the labelled tile as a near-certain reading), so the command, grouping and scoring are tested without the models;
`test_real_models_*` run the shipped models when they are present.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from fanscan.scoring import score
from fanscan.vision import pipeline as pipeline_module
from fanscan.vision.dataset_classes import tile_id_for
from fanscan.vision.group import ObservedTile, choose_reading
from fanscan.vision.proposal import build_proposal
from fanscan.vision.yolo_data import read_class_names, read_labels
from test_load import bomb_png

from fanscan.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "datasets" / "samples"
MANIFEST = json.loads((SAMPLES / "manifest.json").read_text(encoding="utf-8"))["photos"]
MODELS = [ROOT / "models" / "tile_detector.onnx", ROOT / "models" / "tile_classifier.onnx"]


class LabelPipeline:
    """Stands in for the detector and classifier: the photo's label file says where the tiles are and what."""

    names = read_class_names(SAMPLES / "data.yaml")

    def __init__(self, profile=None) -> None:  # called as `default_pipeline(profile)` is
        pass

    def propose(self, loaded):
        height, width = loaded.image.shape[:2]
        tiles = []
        for box in read_labels(SAMPLES / "labels" / f"{Path(loaded.path).stem}.txt"):
            x0, y0, x1, y1 = (v / loaded.scale for v in box.to_pixels(width, height))
            tile = tile_id_for(self.names[box.class_index])
            tiles.append(ObservedTile(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), "upright",
                                      ((tile, 0.98), ("none", 0.02))))
        size = (round(width / loaded.scale), round(height / loaded.scale))
        return build_proposal(tiles, choose_reading(tiles), str(loaded.path), size, timings_ms={"total": 1.0})


@pytest.fixture
def labels_as_models(monkeypatch):
    monkeypatch.setattr(pipeline_module, "default_pipeline", LabelPipeline)


def sample(name: str) -> str:
    return str(SAMPLES / "images" / f"{name}.jpg")


def run_cli(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---- --yes / --json -----------------------------------------------------------------------------------------------


def test_json_prints_proposal_and_score_as_one_object(labels_as_models, capsys):
    code, out, _ = run_cli(["photo", sample("hand_001"), "--json", "--self-drawn"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["ok"] is True
    assert sorted(t["tile"] for t in data["proposal"]["tiles"]) == sorted(MANIFEST["hand_001"]["tiles"])
    assert data["score"]["context"]["self_drawn"] is True
    assert data["score"]["total"] >= 8 and data["score"]["fans"]
    assert data["hand"].endswith("|EE1000")


def test_yes_prints_the_proposal_and_the_score(labels_as_models, capsys):
    code, out, _ = run_cli(["photo", sample("hand_003"), "--yes", "--seat-wind", "S"], capsys)
    assert code == 0
    assert "Proposed hand: 111p444sCCCFFFPP" in out
    assert "total" in out.lower()


def test_a_thirteen_tile_photo_is_not_accepted_blindly(labels_as_models, capsys):
    code, out, err = run_cli(["photo", sample("hand_007"), "--json"], capsys)
    assert code == 2
    data = json.loads(out)
    assert data["ok"] is False and "13 tiles found" in data["error"]
    # 11123345p 123s 77s, worked out by hand: 1p makes 111p 123p 345p 123s 77s, 4p makes 111p 234p 345p 123s 77s,
    # 7s makes 11p 123p 345p 123s 777s; nothing else completes it.
    assert "as read it waits on 1p 4p 7s" in data["error"]
    assert err.count("\n") == 1 and "Traceback" not in err


def test_annotate_writes_the_photo_with_its_tiles(labels_as_models, capsys, tmp_path):
    out_png = tmp_path / "annotated.png"
    code, _, _ = run_cli(["photo", sample("hand_002"), "--json", "--annotate", str(out_png)], capsys)
    assert code == 3  # scored, below the 8-fan minimum (no context given)
    drawn = cv2.imread(str(out_png))
    original = cv2.imread(sample("hand_002"))
    assert drawn.shape == original.shape
    assert np.abs(drawn.astype(int) - original.astype(int)).sum(axis=2).astype(bool).mean() > 0.01


# ---- the confirm prompt through stdin -----------------------------------------------------------------------------


def test_accepting_and_answering_the_context_scores_the_hand(labels_as_models, capsys, monkeypatch):
    # accept, winning tile as proposed, self-drawn yes, seat S, prevalent E, no flowers, nothing else
    answers = "\n\ny\nS\nE\n-\n-\n"
    code, out, _ = run_cli(["photo", sample("hand_006")], capsys, answers, monkeypatch)
    assert code == 0
    assert "Accept?" in out and "Self-drawn?" in out and "Seat wind (E/S/W/N) [E]" in out
    assert "EEESSSWWWNNFFF" in out


def test_fix_a_tile_then_accept(labels_as_models, capsys, monkeypatch):
    # hand_001 reads 789s 678p 999m WWW EE; tiles 13 and 14 (the E pair) become N, then accept and take every
    # context default.
    answers = "fix 13 N, 14 N\nyes\n\n\n\n\n\n\n"
    code, out, _ = run_cli(["photo", sample("hand_001")], capsys, answers, monkeypatch)
    assert code == 3  # 999m678p789sWWWNN on a discard, seat and round E: below the 8-fan minimum
    assert "Proposed hand: 999m678p789sWWWNN" in out
    assert "Seat wind" in out


def test_a_typed_hand_with_context_is_scored_without_questions(labels_as_models, capsys, monkeypatch):
    code, out, _ = run_cli(["photo", sample("hand_001")], capsys, "789s678p999mWWWEE|EE1000\n", monkeypatch)
    assert code == 0
    assert "Self-drawn?" not in out


def test_end_of_input_at_the_prompt_is_one_clean_error(labels_as_models, capsys, monkeypatch):
    code, _, err = run_cli(["photo", sample("hand_001")], capsys, "", monkeypatch)
    assert code == 2
    assert err.strip() == "fanscan: error: no answer (end of input): nothing was scored"
    code, _, err = run_cli(["photo", sample("hand_001")], capsys, "\n\nn\n", monkeypatch)  # Ctrl-D mid-context
    assert code == 2 and "end of input" in err


def test_a_wrong_answer_is_asked_again(labels_as_models, capsys, monkeypatch):
    answers = "fix 99 5m\nnot a hand\n\n\nmaybe\ny\nX\nE\nE\nzz\n-\nq\n-\n"
    code, out, _ = run_cli(["photo", sample("hand_004")], capsys, answers, monkeypatch)
    assert code == 0
    assert "there is no tile 99" in out or "not a tile number" in out
    assert "please answer y or n" in out and "one of E, S, W, N" in out and "letters l, t, k only" in out


def test_hong_kong_items_are_asked_under_hk_only(labels_as_models, capsys, monkeypatch):
    # accept, winning tile as proposed, not self-drawn, seat E, prevalent E, flower a, then 'f' (flower replacement):
    # under hk that is Win on Kong, and the replacement tile makes the win self-drawn.
    answers = "\n\nn\nE\nE\na\nf\n"
    code, out, _ = run_cli(["photo", sample("hand_006"), "--rules", "hk"], capsys, answers, monkeypatch)
    assert code == 0
    assert "f = flower replacement" in out
    assert "Win on Kong" in out and "self-drawn" in out
    # Under mcr the same letter is not offered, and asked again.
    code, out, _ = run_cli(["photo", sample("hand_006")], capsys, answers + "-\n", monkeypatch)
    assert code == 0
    assert "f = flower replacement" not in out and "letters l, t, k only" in out
    assert "Win on Kong" not in out


# ---- bad input -----------------------------------------------------------------------------------------------------


def _write_image(path: Path, image: np.ndarray) -> Path:
    cv2.imwrite(str(path), image)
    return path


def _write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _cut_jpeg(path: Path) -> Path:
    data = (SAMPLES / "images" / "hand_001.jpg").read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _text(path: Path) -> Path:
    path.write_text("these are my notes, not a photo\n")
    return path


BAD_FILES = {
    "1x1": lambda d: _write_image(d / "one.png", np.zeros((1, 1, 3), np.uint8)),
    "truncated": lambda d: _cut_jpeg(d / "cut.jpg"),
    "text": lambda d: _text(d / "notes.jpg"),
    "huge": lambda d: _write_bytes(d / "huge.png", bomb_png(20000, 20000)),
    "missing": lambda d: d / "nope.jpg",
    "blank": lambda d: _write_image(d / "blank.png", np.full((480, 640, 3), 90, np.uint8)),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_input_is_a_one_line_error(labels_as_models, capsys, tmp_path, kind):
    path = BAD_FILES[kind](tmp_path)
    code, out, err = run_cli(["photo", str(path), "--yes"], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("fanscan: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err


# ---- batch ---------------------------------------------------------------------------------------------------------


def test_batch_writes_a_row_per_photo_and_resumes(labels_as_models, capsys, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    for name in ("hand_001", "hand_007", "hand_016"):
        (folder / f"{name}.jpg").write_bytes((SAMPLES / "images" / f"{name}.jpg").read_bytes())
    (folder / "broken.jpg").write_text("not a photo")
    table = tmp_path / "scores.jsonl"
    code, _, err = run_cli(["batch", str(folder), "--out", str(table)], capsys)
    assert code == 1  # some rows are errors
    rows = [json.loads(line) for line in table.read_text().splitlines()]
    assert [r["file"] for r in rows] == ["broken.jpg", "hand_001.jpg", "hand_007.jpg", "hand_016.jpg"]
    assert [r["ok"] for r in rows] == [False, True, False, True]
    assert rows[1]["total"] == score(rows[1]["hand"]).total and "[4/4]" in err
    assert "13 tiles found" in rows[2]["error"] and rows[2]["hand"]
    # A second run finds everything done and adds nothing.
    (folder / "hand_019.jpg").write_bytes((SAMPLES / "images" / "hand_019.jpg").read_bytes())
    run_cli(["batch", str(folder), "--out", str(table)], capsys)
    rows = [json.loads(line) for line in table.read_text().splitlines()]
    assert [r["file"] for r in rows][-1] == "hand_019.jpg" and len(rows) == 5


def test_batch_csv_has_a_header_once(labels_as_models, capsys, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "hand_002.jpg").write_bytes((SAMPLES / "images" / "hand_002.jpg").read_bytes())
    table = tmp_path / "scores.csv"
    assert run_cli(["batch", str(folder), "--out", str(table)], capsys)[0] == 0
    (folder / "hand_003.jpg").write_bytes((SAMPLES / "images" / "hand_003.jpg").read_bytes())
    assert run_cli(["batch", str(folder), "--out", str(table)], capsys)[0] == 0
    lines = table.read_text().splitlines()
    assert lines[0].startswith("file,ok,status,hand,total") and len(lines) == 3
    assert lines[1].startswith("hand_002.jpg,True,complete,")


# ---- with the shipped models ---------------------------------------------------------------------------------------

needs_models = pytest.mark.skipif(not all(p.exists() for p in MODELS), reason="the shipped models are not built yet")


@needs_models
def test_real_models_read_a_sample_hand(capsys):
    code, out, _ = run_cli(["photo", sample("hand_001"), "--yes", "--json"], capsys)
    assert code == 3  # 999m678p789sWWWEE on a discard: below the 8-fan minimum
    data = json.loads(out)
    assert sorted(t["tile"] for t in data["proposal"]["tiles"] if t["role"] != "dropped") == sorted(
        MANIFEST["hand_001"]["tiles"])
    assert set(data["proposal"]["timings_ms"]) >= {"load", "detect", "crop", "classify", "group", "total"}


@needs_models
def test_real_models_find_no_tiles_in_a_blank_photo(capsys, tmp_path):
    path = BAD_FILES["blank"](tmp_path)
    code, _, err = run_cli(["photo", str(path), "--yes"], capsys)
    assert code == 2 and "no tiles found" in err


# ---- issue 20: answers kept after an impossible one; a photo one tile short; rows that fit 80 columns ----------


def test_an_impossible_answer_keeps_every_earlier_answer(labels_as_models, capsys, monkeypatch):
    # hand_004 (345p 999p SSS PPP FF, no kong): self-drawn, seat S, prevalent E, flowers a b, then 'k' (a kong
    # replacement: refused, no kong), then '-'. Self-drawn, seat S and the flowers must stand, not fall back to
    # the flags' defaults (not self-drawn, E, none), and no question but the last is asked again.
    answers = "\n\ny\nS\nE\nab\nk\n-\n"
    code, out, _ = run_cli(["photo", sample("hand_004")], capsys, answers, monkeypatch)
    assert code == 0, out
    assert "out with replacement tile needs a kong in the hand" in out
    assert out.count("Self-drawn?") == 1 and out.count("Seat wind") == 1 and out.count("Flowers (") == 1
    assert "Hand   345999pSSSFPPPF|ES1000|ab" in out
    assert f"Total  {score('345999pSSSFPPPF|ES1000|ab').total} fan" in out


def test_an_impossible_answer_keeps_every_earlier_answer_under_hk(labels_as_models, capsys, monkeypatch):
    # hand_006 under hk: on a discard, seat S, no flowers, then 'f' (a flower replacement, but no flower: refused),
    # then '-': on a discard by seat S, as answered.
    answers = "\n\nn\nS\nE\n-\nf\n-\n"
    code, out, _ = run_cli(["photo", sample("hand_006"), "--rules", "hk"], capsys, answers, monkeypatch)
    assert code == 0, out
    assert "needs a flower" in out and out.count("Self-drawn?") == 1
    assert "on a discard; prevalent wind E, seat wind S" in out


def test_a_photo_one_tile_short_offers_its_waits_and_takes_the_missing_tile(labels_as_models, capsys, monkeypatch):
    # hand_014 shows 13 tiles, all read right: 234m 44p 444s SSS FF, waiting on 4p or F (two pairs, either a pung).
    # Enter must not ask to fix a tile; 'fix 14 6p' adds a tile, refused as it completes nothing; 'fix 14 F' adds F.
    answers = "\nfix 14 6p\nfix 14 F\n\nn\nS\nE\n-\n-\n"
    code, out, _ = run_cli(["photo", sample("hand_014")], capsys, answers, monkeypatch)
    assert "waits on 4p F" in out and "'add TILE'" in out and "'fix 14 TILE'" in out
    assert "This is not a complete hand yet" not in out and "not a tile number" not in out
    assert "6p does not complete" in out
    expected = score("234m44p444sSSSFFF|ES0000")
    assert f"Total  {expected.total} fan" in out
    assert code == (0 if expected.meets_minimum else 3)
    # 'add 4p' is the other way to say it.
    code, out, _ = run_cli(["photo", sample("hand_014")], capsys, "add 4p\n\nn\nS\nE\n-\n-\n", monkeypatch)
    assert f"Total  {score('234m44p444sSSSFF4p|ES0000').total} fan" in out


def test_add_is_refused_on_a_photo_that_is_not_one_tile_short(labels_as_models, capsys, monkeypatch):
    code, out, _ = run_cli(["photo", sample("hand_001")], capsys, "add 5m\nq\n", monkeypatch)
    assert code == 2 and "'add TILE' is for a photo one tile short of a hand" in out


def test_tile_rows_fit_80_columns_in_even_rows(labels_as_models, capsys):
    _, out, _ = run_cli(["photo", sample("hand_001"), "--yes", "--self-drawn"], capsys)
    rows = [line for line in out.splitlines() if line.startswith("   1:") or line.startswith("   8:")]
    assert len(rows) == 2 and all(len(line) <= 80 for line in out.splitlines()[:3])
    assert [len(row.split()) for row in rows] == [7, 7]  # 14 tiles: 7 + 7, not 10 + 4 (or 8 + 2 once wrapped)
