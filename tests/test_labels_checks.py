"""The careful labeller's checks: every dropped or changed box is a line in the report; bad input is one line."""

from __future__ import annotations

import json

import cv2
import pytest
from fanscan.scoring.errors import FanscanError
from labels_helpers import HEIGHT, WIDTH, FakePipeline, draw_tile, felt, write_photo, yolo_boxes

from fanscan.cli import main
from fanscan.labels.checks import Report, check_photo
from fanscan.labels.importing import import_labels
from fanscan.labels.model import Box, LabelledPhoto
from fanscan.labels.predict import predict


def seeded_photo(tmp_path):
    """A photo with two drawn tiles and boxes seeded with every mistake the checks look for."""
    image = felt()
    draw_tile(image, 20, 40, 60, 96)
    draw_tile(image, 100, 40, 140, 96)
    draw_tile(image, 360, 100, 400, 156)  # a tile at the right edge
    path = tmp_path / "seeded.png"
    cv2.imwrite(str(path), image)
    boxes = [
        Box.from_bounds("1m", 20, 40, 60, 96, score=0.9),      # 1 good
        Box.from_bounds("1m", 20, 40, 60, 97, score=0.8),      # 2 duplicate of 1, same label
        Box.from_bounds("2m", 100, 40, 140, 96, score=0.95),   # 3 good
        Box.from_bounds("3m", 101, 40, 140, 96, score=0.6),    # 4 same tile as 3, another label
        Box.from_bounds("5p", 200, 200, 240, 256, score=0.9),  # 5 blank felt
        Box.from_bounds("P", 250, 200, 290, 256, score=0.9),   # 6 blank felt, but a white dragon may be blank
        Box.from_bounds("9s", 362, 100, 404, 156, score=0.9),  # 7 4 px outside: clipped
        Box.from_bounds("E", 380, 250, 440, 300, score=0.9),   # 8 mostly outside: dropped
        Box.from_bounds("S", 30, 150, 30.5, 200, score=0.9),   # 9 zero width
        Box.from_bounds("back", 150, 150, 190, 206, score=0.9),  # 10 face-down
        Box.from_bounds("Joker", 20, 200, 60, 256, score=0.9),   # 11 unknown class
    ]
    return path, image, LabelledPhoto(path, WIDTH, HEIGHT, boxes, "seeded.png")


def test_every_seeded_mistake_is_caught_with_a_line(tmp_path):
    _, image, photo = seeded_photo(tmp_path)
    report = Report()
    checked = check_photo(photo, report, image)
    lines = report.lines

    def line(number):
        return next(text for text in lines if f": box {number} (" in text)

    assert [b.label for b in checked.boxes] == ["1m", "2m", "P", "9s"]
    assert checked.boxes[3].bounds() == pytest.approx((362, 100, 400, 156))  # clipped to the photo
    assert "duplicate of box 1" in line(2) and "dropped" in line(2)
    assert "same tile as box 3 labelled 2m" in line(4) and "dropped" in line(4)
    assert "near-blank" in line(5) and "dropped" in line(5)
    assert "near-blank" in line(6) and "flagged" in line(6)
    assert "outside the photo" in line(7) and "clipped" in line(7)
    assert "outside the photo" in line(8) and "dropped" in line(8)
    assert "zero size" in line(9)
    assert "face-down" in line(10)
    assert "unknown class 'Joker'" in line(11)
    assert len(lines) == 9  # boxes 1 and 3 pass silently; each of the other nine has exactly one line
    assert report.counts["read"] == 11 and report.counts["kept"] == 4
    assert report.counts["dropped"] == 7 and report.counts["clipped"] == 1 and report.counts["flagged"] == 1


def test_unknown_class_stops_an_import_unless_dropped(tmp_path):
    write_photo(tmp_path / "photos" / "p.png")
    region = {"type": "rectanglelabels", "original_width": WIDTH, "original_height": HEIGHT,
              "value": {"x": 5, "y": 13.3, "width": 10, "height": 18.7, "rotation": 0, "rectanglelabels": ["Tile"]}}
    export = [{"id": 1, "data": {"image": "/data/upload/2/deadbeef-p.png"},
               "annotations": [{"id": 1, "result": [region]}]}]
    (tmp_path / "e.json").write_text(json.dumps(export))
    with pytest.raises(FanscanError, match=r"e\.json: task 1 .*box 1: unknown class 'Tile'"):
        import_labels(tmp_path / "e.json", tmp_path / "ds", images=tmp_path / "photos")
    assert not (tmp_path / "ds").exists() and not any(p.name.startswith(".ds") for p in tmp_path.iterdir())
    import_labels(tmp_path / "e.json", tmp_path / "ds", images=tmp_path / "photos", drop_unknown=True)
    assert (tmp_path / "ds" / "labels" / "p.txt").read_text() == ""
    assert "unknown class 'Tile': dropped" in (tmp_path / "ds.report.txt").read_text()


