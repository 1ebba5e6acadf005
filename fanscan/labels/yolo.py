"""YOLO layout: `images/`, `labels/` (one `class cx cy w h` line per box, fractions of the photo), `data.yaml`.

Datasets fanscan writes name their classes with fanscan's 42 tile ids (`classes.CLASS_NAMES`). A turned box is
written as the axis-aligned box around it (plain YOLO has no turn; every reader of datasets here takes boxes).
Reading takes any names a table knows (Chinese Mahjong Detection v4's `sc1`, ...) and one split (`images/`
inside) or several (`train/`, `valid/`, `test/`, each with `images/`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from fanscan.labels.atomic import place_photo, write_text
from fanscan.labels.classes import CLASS_INDEX, CLASS_NAMES
from fanscan.labels.model import Box, LabelledPhoto, SourcePhoto
from fanscan.scoring.errors import FanscanError
from fanscan.vision.yolo_data import LabelBox, find_data_yaml, iter_split, read_class_names

DATA_YAML = "data.yaml"


def data_yaml_text(names: Iterable[str] = CLASS_NAMES) -> str:
    quoted = ", ".join(f"'{name}'" for name in names)
    names = list(names)
    return (
        "# Written by fanscan: class names are fanscan tile ids (1m..9m 1p..9p 1s..9s, E S W N winds,\n"
        "# C F P red / green / white dragon, a-d flowers plum orchid bamboo chrysanthemum, e-h seasons).\n"
        "path: .\ntrain: images\nval: images\n"
        f"nc: {len(names)}\nnames: [{quoted}]\n"
    )


def label_lines(boxes: Iterable[Box], width: int, height: int, class_index: dict[str, int] = CLASS_INDEX) -> str:
    """The label file of a photo: one `class cx cy w h` line per box (the axis-aligned box around a turned one)."""
    lines = []
    for box in boxes:
        x0, y0, x1, y1 = box.bounds()
        values = ((x0 + x1) / 2 / width, (y0 + y1) / 2 / height, (x1 - x0) / width, (y1 - y0) / height)
        lines.append(f"{class_index[box.label]} " + " ".join(f"{v:.6f}" for v in values))
    return "".join(f"{line}\n" for line in lines)


def unique_stem(stem: str, taken: set[str]) -> str:
    """`stem` (unsafe characters replaced), or `stem-2`, `stem-3`, ...: one not in `taken`, which it joins."""
    stem = re.sub(r"[^\w.-]+", "_", stem) or "photo"
    candidate, n = stem, 1
    while candidate in taken:
        n += 1
        candidate = f"{stem}-{n}"
    taken.add(candidate)
    return candidate


def stems_in(folder: Path) -> set[str]:
    """The stems of the photos and label files a dataset folder holds already."""
    return {path.stem for sub in ("images", "labels") if (folder / sub).is_dir() for path in (folder / sub).iterdir()}


def write_dataset(folder: Path, photos: Iterable[LabelledPhoto]) -> int:
    """A YOLO dataset in `folder` (empty or new) with fanscan's class names; returns the number of photos."""
    images, labels = folder / "images", folder / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    count = 0
    for photo in photos:
        stem = unique_stem(photo.image.stem, taken)
        write_text(labels / f"{stem}.txt", label_lines(photo.boxes, photo.width, photo.height))
        place_photo(photo.image, images / f"{stem}{photo.image.suffix.lower()}")
        count += 1
    write_text(folder / DATA_YAML, data_yaml_text())
    return count


def yolo_splits(folder: Path) -> list[Path]:
    """The folder itself when it holds images/, else its sub-folders that do (train/, valid/, test/ ...)."""
    if (folder / "images").is_dir():
        return [folder]
    splits = sorted(p for p in folder.iterdir() if p.is_dir() and (p / "images").is_dir())
    if not splits:
        raise FanscanError(f"{folder}: not a YOLO folder (no images/ in it or in a split folder below it)")
    return splits


def _on_photo(boxes: tuple[LabelBox, ...], names: list[str]):
    def place(width: int, height: int) -> list[Box]:
        placed = []
        for b in boxes:
            label = names[b.class_index] if 0 <= b.class_index < len(names) else f"class index {b.class_index}"
            placed.append(Box.from_bounds(label, *b.to_pixels(width, height)))
        return placed
    return place


def read_dataset(folder: Path) -> list[SourcePhoto]:
    """Every photo of a YOLO folder with its boxes (labels by name, as `data.yaml` gives them)."""
    folder = Path(folder)
    photos = []
    for split in yolo_splits(folder):
        if not (split / "labels").is_dir():
            raise FanscanError(f"{split}: no labels/ folder beside images/ (nothing to import)")
        names = read_class_names(find_data_yaml(split))
        for item in iter_split(split):
            notes = []
            if not item.label_path.exists():
                notes.append("no label file: a photo without tiles")
            if any(b.from_polygon for b in item.boxes):
                notes.append("polygon labels read as the boxes around them")
            reference = str(item.image_path)
            name = str(item.image_path.relative_to(folder))
            photos.append(SourcePhoto(reference, name, _on_photo(item.boxes, names), None, notes))
    return photos
