"""Shared pieces of the `fanscan label` tests: synthetic photos with drawn tiles, and a stand-in for the photo
pipeline that reports given tiles (so the format tests know every box without running the models)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

# Tiles drawn on every synthetic photo: (tile id, x0, y0, x1, y1) in pixels of a 400 x 300 photo.
TILES = [("1m", 20, 40, 60, 96), ("9p", 70, 40, 110, 96), ("E", 120, 40, 160, 96), ("a", 170, 40, 210, 96),
         ("P", 300, 150, 340, 206)]
WIDTH, HEIGHT = 400, 300


def felt(seed: int = 0) -> np.ndarray:
    """A green table with the faint noise of a real photo (grey-level spread about 1.5)."""
    rng = np.random.default_rng(seed)
    image = np.full((HEIGHT, WIDTH, 3), (60, 120, 40), np.float64)
    image += rng.normal(0, 1.5, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def draw_tile(image: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
    """A white tile with dark strokes on its face."""
    cv2.rectangle(image, (x0, y0), (x1 - 1, y1 - 1), (235, 235, 235), -1)
    cv2.line(image, (x0 + 8, y0 + 10), (x1 - 8, y1 - 10), (20, 20, 20), 3)
    cv2.circle(image, ((x0 + x1) // 2, (y0 + y1) // 2), 7, (30, 30, 160), -1)


def write_photo(path: Path, tiles=TILES, seed: int = 0) -> Path:
    image = felt(seed)
    for _, x0, y0, x1, y1 in tiles:
        draw_tile(image, x0, y0, x1, y1)
    path.parent.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(path), image)
    return path


def quad(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


class FakePipeline:
    """Proposes, for every photo, the tiles given for its file name (default: TILES, all at confidence 0.9)."""

    def __init__(self, tiles_by_name: dict[str, list] | None = None) -> None:
        self.tiles_by_name = tiles_by_name or {}

    def propose(self, loaded):
        tiles = self.tiles_by_name.get(Path(loaded.path).name, [(*t, 0.9) for t in TILES])
        return SimpleNamespace(tiles=[SimpleNamespace(tile=tile, quad=quad(x0, y0, x1, y1), confidence=score)
                                      for tile, x0, y0, x1, y1, score in tiles])


def yolo_boxes(dataset: Path, stem: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    """(class name, (x0, y0, x1, y1) in pixels of the 400 x 300 photo) of one label file, read by hand."""
    names_line = next(line for line in (dataset / "data.yaml").read_text().splitlines() if line.startswith("names:"))
    names = [n.strip().strip("'") for n in names_line.split("[", 1)[1].rstrip("]").split(",")]
    boxes = []
    for line in (dataset / "labels" / f"{stem}.txt").read_text().splitlines():
        index, cx, cy, w, h = line.split()
        cx, cy, w, h = float(cx) * WIDTH, float(cy) * HEIGHT, float(w) * WIDTH, float(h) * HEIGHT
        boxes.append((names[int(index)], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
    return boxes
