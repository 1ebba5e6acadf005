"""The shipped classifier (models/tile_classifier.onnx) through the real crop path, on three bundled photos.

The photos come from the train split (tests/data/mini_yolo/SOURCE.md), so this checks the wiring — metadata,
crop geometry, channel order, class order — not generalisation; benchmarks/eval_classifier.py measures that.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from fanscan.vision.classify import DEFAULT_MODEL, TileClassifier
from fanscan.vision.crops import crop_box, crop_tiles, quad_from_box
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.yolo_data import find_data_yaml, iter_split, read_class_names

MINI = Path(__file__).parent / "data" / "mini_yolo" / "train"

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped classifier model in models/")


@pytest.fixture(scope="module")
def classifier() -> TileClassifier:
    return TileClassifier(threads=1)


def test_shipped_model_knows_every_tile_back_and_none(classifier: TileClassifier) -> None:
    table = guess_table(read_class_names(find_data_yaml(MINI)))
    assert set(table.values()) | {"back", "none"} == set(classifier.classes)
    assert len(classifier.classes) == 44


def test_shipped_model_reads_the_bundled_tiles(classifier: TileClassifier) -> None:
    names = read_class_names(find_data_yaml(MINI))
    table = guess_table(names)
    right = total = 0
    for item in iter_split(MINI):
        image = cv2.imread(str(item.image_path))
        h, w = image.shape[:2]
        boxes = [b.to_pixels(w, h) for b in item.boxes]
        crops = np.stack([crop_box(image, box, classifier.crop_spec) for box in boxes])
        for box, top in zip(item.boxes, classifier.classify(crops, k=1), strict=True):
            total += 1
            right += top[0][0] == table[names[box.class_index]]
    assert total >= 30
    assert right / total >= 0.9


def test_upside_down_tile_reads_the_same(classifier: TileClassifier) -> None:
    item = next(iter(iter_split(MINI)))
    image = cv2.imread(str(item.image_path))
    h, w = image.shape[:2]
    quads = [quad_from_box(*b.to_pixels(w, h)) for b in item.boxes]
    upright = classifier.classify(crop_tiles(image, quads, classifier.crop_spec), k=1)
    turned_image = cv2.rotate(image, cv2.ROTATE_180)
    turned_quads = [np.array([w, h], np.float32) - q for q in quads]
    turned = classifier.classify(crop_tiles(turned_image, turned_quads, classifier.crop_spec), k=1)
    same = sum(a[0][0] == b[0][0] for a, b in zip(upright, turned, strict=True))
    assert same >= len(quads) - 1


def test_bare_felt_is_not_a_tile(classifier: TileClassifier) -> None:
    rng = np.random.default_rng(0)
    felt = np.clip(np.array([60, 120, 45]) + rng.normal(0, 6, (80, 64, 3)), 0, 255).astype(np.uint8)
    assert classifier.classify([felt], k=1)[0][0][0] == "none"


class CountingSession:
    """A stand-in for the onnxruntime session that counts runs and the crops of each (then runs the real one)."""

    def __init__(self, session) -> None:
        self.session, self.batches = session, []

    def run(self, outputs, feeds):
        self.batches.append(len(next(iter(feeds.values()))))
        return self.session.run(outputs, feeds)


def test_a_batch_read_in_parts_side_by_side_reads_as_one_batch() -> None:
    crops = np.random.default_rng(5).integers(0, 256, (14, 80, 64, 3), dtype=np.uint8)
    whole, parted = TileClassifier(threads=1), TileClassifier(threads=2)
    whole.session, parted.session = CountingSession(whole.session), CountingSession(parted.session)
    one, two = whole.probabilities(crops), parted.probabilities(crops)
    assert whole.session.batches == [14] and sorted(parted.session.batches) == [7, 7]
    assert np.allclose(one, two, atol=1e-6) and (one.argmax(axis=1) == two.argmax(axis=1)).all()
    logits, embeddings = parted.logits_and_embeddings(crops)
    assert logits.shape == (14, 44) and len(embeddings) == 14
    parted.session.batches.clear()
    parted.probabilities(crops[:5])  # too few crops for two parts of MIN_CROPS_PER_PART
    assert parted.session.batches == [5]
