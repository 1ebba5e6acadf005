"""`fanscan label`: box geometry, Label Studio regions, and predict -> import round trips in every format."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fanscan.scoring.errors import FanscanError
from labels_helpers import HEIGHT, TILES, WIDTH, FakePipeline, write_photo, yolo_boxes

from fanscan.labels.classes import CLASS_NAMES, tile_for_label
from fanscan.labels.importing import import_labels
from fanscan.labels.label_studio import box_of_region, label_config, region_of
from fanscan.labels.model import Box
from fanscan.labels.predict import predict


def turned_rectangle(cx, cy, w, h, degrees):
    """Corners tl, tr, br, bl of a w x h rectangle turned clockwise (y down) about its centre, by hand."""
    t = math.radians(degrees)
    c, s = math.cos(t), math.sin(t)
    return [(cx + a * c - b * s, cy + a * s + b * c) for a, b in ((-w / 2, -h / 2), (w / 2, -h / 2),
                                                                     (w / 2, h / 2), (-w / 2, h / 2))]


@pytest.mark.parametrize("degrees", [0.0, 17.5, 90.0, 180.0, 305.0])
def test_a_turned_quad_gives_back_its_own_corners(degrees):
    corners = turned_rectangle(150.0, 120.0, 40.0, 56.0, degrees)
    box = Box.from_quad("5m", corners)
    assert box.width == pytest.approx(40.0) and box.height == pytest.approx(56.0)
    assert box.rotation == pytest.approx(degrees % 360.0)
    for got, want in zip(box.corners(), corners, strict=True):
        assert got == pytest.approx(want, abs=1e-9)


def test_label_studio_region_is_the_top_left_corner_turned_about_itself():
    # A 40 x 60 box centred at (100, 100) turned 90 degrees clockwise: its own top-left corner lands at (130, 80);
    # Label Studio draws it from there, turned about that corner, over x 70..130 and y 80..120.
    box = Box.from_quad("E", turned_rectangle(100.0, 100.0, 40.0, 60.0, 90.0))
    region = region_of(box, 400, 200, 1)["value"]
    assert region["x"] == pytest.approx(100 * 130 / 400) and region["y"] == pytest.approx(100 * 80 / 200)
    assert region["width"] == pytest.approx(100 * 40 / 400) and region["height"] == pytest.approx(100 * 60 / 200)
    assert region["rotation"] == pytest.approx(90.0) and region["rectanglelabels"] == ["E"]
    assert box.bounds() == pytest.approx((70.0, 80.0, 130.0, 120.0))
    back = box_of_region(region, 400, 200, "E", None)
    assert (back.cx, back.cy, back.width, back.height, back.rotation) == pytest.approx((100, 100, 40, 60, 90))


def test_label_names_from_every_table_and_case_matters_for_tile_ids():
    assert tile_for_label("sc1") == "1m" and tile_for_label("bf3") == "d"  # v4 numbers chrysanthemum 3
    assert tile_for_label("3p · 3 Dots · 三饼") == "3p" and tile_for_label("red dragon") == "C"
    assert tile_for_label("c") == "c" and tile_for_label("C") == "C"  # bamboo flower vs red dragon
    assert tile_for_label("back") is None and tile_for_label("Tile") is None


def test_label_config_lists_every_class_once():
    root = ET.fromstring(label_config())
    rectangles = root.find("RectangleLabels")
    assert rectangles.get("name") == "tile" and rectangles.get("toName") == root.find("Image").get("name")
    values = [label.get("value") for label in rectangles.findall("Label")]
    assert values == list(CLASS_NAMES) and len(values) == 42
    assert "三饼" in next(lb.get("html") for lb in rectangles.findall("Label") if lb.get("value") == "3p")


@pytest.mark.parametrize("fmt", ["label-studio", "coco", "yolo"])
def test_predict_then_import_gives_the_same_boxes_and_labels(tmp_path, fmt):
    photos = tmp_path / "photos"
    write_photo(photos / "one.png", seed=1)
    write_photo(photos / "two.png", seed=2)
    out = tmp_path / ("guesses" if fmt == "yolo" else "guesses.json")
    predict(photos, out, fmt, image_url="photos/" if fmt == "label-studio" else None, pipeline=FakePipeline())
    dataset = tmp_path / "dataset"
    import_labels(out, dataset, images=photos if fmt == "label-studio" else None)
    expected = sorted((tile, (x0, y0, x1, y1)) for tile, x0, y0, x1, y1 in TILES)
    for stem in ("one", "two"):
        got = sorted(yolo_boxes(dataset, stem))
        assert [label for label, _ in got] == [label for label, _ in expected]
        for (_, box), (_, want) in zip(got, expected, strict=True):
            assert box == pytest.approx(want, abs=1e-3)
    assert sorted(p.name for p in (dataset / "images").iterdir()) == ["one.png", "two.png"]
    assert (tmp_path / "dataset.report.txt").read_text().splitlines()[1].startswith("10 boxes read on 2 photos")


def test_label_studio_tasks_carry_percent_boxes_and_scores(tmp_path):
    photos = tmp_path / "photos"
    write_photo(photos / "one.png")
    out = tmp_path / "tasks.json"
    predict(photos, out, "label-studio", image_url="/data/local-files/?d=photos/", pipeline=FakePipeline())
    task = json.loads(out.read_text())[0]
    assert task["data"]["image"] == "/data/local-files/?d=photos/one.png"
    prediction = task["predictions"][0]
    first = prediction["result"][0]
    assert first["original_width"] == WIDTH and first["original_height"] == HEIGHT
    tile, x0, y0, x1, _ = TILES[0]
    assert first["value"]["x"] == pytest.approx(100 * x0 / WIDTH) and first["value"]["y"] == pytest.approx(
        100 * y0 / HEIGHT)
    assert first["value"]["width"] == pytest.approx(100 * (x1 - x0) / WIDTH)
    assert first["value"]["rectanglelabels"] == [tile] and first["score"] == pytest.approx(0.9)
    assert prediction["score"] == pytest.approx(0.9)


def label_studio_task(image, regions, annotations=None, cancelled=False):
    results = [{"type": "rectanglelabels", "from_name": "tile", "to_name": "image", "original_width": WIDTH,
                "original_height": HEIGHT, "value": {"x": 100 * x0 / WIDTH, "y": 100 * y0 / HEIGHT,
                                                     "width": 100 * (x1 - x0) / WIDTH,
                                                     "height": 100 * (y1 - y0) / HEIGHT, "rotation": 0,
                                                     "rectanglelabels": [label]}}
               for label, x0, y0, x1, y1 in regions]
    annotation = {"id": 7, "result": results, "was_cancelled": cancelled, "updated_at": "2026-01-02T00:00:00Z"}
    return {"id": 3, "data": {"image": image}, "annotations": annotations or [annotation], "predictions": []}


def test_export_with_server_paths_finds_photos_by_name(tmp_path):
    photos = tmp_path / "elsewhere" / "nested"
    write_photo(photos / "hand_001.png")
    write_photo(photos / "hand_002.png", seed=3)
    older = {"id": 1, "result": [], "was_cancelled": False, "updated_at": "2025-01-01T00:00:00Z"}
    newer = label_studio_task("x", [("sc1", 20, 40, 60, 96)])["annotations"][0]
    export = [
        label_studio_task("/data/upload/1/0a1b2c3d-hand_001.png", [("1m", 20, 40, 60, 96), ("hdr", 70, 40, 110, 96)]),
        {**label_studio_task("/data/local-files/?d=some/where/hand_002.png", []), "annotations": [older, newer]},
    ]
    (tmp_path / "export.json").write_text(json.dumps(export))
    with pytest.raises(FanscanError, match=r"2 of 2 photos not found.*--images"):
        import_labels(tmp_path / "export.json", tmp_path / "no")
    assert not (tmp_path / "no").exists()
    import_labels(tmp_path / "export.json", tmp_path / "ds", images=tmp_path / "elsewhere")
    assert yolo_boxes(tmp_path / "ds", "hand_001") == [("1m", pytest.approx((20, 40, 60, 96), abs=1e-3)),
                                                       ("C", pytest.approx((70, 40, 110, 96), abs=1e-3))]
    assert yolo_boxes(tmp_path / "ds", "hand_002") == [("1m", pytest.approx((20, 40, 60, 96), abs=1e-3))]  # latest
    assert "2 annotations: the latest (id 7) used" in (tmp_path / "ds.report.txt").read_text()


def test_yolo_folder_with_dataset_names_is_renamed_to_tile_ids(tmp_path):
    source = tmp_path / "v4"
    write_photo(source / "train" / "images" / "p.png")
    (source / "train" / "labels").mkdir()
    # sc1 = 1m, hdr = C, as published with Chinese Mahjong Detection v4
    (source / "data.yaml").write_text("nc: 3\nnames: ['bs1', 'sc1', 'hdr']\n")
    size = f"{40 / WIDTH} {56 / HEIGHT}"
    (source / "train" / "labels" / "p.txt").write_text(
        f"1 {40 / WIDTH} {68 / HEIGHT} {size}\n2 {90 / WIDTH} {68 / HEIGHT} {size}\n")
    import_labels(source, tmp_path / "out")
    assert [label for label, _ in yolo_boxes(tmp_path / "out", "p")] == ["1m", "C"]
    assert "names: ['1m', '2m'" in (tmp_path / "out" / "data.yaml").read_text()


def test_a_turned_label_studio_box_becomes_the_box_around_it(tmp_path):
    write_photo(tmp_path / "p.png")
    # 40 x 60 px turned 90 degrees about its top-left corner (130, 80): it covers x 70..130, y 80..120.
    value = {"x": 100 * 130 / WIDTH, "y": 100 * 80 / HEIGHT, "width": 100 * 40 / WIDTH, "height": 100 * 60 / HEIGHT,
             "rotation": 90, "rectanglelabels": ["9p"]}
    export = [{"data": {"image": "p.png"}, "annotations": [{"result": [
        {"type": "rectanglelabels", "original_width": WIDTH, "original_height": HEIGHT, "value": value}]}]}]
    (tmp_path / "e.json").write_text(json.dumps(export))
    import_labels(tmp_path / "e.json", tmp_path / "ds")
    assert yolo_boxes(tmp_path / "ds", "p") == [("9p", pytest.approx((70, 80, 130, 120), abs=1e-3))]


def test_recursive_predict_keeps_photos_of_the_same_name_apart(tmp_path):
    write_photo(tmp_path / "photos" / "a" / "x.png", seed=1)
    write_photo(tmp_path / "photos" / "b" / "x.png", seed=2)
    with pytest.raises(FanscanError, match="--recursive"):
        predict(tmp_path / "photos", tmp_path / "g", "yolo", pipeline=FakePipeline())
    predict(tmp_path / "photos", tmp_path / "g", "yolo", recursive=True, pipeline=FakePipeline())
    assert sorted(p.name for p in (tmp_path / "g" / "images").iterdir()) == ["x-2.png", "x.png"]
    assert (tmp_path / "g" / "images" / "x-2.png").read_bytes() == (tmp_path / "photos" / "b" / "x.png").read_bytes()


def test_cli_predict_on_real_photos_writes_the_pipelines_tiles(tmp_path):
    import shutil

    from fanscan.vision.pipeline import default_pipeline

    from fanscan.cli import main

    samples = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "images"
    photos = tmp_path / "photos"
    photos.mkdir()
    for name in ("hand_001.jpg", "hand_009.jpg"):
        shutil.copy2(samples / name, photos / name)
    assert main(["label", "predict", str(photos), "--out", str(tmp_path / "g"), "--format", "yolo"]) == 0
    names = CLASS_NAMES
    dropped: dict[str, int] = {}
    for name in ("hand_001", "hand_009"):
        proposal = default_pipeline().propose(photos / f"{name}.jpg")
        dropped[name] = sum(t.tile not in names for t in proposal.tiles)  # `none` (not a tile) and backs
        width, height = proposal.image_size
        want = [(t.tile, (min(x for x, _ in t.quad), min(y for _, y in t.quad), max(x for x, _ in t.quad),
                          max(y for _, y in t.quad))) for t in proposal.tiles if t.tile in names]
        got = []
        for line in (tmp_path / "g" / "labels" / f"{name}.txt").read_text().splitlines():
            index, cx, cy, w, h = (float(v) for v in line.split())
            got.append((names[int(index)], ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width,
                                            (cy + h / 2) * height)))
        assert [g[0] for g in got] == [w[0] for w in want] and len(got) >= 12
        for (_, box), (_, expected) in zip(got, want, strict=True):
            assert box == pytest.approx(expected, abs=0.01)
    # Every box the pipeline read as no tile has its line in the report, and no other box is said dropped.
    report = (tmp_path / "g.report.txt").read_text().splitlines()
    for name, count in dropped.items():
        assert sum(line.startswith(f"{name}.jpg: box") and "dropped" in line for line in report) == count
