"""Calibration tiles from what the user gives `fanscan calibrate`: a YOLO-layout folder, or laid-out photos.

A laid-out photo shows one tile of each of the 42 kinds in five rows, faces up, top to bottom:

    1m 2m 3m 4m 5m 6m 7m 8m 9m        characters 1-9
    1p 2p 3p 4p 5p 6p 7p 8p 9p        dots 1-9
    1s 2s 3s 4s 5s 6s 7s 8s 9s        bamboo 1-9
    E  S  W  N  C  F  P               winds east south west north, dragons red green white
    a  b  c  d  e  f  g  h            flowers plum orchid bamboo chrysanthemum, seasons spring summer autumn winter

The detector finds the tiles, `vision.rows` puts them in rows (top to bottom) and in order along each row (left to
right), and the labels follow from the positions. Flowers go by their picture, not by the number printed on them
(makers number them differently). A photo whose tiles do not form exactly these rows is refused with what was found.

Every tile is kept as a context crop around it (the tile with half its size of photo on each side, scaled so the
tile is at most `CONTEXT_TILE_SIDE` pixels long), so that views can move the box and warp the tile without
decoding the photo again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from fanscan.labels.yolo import yolo_splits
from fanscan.scoring.errors import FanscanError
from fanscan.vision.crops import order_quad, quad_from_box
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.load import load_image
from fanscan.vision.rows import find_rows
from fanscan.vision.yolo_data import IMAGE_SUFFIXES, find_data_yaml, iter_split, read_class_names

LAYOUT: tuple[tuple[str, ...], ...] = (
    tuple(f"{n}m" for n in range(1, 10)),
    tuple(f"{n}p" for n in range(1, 10)),
    tuple(f"{n}s" for n in range(1, 10)),
    ("E", "S", "W", "N", "C", "F", "P"),
    ("a", "b", "c", "d", "e", "f", "g", "h"),
)
LAYOUT_TILES = sum(len(row) for row in LAYOUT)
CONTEXT_MARGIN = 0.5  # photo kept around a tile, as a share of its longer side
CONTEXT_TILE_SIDE = 200  # px: the tile's longer side in a context crop (the model input is 80 px tall)
NOT_A_TILE = ("back", "none")


@dataclass(frozen=True)
class CalibrationTile:
    """One labelled tile: a context crop, the tile's quad inside it, its tile id and the photo it came from."""

    context: np.ndarray
    quad: np.ndarray  # (4, 2) float32 in context pixels, tl tr br bl
    tile: str
    photo: str
    centre: tuple[float, float] = (0.0, 0.0)  # the tile's centre in the photo's (working) pixels


def context_tile(image: np.ndarray, quad: np.ndarray, tile: str, photo: str) -> CalibrationTile:
    """The tile's context crop (see the module doc) and its quad moved into it."""
    quad = order_quad(quad)
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    side = float(max(x1 - x0, y1 - y0, 1.0))
    margin = CONTEXT_MARGIN * side
    height, width = image.shape[:2]
    left, top = int(max(0, np.floor(x0 - margin))), int(max(0, np.floor(y0 - margin)))
    right, bottom = int(min(width, np.ceil(x1 + margin))), int(min(height, np.ceil(y1 + margin)))
    region = image[top:bottom, left:right]
    scale = min(1.0, CONTEXT_TILE_SIDE / side)
    if scale < 1.0:
        size = (max(1, round(region.shape[1] * scale)), max(1, round(region.shape[0] * scale)))
        region = cv2.resize(region, size, interpolation=cv2.INTER_AREA)
    moved = (quad - np.array([left, top], np.float32)) * np.float32(scale)
    centre = (float(quad[:, 0].mean()), float(quad[:, 1].mean()))
    return CalibrationTile(np.ascontiguousarray(region), moved.astype(np.float32), tile, photo, centre)


