"""The detector training machinery end to end: a few tiny steps, a checkpoint, resume, ONNX export, inference."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from vision import detector_data as dd
from vision.detect import TileDetector
from vision.train_detector import main

DATA = Path(__file__).parent / "data" / "mini_yolo" / "train"


def test_smoke_training_checkpoints_resumes_and_exports(tmp_path: Path) -> None:
    out = tmp_path / "run"
    onnx_path = tmp_path / "detector.onnx"
    # No artwork folder: the stand-in back shape is used, so no apt package (librsvg) is needed.
    args = ["--smoke", "--data", str(DATA), "--out", str(out), "--artwork", str(tmp_path / "no-artwork")]
    assert main([*args, "--export", str(onnx_path)]) == 0
    log = (out / "train.log").read_text()
    assert "step 3/3" in log
    assert (out / "last.ckpt").exists()
    # Running again finds the finished checkpoint and resumes instead of starting over.
    assert main(args) == 0
    assert "resumed from" in (out / "train.log").read_text()

    detector = TileDetector(onnx_path, threads=1)
    meta = detector.session.get_modelmeta().custom_metadata_map
    assert detector.info.input_size == 384
    assert json.loads(meta["strides"]) == [4, 8, 16, 32]
    assert json.loads(meta["classes"]) == ["tile"]
    assert "CC BY 4.0" in meta["training_data"]
    image = cv2.imread(str(next((DATA / "images").iterdir())))
    heat, distances, scale = detector.run(image)
    assert heat.shape == (96, 96)
    assert distances.shape == (4, 96, 96)
    assert scale == pytest.approx(384 / 640)
    assert float(heat.min()) >= 0.0 and float(heat.max()) <= 1.0


def test_targets_put_a_peak_at_each_box_centre() -> None:
    sample = dd.Sample(np.zeros((64, 64, 3), np.uint8), np.array([[8, 8, 24, 30], [40, 20, 60, 44]], np.float32))
    heatmap, weight, reg_box, reg_weight, num_pos = dd.encode_targets(sample, 64)
    assert num_pos[0] == 2
    assert heatmap[0, 19 // 4, 16 // 4] == 1.0
    assert heatmap[0, 32 // 4, 50 // 4] == 1.0
    assert np.count_nonzero(heatmap == 1.0) == 2
    assert reg_box[:, 19 // 4, 16 // 4].tolist() == [8, 8, 24, 30]
    assert reg_weight[0, 19 // 4, 16 // 4] > 0
    assert weight.min() == 1.0


def test_ignored_regions_are_neither_positive_nor_negative() -> None:
    sample = dd.Sample(np.zeros((64, 64, 3), np.uint8), np.zeros((0, 4), np.float32),
                       np.array([[0, 0, 16, 16]], np.float32))
    _, weight, _, _, num_pos = dd.encode_targets(sample, 64)
    assert num_pos[0] == 0
    assert weight[0, :4, :4].max() == 0.0
    assert weight[0, 8:, 8:].min() == 1.0


def test_random_samples_keep_boxes_inside_the_crop() -> None:
    images = dd.load_split(DATA)
    rng = np.random.default_rng(1)
    masks = [dd.rounded_rect_mask()]
    for _ in range(20):
        sample = dd.random_sample(images[int(rng.integers(len(images)))], 128, rng, masks, composite_p=1.0)
        assert sample.image.shape == (128, 128, 3)
        if len(sample.boxes):
            assert sample.boxes.min() >= 0 and sample.boxes.max() <= 128
            assert np.all(sample.boxes[:, 2] > sample.boxes[:, 0])
            assert np.all(sample.boxes[:, 3] > sample.boxes[:, 1])


def test_a_row_is_laid_out_again_with_backs_and_keeps_its_tile_count() -> None:
    image = np.full((200, 300, 3), (40, 120, 40), np.uint8)
    boxes = np.array([[40 + 30 * i, 120, 70 + 30 * i, 160] for i in range(5)], np.float32)
    for x0, y0, x1, y1 in boxes.astype(int):
        cv2.rectangle(image, (x0 + 1, y0), (x1 - 2, y1 - 1), (230, 240, 245), -1)
    assert dd.row_of(boxes, 2) == [0, 1, 2, 3, 4]
    rng = np.random.default_rng(4)
    relaid = dd.relay_row(image, boxes, [dd.rounded_rect_mask()], rng)
    assert relaid is not None
    picture, positives, ignored = relaid
    assert len(positives) == 5
    # Every new box sits on the row's bottom line, side by side without overlap.
    assert np.all(positives[:, 3] == 160)
    assert np.all(positives[1:, 0] >= positives[:-1, 2])
    assert ignored[-1].tolist() == [40, 120, positives[:, 2].max(), 160]
    # At least one tile is now face down: its box no longer looks like the ivory face.
    faces = [picture[int(y0):int(y1), int(x0):int(x1)].mean() for x0, y0, x1, y1 in positives]
    assert min(faces) < 200 < max(faces)
