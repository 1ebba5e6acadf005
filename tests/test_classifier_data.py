"""Training-data rules of the classifier: held-out source photos, `none` boxes, crop geometry kept in training."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from fanscan.training.augment import patch_to_input
from fanscan.training.classes import CLASSES
from fanscan.training.classifier_train import INPUT_SPEC
from fanscan.training.real_data import STORE_SPEC, _none_boxes, _overlap_fraction, extract_split
from fanscan.vision.crops import crop_quad, quad_from_box
from fanscan.vision.splits import source_of

MINI = Path(__file__).parent / "data" / "mini_yolo" / "train"


def test_augmented_copies_share_their_source() -> None:
    a = source_of(Path("IMG_1_jpg.rf.0123abcd.jpg"))
    b = source_of(Path("IMG_1_jpg.rf.ffff0000.jpg"))
    assert a == b == "IMG_1_jpg"
    assert source_of(Path("IMG_2_jpg.rf.0123abcd.jpg")) != a


def test_classes_are_the_42_tiles_back_and_none() -> None:
    assert len(CLASSES) == 44 and len(set(CLASSES)) == 44
    assert CLASSES[-2:] == ["back", "none"]
    assert {"1m", "9p", "5s", "E", "C", "F", "P", "a", "h"} <= set(CLASSES)


def test_none_boxes_avoid_labelled_tiles() -> None:
    boxes = [(100.0, 100.0, 140.0, 152.0), (141.0, 100.0, 181.0, 152.0), (300.0, 300.0, 340.0, 352.0)]
    found = _none_boxes(boxes, 640, 640, np.random.default_rng(0), count=6)
    assert found
    gaps = [b for b in found if 100 < b[0] < 141 and b[1] == 100.0]
    random_ones = [b for b in found if b not in gaps]
    assert gaps  # the box straddling the two neighbours
    for cand in random_ones:
        assert all(_overlap_fraction(cand, b) < 0.12 for b in boxes)


def test_untouched_patch_gives_the_inference_crop() -> None:
    """Training feeds exactly what `vision.crops` gives at inference (same scale, centre, no stretch)."""
    image = cv2.imread(str(next((MINI / "images").iterdir())))
    quad = quad_from_box(200, 210, 236, 258)
    patch = crop_quad(image, quad, STORE_SPEC)
    direct = crop_quad(image, quad, INPUT_SPEC).astype(int)
    via_patch = patch_to_input(patch, INPUT_SPEC).astype(int)
    assert np.abs(direct - via_patch).mean() < 8
    shifted = crop_quad(image, quad + 15, INPUT_SPEC).astype(int)
    assert np.abs(direct - shifted).mean() > np.abs(direct - via_patch).mean()


def test_extract_split_labels_every_usable_box() -> None:
    patches = extract_split(MINI, none_per_image=2, seed=0)
    labels = [CLASSES[i] for i in patches.labels]
    assert patches.patches.shape[1:] == (STORE_SPEC.height, STORE_SPEC.width, 3)
    assert "none" in labels
    assert len([x for x in labels if x != "none"]) >= 30  # 38 labelled boxes, a few may be unusable
    assert set(patches.groups.tolist()) == {0, 1, 2}  # three source photos