def tiles_from_yolo(folder: str | Path) -> list[CalibrationTile]:
    """Every labelled box of a YOLO-layout folder whose class is a tile (42 dataset names or fanscan tile ids)."""
    folder = Path(folder)
    tiles: list[CalibrationTile] = []
    labelled_files = 0
    for split in yolo_splits(folder):
        data_yaml = find_data_yaml(split)
        names = read_class_names(data_yaml)
        try:
            table = guess_table(names)
        except FanscanError as error:
            raise FanscanError(f"{data_yaml}: {error} (expected the 42 names of chinese-mahjong-v4 or fanscan's "
                               f"tile ids 1m..9m 1p..9p 1s..9s E S W N C F P a..h)") from None
        for item in iter_split(split):
            if not item.boxes:
                continue
            labelled_files += 1
            loaded = load_image(item.image_path)
            height, width = loaded.image.shape[:2]
            for number, box in enumerate(item.boxes, start=1):
                if not 0 <= box.class_index < len(names):
                    raise FanscanError(f"{item.label_path}:{number}: class {box.class_index} is not in "
                                       f"{data_yaml.name} ({len(names)} names)")
                if not box.is_finite(width, height):  # NaN passes max/min below: it would be the whole photo
                    print(f"fanscan calibrate: {item.label_path}:{number}: box coordinates not finite numbers "
                          "(NaN, infinite or too large): left out", file=sys.stderr)
                    continue
                clamped = box.clamped_pixels(width, height)
                if clamped is None:
                    continue
                x0, y0, x1, y1 = clamped
                tiles.append(context_tile(loaded.image, quad_from_box(x0, y0, x1, y1), table[names[box.class_index]],
                                          item.image_path.name))
    if not tiles:
        raise FanscanError(f"{folder}: no labelled tile boxes (labels/ is empty or missing; {labelled_files} label "
                           f"files with boxes)")
    return tiles


def layout_labels(quads: Sequence[np.ndarray], where: str) -> list[str]:
    """Tile ids for detected tiles laid out as `LAYOUT`, in the order of `quads`; a one-line error otherwise."""
    layout = find_rows([tuple((float(x), float(y)) for x, y in np.asarray(q).reshape(4, 2)) for q in quads])
    counts = [len(row.tiles) for row in layout.rows]
    expected = [len(row) for row in LAYOUT]
    if counts != expected:
        raise FanscanError(
            f"{where}: found {len(quads)} tiles in {len(counts)} rows ({', '.join(map(str, counts)) or 'none'}); "
            f"a calibration photo has {LAYOUT_TILES} tiles in {len(LAYOUT)} rows of {', '.join(map(str, expected))} "
            f"(see fanscan calibrate --help)")
    labels = [""] * len(quads)
    for row, names in zip(layout.rows, LAYOUT, strict=True):
        for index, name in zip(row.tiles, names, strict=True):
            labels[index] = name
    return labels


def tiles_from_layout_photo(photo: str | Path, detector, classifier) -> list[CalibrationTile]:
    """The 42 tiles of a laid-out photo (see the module doc). Detections the shipped classifier calls `back` or
    `none` are left out before the rows are counted."""
    from fanscan.vision.crops import crop_tiles

    loaded = load_image(photo)
    detections = detector.detect(loaded.image)
    if detections:
        readings = classifier.classify(crop_tiles(loaded.image, [d.quad for d in detections], classifier.crop_spec),
                                       k=1)
        detections = [d for d, r in zip(detections, readings, strict=True) if r[0][0] not in NOT_A_TILE]
    quads = [np.asarray(d.quad, np.float32) for d in detections]
    labels = layout_labels(quads, str(photo))
    name = Path(photo).name
    return [context_tile(loaded.image, quad, label, name) for quad, label in zip(quads, labels, strict=True)]


def read_sources(sources: Iterable[str | Path], detector_factory, classifier) -> list[CalibrationTile]:
    """Calibration tiles from every SOURCE: a folder is a YOLO dataset, a file a laid-out photo."""
    tiles: list[CalibrationTile] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            tiles.extend(tiles_from_yolo(path))
        elif path.is_file():
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                raise FanscanError(f"{path}: not a photo ({', '.join(IMAGE_SUFFIXES)}) or a YOLO-layout folder")
            tiles.extend(tiles_from_layout_photo(path, detector_factory(), classifier))
        else:
            raise FanscanError(f"{path}: no such file or folder")
    return tiles
