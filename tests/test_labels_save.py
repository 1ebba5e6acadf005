"""`fanscan photo --save-labels`: a confirmed photo and its corrected labels appended to a YOLO dataset."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from fanscan.scoring import parse_hand
from fanscan.scoring.errors import FanscanError
from labels_helpers import HEIGHT, WIDTH, quad, write_photo, yolo_boxes

from fanscan.cli import main
from fanscan.labels.save import save_confirmed_photo, save_labelled_photo

SAMPLE = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "images" / "hand_001.jpg"


def test_saves_append_with_unique_names_and_one_data_yaml(tmp_path):
    photo = write_photo(tmp_path / "hand.png")
    tiles = [("5m", quad(20, 40, 60, 96)), ("back", quad(70, 40, 110, 96)), ("none", quad(1, 1, 9, 9)),
             ("c", quad(120, 40, 160, 96))]
    first = save_labelled_photo(tmp_path / "ds", photo, tiles, (WIDTH, HEIGHT))
    second = save_labelled_photo(tmp_path / "ds", photo.read_bytes(), tiles[:1], (WIDTH, HEIGHT), name="hand.png")
    assert (first.name, second.name) == ("hand.png", "hand-2.png")
    assert second.read_bytes() == photo.read_bytes()
    assert [(label, box) for label, box in yolo_boxes(tmp_path / "ds", "hand")] == [
        ("5m", pytest.approx((20, 40, 60, 96), abs=1e-3)), ("c", pytest.approx((120, 40, 160, 96), abs=1e-3))]
    assert [label for label, _ in yolo_boxes(tmp_path / "ds", "hand-2")] == ["5m"]
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == ["data.yaml", "images", "labels"]


def test_an_existing_dataset_keeps_its_own_class_names(tmp_path):
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "data.yaml").write_text("nc: 3\nnames: ['bs1', 'sc1', 'hdr']\n")  # sc1 = 1m, hdr = C
    save_labelled_photo(tmp_path / "ds", write_photo(tmp_path / "p.png"),
                        [("C", quad(20, 40, 60, 96)), ("1m", quad(70, 40, 110, 96))], (WIDTH, HEIGHT))
    assert [line.split()[0] for line in (tmp_path / "ds" / "labels" / "p.txt").read_text().splitlines()] == ["2", "1"]
    with pytest.raises(FanscanError, match="class names have no 9p"):
        save_labelled_photo(tmp_path / "ds", tmp_path / "p.png", [("9p", quad(20, 40, 60, 96))], (WIDTH, HEIGHT))
    with pytest.raises(FanscanError, match="not a JPEG, PNG or WebP"):
        save_labelled_photo(tmp_path / "ds", b"GIF89a...", [], (WIDTH, HEIGHT), name="x.gif")


def test_a_typed_hand_with_other_tiles_is_not_saved(tmp_path, capsys):
    proposal = SimpleNamespace(hand="123m456m789m123pEE", image_size=(WIDTH, HEIGHT), tiles=[])
    assert save_confirmed_photo(tmp_path / "ds", "x.png", proposal, parse_hand("123m456m789m123pSS")) is None
    assert "labels not saved" in capsys.readouterr().err and not (tmp_path / "ds").exists()


def test_photo_yes_save_labels_writes_the_proposals_tiles(tmp_path, capsys):
    assert main(["photo", str(SAMPLE), "--json"]) == 3  # scored; below the 8-fan minimum without a context
    proposal = json.loads(capsys.readouterr().out)["proposal"]
    width, height = proposal["image_size"]
    assert main(["photo", str(SAMPLE), "--yes", "--self-drawn", "--save-labels", str(tmp_path / "ds")]) == 0
    assert "labels saved" in capsys.readouterr().err
    names = [n.strip().strip("'") for n in (tmp_path / "ds" / "data.yaml").read_text().split("names: [")[1]
             .rstrip("]\n").split(",")]
    saved = []
    for line in (tmp_path / "ds" / "labels" / "hand_001.txt").read_text().splitlines():
        index, cx, cy, _, _ = line.split()
        saved.append((names[int(index)], float(cx) * width, float(cy) * height))
    expected = [(t["tile"], sum(x for x, _ in t["quad"]) / 4, sum(y for _, y in t["quad"]) / 4)
                for t in proposal["tiles"] if t["tile"] not in ("back", "none")]
    assert [s[0] for s in saved] == [e[0] for e in expected] and len(saved) == 14
    for (_, x, y), (_, ex, ey) in zip(saved, expected, strict=True):
        assert (x, y) == pytest.approx((ex, ey), abs=0.01)
    assert (tmp_path / "ds" / "images" / "hand_001.jpg").read_bytes() == SAMPLE.read_bytes()


def test_photo_interactive_fix_is_saved_corrected(tmp_path, capsys, monkeypatch):
    # Tiles 1-3 of hand_001 read 7s 8s 9s; the user says 7p 8p 9p (still a hand): the saved labels follow the user.
    answers = io.StringIO("fix 1 7p 2 8p 3 9p\n\n\n\n\n\n\n\n\n")
    monkeypatch.setattr("sys.stdin", answers)
    assert main(["photo", str(SAMPLE), "--save-labels", str(tmp_path / "ds")]) == 0
    lines = (tmp_path / "ds" / "labels" / "hand_001.txt").read_text().splitlines()
    names = (tmp_path / "ds" / "data.yaml").read_text().split("names: [")[1].split(", ")
    assert [names[int(line.split()[0])].strip("'") for line in lines[:4]] == ["7p", "8p", "9p", "6p"]