def test_predict_report_names_each_dropped_guess(tmp_path):
    photos = tmp_path / "photos"
    write_photo(photos / "p.png")
    guesses = [("1m", 20, 40, 60, 96, 0.9), ("1m", 20, 40, 60, 96, 0.5), ("none", 70, 40, 110, 96, 0.7),
               ("4s", 250, 200, 290, 256, 0.6)]
    predict(photos, tmp_path / "g", "yolo", pipeline=FakePipeline({"p.png": guesses}))
    assert [label for label, _ in yolo_boxes(tmp_path / "g", "p")] == ["1m"]
    report = (tmp_path / "g.report.txt").read_text().splitlines()
    assert report[1] == "4 boxes read on 1 photos, 1 boxes written, 3 dropped"
    assert any("box 2 (1m): duplicate of box 1" in line for line in report)
    assert any("box 3 (none): read as not a tile" in line for line in report)
    assert any("box 4 (4s): near-blank" in line for line in report)


@pytest.mark.parametrize("content, message", [
    (b"\x00\x01not json", "not a readable JSON export"),
    (b'{"tasks": []}', "neither a Label Studio JSON export"),
    (b'[{"no_data": 1}]', "not a Label Studio JSON export"),
    (b'{"images": [{"id": 1}], "annotations": []}', "not a COCO file"),
    (b'[{"data": {"image": "a.png"}, "annotations": [{"result": [{"type": "rectanglelabels", "value": {"x": "?"}}]}]}]',
     "not a Label Studio task"),
])
def test_bad_exports_are_one_line_errors_and_write_nothing(tmp_path, capsys, content, message):
    (tmp_path / "e.json").write_bytes(content)
    status = main(["label", "import", str(tmp_path / "e.json"), "--out", str(tmp_path / "ds")])
    err = capsys.readouterr().err.strip()
    assert status == 2 and err.startswith("fanscan: error: ") and message in err and "\n" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json"]


def test_missing_photo_and_bad_photo_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    export = [{"data": {"image": "broken.png"}, "annotations": [{"result": []}]}]
    (tmp_path / "e.json").write_text(json.dumps(export))
    assert main(["label", "import", str(tmp_path / "e.json"), "--out", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err.strip()
    assert "broken.png" in err and "\n" not in err and not (tmp_path / "ds").exists()
    assert main(["label", "import", str(tmp_path / "nowhere.json"), "--out", str(tmp_path / "ds")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_an_existing_output_is_kept_unless_replaced(tmp_path, capsys):
    write_photo(tmp_path / "photos" / "p.png")
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "mine.txt").write_text("keep me")
    export = [{"data": {"image": "photos/p.png"}, "annotations": [{"result": []}]}]
    (tmp_path / "e.json").write_text(json.dumps(export))
    assert main(["label", "import", str(tmp_path / "e.json"), "--out", str(tmp_path / "ds")]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (tmp_path / "ds" / "mine.txt").read_text() == "keep me"
    assert main(["label", "import", str(tmp_path / "e.json"), "--out", str(tmp_path / "ds"), "--replace"]) == 0
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == ["data.yaml", "images", "labels"]


def test_a_yolo_folder_without_labels_or_names_is_one_line(tmp_path, capsys):
    write_photo(tmp_path / "y" / "images" / "p.png")
    assert main(["label", "import", str(tmp_path / "y"), "--out", str(tmp_path / "ds")]) == 2
    assert "no labels/ folder" in capsys.readouterr().err
    (tmp_path / "y" / "labels").mkdir()
    assert main(["label", "import", str(tmp_path / "y"), "--out", str(tmp_path / "ds")]) == 2
    assert "no data.yaml" in capsys.readouterr().err
    assert not (tmp_path / "ds").exists()
