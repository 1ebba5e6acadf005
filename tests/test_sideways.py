"""vision.sideways: the local look at boxes that may lie sideways (geometry synthetic; the shipped model on a row
laid from a real photo's tiles with one turned at a known place)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from fanscan.training.label_repair import repair
from fanscan.vision import sideways
from fanscan.vision.detect import DEFAULT_MODEL, TileDetector
from fanscan.vision.detection_metrics import iou_matrix, match
from fanscan.vision.yolo_data import iter_split

DATA = Path(__file__).parent / "data" / "mini_yolo" / "train"
needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="models/tile_detector.onnx not shipped yet")


def test_only_upright_boxes_wider_than_their_neighbours_are_candidates() -> None:
    upright = [[x, 0, x + 30, 40] for x in range(0, 300, 30)]  # aspect 0.75, the photo's median
    boxes = np.array([*upright, [300, 0, 337.5, 40], [340, 0, 379, 40], [380, 0, 412, 40], [420, 0, 480, 40]],
                     np.float32)
    # Against the median 0.75: 37.5/40 is 1.25 x and 39/40 is 1.3 x (candidates, the wider first); 32/40 is only
    # 1.07 x (an upright tile's box a little loose); 60/40 already lies sideways and needs no look.
    chosen = sideways.candidates(boxes)
    assert list(chosen) == [11, 10]
    assert len(sideways.candidates(np.array(upright, np.float32))) == 0


def test_a_detection_in_a_mosaic_cell_maps_back_to_its_patch_in_the_photo() -> None:
    photo = np.zeros((400, 600, 3), np.uint8)
    boxes = np.array([[100, 100, 130, 140], [300, 200, 340, 260], [500, 50, 520, 80]], np.float32)
    mosaic, patches = sideways.build_mosaic(photo, boxes)
    assert mosaic.shape == (2 * sideways.CELL, 2 * sideways.CELL, 3)  # three patches: two columns, two rows
    # Patch k: a square of CONTEXT x the long side centred on box k (worked out by hand here).
    side = sideways.CONTEXT * 60
    assert patches[1] == pytest.approx([320 - side / 2, 230 - side / 2, side])
    # A detection filling the middle half of cell 1 (row 0, column 1) is the middle half of patch 1.
    cell, patch = sideways.CELL, sideways.PATCH
    margin = (cell - patch) / 2
    found = np.array([[cell + margin + patch / 4, margin + patch / 4, cell + margin + 3 * patch / 4,
                       margin + 3 * patch / 4]], np.float32)
    centres = (found[:, :2] + found[:, 2:]) / 2
    local = sideways.local_boxes(found, centres, patches)
    assert local[1] == pytest.approx([320 - side / 4, 230 - side / 4, 320 + side / 4, 230 + side / 4], abs=1e-3)
    assert np.isnan(local[0]).all() and np.isnan(local[2]).all()  # nothing near those cells' centres


def test_only_clearly_wide_local_boxes_count_as_turned() -> None:
    local = np.array([[0, 0, 60, 40], [0, 0, 40, 40], [0, 0, 30, 40], [np.nan] * 4], np.float32)
    assert list(sideways.turned(local)) == [True, False, False, False]


def row_with_a_turned_tile(turned_at: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A row laid from the tight tiles of a real photo, touching, on a felt-green table, the tile at `turned_at`
    turned a quarter: (picture, the turned tile's box, the other tiles' boxes)."""
    item = next(i for i in iter_split(DATA) if i.image_path.name.startswith("IMG_20231030"))
    image = cv2.imread(str(item.image_path))
    h, w = image.shape[:2]
    repaired = repair(image, np.array([b.to_pixels(w, h) for b in item.boxes], np.float32))
    assert repaired is not None and repaired.good.all()
    crops = [repaired.image[int(y0):int(y1), int(x0):int(x1)] for x0, y0, x1, y1 in repaired.boxes]
    crops = [np.rot90(c).copy() if i == turned_at else c for i, c in enumerate(crops[:10])]
    height = max(c.shape[0] for c in crops)
    picture = np.empty((height * 5, sum(c.shape[1] for c in crops) + 2 * height, 3), np.uint8)
    picture[:] = (40, 110, 30)
    picture = cv2.add(picture, np.random.default_rng(1).integers(0, 20, picture.shape, dtype=np.uint8))
    bottom, x = 3 * height, height
    turned, others = None, []
    for i, crop in enumerate(crops):
        ch, cw = crop.shape[:2]
        picture[bottom - ch:bottom, x:x + cw] = crop
        box = [x, bottom - ch, x + cw, bottom]
        if i == turned_at:
            turned = box
        else:
            others.append(box)
        x += cw
    return picture, np.array(turned, np.float32), np.array(others, np.float32)


@needs_model
def test_a_turned_tile_in_a_row_gets_its_turned_box_and_the_others_keep_theirs() -> None:
    picture, turned, others = row_with_a_turned_tile(7)
    detector = TileDetector()
    tiles = detector.detect(picture)
    boxes = np.array([t.box for t in tiles], np.float32).reshape(-1, 4)
    best = int(np.argmax(iou_matrix(boxes, turned[None])[:, 0]))
    assert iou_matrix(boxes[best:best + 1], turned[None])[0, 0] >= 0.7  # its own box, not an upright one beside it
    assert tiles[best].orientation == "sideways"
    assert len(match(boxes, others, 0.5)) >= len(others) - 1
    # Without the local look the same row keeps the others as well (the look changes only candidates).
    detector.sideways_check = False
    plain = np.array([t.box for t in detector.detect(picture)], np.float32).reshape(-1, 4)
    assert len(match(plain, others, 0.5)) <= len(match(boxes, others, 0.5)) + 1
