"""Hostile input to `fanscan label import` and to the YOLO reading `fanscan calibrate` shares: every bad box is a
line in the report, every bad file a one-line error, and nothing costs unbounded time or memory."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.yolo_data import read_class_names, read_labels
from labels_helpers import HEIGHT, WIDTH, write_photo, yolo_boxes

from fanscan.cli import main
from fanscan.labels import checks
from fanscan.labels.checks import Report
from fanscan.labels.importing import import_labels
from fanscan.labels.model import Box

GOOD = ("1m", 20, 40, 60, 96)  # a drawn tile of labels_helpers.TILES
HUGE = 1e308
BAD_VALUES = [float("nan"), float("inf"), -float("inf"), HUGE]


def report_lines(dataset: Path) -> list[str]:
    return dataset.with_name(f"{dataset.name}.report.txt").read_text().splitlines()[2:]


def assert_only_the_good_box(dataset: Path, stem: str, photo: str, bad_numbers: list[int]) -> None:
    boxes = yolo_boxes(dataset, stem)
    assert [label for label, _ in boxes] == ["1m"]
    assert boxes[0][1] == pytest.approx(GOOD[1:], abs=1e-3)
    lines = report_lines(dataset)
    for number in bad_numbers:
        assert any(line.startswith(f"{photo}: box {number} (") and "not finite" in line and "dropped" in line
                   for line in lines), (number, lines)


def test_label_studio_nan_inf_and_huge_coordinates_are_dropped_with_a_line(tmp_path):
    write_photo(tmp_path / "p.png")
    good = {"x": 100 * 20 / WIDTH, "y": 100 * 40 / HEIGHT, "width": 10.0, "height": 100 * 56 / HEIGHT}
    values = [good] + [{**good, key: bad} for bad in BAD_VALUES for key in ("x", "width")]
    results = [{"type": "rectanglelabels", "original_width": WIDTH, "original_height": HEIGHT,
                "value": {**v, "rotation": 0, "rectanglelabels": ["1m"]}} for v in values]
    results.append({**results[0], "value": {**results[0]["value"], "rotation": float("nan")}})
    export = [{"id": 3, "data": {"image": "p.png"}, "annotations": [{"id": 1, "result": results}]}]
    (tmp_path / "e.json").write_text(json.dumps(export))  # json writes NaN and Infinity as Python reads them
    import_labels(tmp_path / "e.json", tmp_path / "ds")
    assert_only_the_good_box(tmp_path / "ds", "p", "task 3 (p.png)", list(range(2, len(results) + 1)))


def test_coco_nan_inf_and_huge_coordinates_are_dropped_with_a_line(tmp_path):
    write_photo(tmp_path / "p.png")
    good = [20, 40, 40, 56]
    bboxes = [good] + [[bad, 40, 40, 56] for bad in BAD_VALUES] + [[-HUGE, 40, 2 * HUGE, 56], [20, 40, HUGE * 1.7,
                                                                                               56]]
    document = {"images": [{"id": 1, "file_name": "p.png", "width": WIDTH, "height": HEIGHT}],
                "annotations": [{"id": n, "image_id": 1, "category_id": 1, "bbox": b}
                                for n, b in enumerate(bboxes, start=1)],
                "categories": [{"id": 1, "name": "1m"}]}
    (tmp_path / "c.json").write_text(json.dumps(document))
    import_labels(tmp_path / "c.json", tmp_path / "ds")
    boxes = yolo_boxes(tmp_path / "ds", "p")
    assert [label for label, _ in boxes] == ["1m"] and boxes[0][1] == pytest.approx(GOOD[1:], abs=1e-3)
    lines = report_lines(tmp_path / "ds")
    # every bad box has its line: not finite, or (1e308 pixels from the left) outside the photo
    for number in range(2, len(bboxes) + 1):
        assert any(line.startswith(f"p.png: box {number} (1m): ") and "dropped" in line for line in lines), number


def yolo_folder(tmp_path: Path, label_text: str, yaml_text: str = "names: ['1m']\n") -> Path:
    folder = tmp_path / "y"
    write_photo(folder / "images" / "p.png")
    (folder / "labels").mkdir()
    (folder / "labels" / "p.txt").write_text(label_text)
    (folder / "data.yaml").write_text(yaml_text)
    return folder


def yolo_line(cx, cy, w, h) -> str:
    return f"0 {cx} {cy} {w} {h}\n"


def test_yolo_nan_inf_and_huge_coordinates_are_dropped_with_a_line(tmp_path):
    _, x0, y0, x1, y1 = GOOD
    good = ((x0 + x1) / 2 / WIDTH, (y0 + y1) / 2 / HEIGHT, (x1 - x0) / WIDTH, (y1 - y0) / HEIGHT)
    lines = [yolo_line(*good)]
    for bad in ("nan", "inf", "-inf", "1e308"):
        lines += [yolo_line(bad, *good[1:]), yolo_line(*good[:2], bad, good[3])]
    lines.append(f"0 0.1 0.1 {'nan'} 0.5 0.3 0.3\n")  # a polygon with a NaN corner
    import_labels(yolo_folder(tmp_path, "".join(lines)), tmp_path / "ds")
    assert_only_the_good_box(tmp_path / "ds", "p", "images/p.png", list(range(2, len(lines) + 1)))


def test_an_export_nested_100000_deep_is_one_line(tmp_path, capsys):
    (tmp_path / "e.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["label", "import", str(tmp_path / "e.json"), "--out", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fanscan: error: ") and "e.json" in err and "nested" in err and "\n" not in err
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize("size", [(WIDTH, 0), (0, HEIGHT), (-WIDTH, HEIGHT), ("wide", HEIGHT)])
def test_a_coco_image_of_no_size_is_read_at_the_photos_size_with_a_line(tmp_path, size):
    write_photo(tmp_path / "p.png")
    document = {"images": [{"id": 1, "file_name": "p.png", "width": size[0], "height": size[1]}],
                "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [20, 40, 40, 56]}],
                "categories": [{"id": 1, "name": "1m"}]}
    (tmp_path / "c.json").write_text(json.dumps(document))
    import_labels(tmp_path / "c.json", tmp_path / "ds")
    boxes = yolo_boxes(tmp_path / "ds", "p")
    assert boxes == [("1m", pytest.approx(GOOD[1:], abs=1e-3))]
    assert any(line.startswith("p.png: ") and "size" in line for line in report_lines(tmp_path / "ds"))


def test_a_label_studio_region_of_an_infinite_photo_size_is_read_at_the_photos_size(tmp_path, capsys):
    write_photo(tmp_path / "p.png")
    region = {"type": "rectanglelabels", "original_width": float("inf"), "original_height": HEIGHT,
              "value": {"x": 5, "y": 13, "width": 10, "height": 18, "rectanglelabels": ["1m"]}}
    (tmp_path / "e.json").write_text(json.dumps([{"id": 1, "data": {"image": "p.png"},
                                                  "annotations": [{"result": [region]}]}]))
    assert main(["label", "import", str(tmp_path / "e.json"), "--out", str(tmp_path / "ds")]) == 0
    assert yolo_boxes(tmp_path / "ds", "p")[0][0] == "1m"


@pytest.mark.parametrize("target", ["label", "data.yaml"])
def test_a_file_that_is_not_utf8_is_one_line_naming_it(tmp_path, capsys, target):
    folder = yolo_folder(tmp_path, yolo_line(0.1, 0.2, 0.1, 0.2))
    path = folder / "labels" / "p.txt" if target == "label" else folder / "data.yaml"
    path.write_bytes(b"names: ['\xff\xfe1m']\n" if target == "data.yaml" else b"0 0.1 0.2 0.1 0.2 \xff\n")
    assert main(["label", "import", str(folder), "--out", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"fanscan: error: {path}") and "UTF-8" in err and "\n" not in err
    assert not (tmp_path / "ds").exists()


def test_a_label_path_that_is_a_folder_is_one_line(tmp_path, capsys):
    folder = yolo_folder(tmp_path, "")
    (folder / "labels" / "p.txt").unlink()
    (folder / "labels" / "p.txt").mkdir()
    assert main(["label", "import", str(folder), "--out", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"fanscan: error: {folder / 'labels' / 'p.txt'}") and "folder" in err and "\n" not in err
    with pytest.raises(FanscanError, match="a folder"):
        read_labels(folder / "labels" / "p.txt")


BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]" for i in range(8)]
    + ["names: *i"]) + "\n"


def test_yaml_aliases_are_refused(tmp_path):
    path = tmp_path / "data.yaml"
    path.write_text("base: &names ['1m', '2m']\nnames: *names\n")  # harmless, but data.yaml needs no aliases
    with pytest.raises(FanscanError, match=r"data\.yaml:2: .*alias"):
        read_class_names(path)
    assert len(BILLION_LAUGHS) < 500
    path.write_text(BILLION_LAUGHS)
    with pytest.raises(FanscanError, match="alias") as caught:
        read_class_names(path)
    assert "\n" not in str(caught.value)


def test_a_data_yaml_too_large_to_be_one_is_refused(tmp_path):
    path = tmp_path / "data.yaml"
    path.write_text("names: [" + ", ".join(["'1m'"] * 400_000) + "]\n")
    with pytest.raises(FanscanError, match="too large"):
        read_class_names(path)


def old_pairwise_duplicates(kept: list[tuple[int, Box]]) -> list[tuple[int, int]]:
    """The duplicate rule as first written (every box against every box kept so far): (dropped, kept-instead)."""
    order = sorted(kept, key=lambda item: -(item[1].score if item[1].score is not None else 0.0))
    chosen: list[tuple[int, Box]] = []
    dropped = []
    for number, box in order:
        twin = next(((n, b) for n, b in chosen if checks.overlap(box, b) >= checks.DUPLICATE_IOU), None)
        if twin is None:
            chosen.append((number, box))
        else:
            dropped.append((number, twin[0]))
    return dropped


def random_boxes(seed: int, count: int, side: float = 900) -> list[tuple[int, Box]]:
    """Boxes in clusters of near-copies (so that many pairs are near the IoU threshold), some turned, on a
    `side` x `side` photo."""
    rng = random.Random(seed)
    boxes = []
    while len(boxes) < count:
        x, y, w, h = rng.uniform(0, side), rng.uniform(0, side), rng.uniform(3, 60), rng.uniform(3, 80)
        turn = rng.choice([0.0, 0.0, 0.0, rng.uniform(0, 360)])
        for _ in range(rng.randint(1, 4)):
            jitter = [rng.gauss(0, 1.0) for _ in range(4)]
            score = rng.choice([None, round(rng.random(), 1)])
            boxes.append(Box(rng.choice(["1m", "2m"]), x + jitter[0], y + jitter[1], max(0.5, w + jitter[2]),
                             max(0.5, h + jitter[3]), turn, score))
    return list(enumerate(boxes[:count], start=1))


@pytest.mark.parametrize("seed", range(6))
def test_the_duplicate_check_drops_what_the_pairwise_rule_drops(seed):
    kept = random_boxes(seed, 400)
    expected = old_pairwise_duplicates(kept)
    report = Report()
    chosen = checks._drop_duplicates(kept, "p.png", report)
    got = [(int(line.split(": box ")[1].split(" ")[0]), int(line.rsplit("box ", 1)[1].split(" ")[0]))
           for line in report.lines]
    assert len(expected) > 20 and sorted(got) == sorted(expected)
    dropped = {n for n, _ in expected}
    assert chosen == [box for n, box in kept if n not in dropped]


def test_the_duplicate_check_of_many_boxes_compares_only_neighbours(monkeypatch):
    kept = random_boxes(7, 8000, side=8000)  # tiles of 3-80 px, most apart: as many as a photo can show
    calls = 0
    real = checks.overlap

    def counted(a, b):
        nonlocal calls
        calls += 1
        return real(a, b)

    monkeypatch.setattr(checks, "overlap", counted)
    checks._drop_duplicates(kept, "p.png", Report())
    assert calls < 100_000  # the pairwise rule makes about 8000 * 4000 / 2 = 16 million


def test_calibrate_out_naming_a_folder_is_one_line(tmp_path, capsys):
    from test_calibrate import small_yolo

    folder = small_yolo(tmp_path, photos=1)
    (tmp_path / "p.npz").mkdir()
    assert main(["calibrate", str(folder), "--out", str(tmp_path / "p.npz"), "--views", "0", "--no-loo"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"fanscan: error: {tmp_path / 'p.npz'}: not a file") and "\n" not in err


def test_calibrate_leaves_out_boxes_of_nan_inf_or_huge_coordinates_with_a_line(tmp_path, capsys):
    from test_calibrate import small_yolo

    from fanscan.calibration.sources import tiles_from_yolo

    folder = small_yolo(tmp_path, photos=1)
    label = next((folder / "labels").iterdir())
    good = [line for line in label.read_text().splitlines() if line.strip()]
    bad = [f"1 {cx} 0.5 {w} 0.1" for cx, w in [("nan", "0.1"), ("0.5", "inf"), ("0.5", "1e308"), ("1e308", "0.1")]]
    label.write_text("\n".join(good + bad) + "\n")
    tiles = tiles_from_yolo(folder)
    assert len(tiles) == len(good)
    err = capsys.readouterr().err
    for number in range(len(good) + 1, len(good) + len(bad) + 1):
        assert f"{label}:{number}: " in err and "not finite" in err
    shutil.rmtree(folder)
