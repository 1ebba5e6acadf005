"""benchmarks/artwork_close_ups.py: each photo is a camera frame whose labels box the rendered tiles on the sheet."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
ARTWORK = Path(__file__).resolve().parents[2] / "shared" / "artwork"


@pytest.mark.skipif(not (ARTWORK / "gleitz-mit").is_dir(), reason="needs ../shared/artwork")
def test_labels_box_the_tiles_and_the_sheet_around_them_is_plain(tmp_path):
    import artwork_close_ups

    counts = artwork_close_ups.build(tmp_path / "built", ARTWORK, photos=6)
    images = sorted((tmp_path / "built" / "images").glob("*.jpg"))
    assert counts["photos"] == len(images) == 6
    for image_path in images:
        photo = cv2.imread(str(image_path))
        height, width = photo.shape[:2]
        assert max(height, width) / min(height, width) == pytest.approx(4 / 3, abs=0.01)  # a camera's frame
        lines = (tmp_path / "built" / "labels" / f"{image_path.stem}.txt").read_text().split("\n")
        boxes = np.array([[float(v) for v in line.split()[1:]] for line in lines if line])
        assert 1 <= len(boxes) <= 4
        tiles = np.zeros((height, width), bool)
        for cx, cy, bw, bh in boxes:
            assert 0.2 < bh / bw * height / width < 2.0  # tile-shaped, upright
            tiles[int((cy - bh / 2) * height):int((cy + bh / 2) * height),
                  int((cx - bw / 2) * width):int((cx + bw / 2) * width)] = True
            # Ink of the face inside each box: the tile is there, not just paper.
            inside = photo[int((cy - bh / 2) * height):int((cy + bh / 2) * height),
                           int((cx - bw / 2) * width):int((cx + bw / 2) * width)]
            assert float(inside.std()) > 20
        # The sheet outside the boxes and their shadows' reach is plain.
        grown = cv2.dilate(tiles.astype(np.uint8), np.ones((41, 41), np.uint8)).astype(bool)
        assert float(cv2.Laplacian(photo, cv2.CV_32F)[~grown].std()) < 10
