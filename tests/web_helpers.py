"""Shared by the web tests: a set profile file to start `fanscan serve --profile` with, and a saved YOLO label file
read back as (tile id, centre x, centre y) in pixels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from fanscan.vision.classify import TileClassifier
from fanscan.vision.profile import SetProfile
from fanscan.vision.yolo_data import read_class_names

from fanscan.calibration.profile_file import save_profile

EMBEDDING_SIZE = 160  # the shipped classifier's embedding output


def write_set_profile(path: Path, name: str, favour: str | None = None) -> Path:
    """A profile for the shipped classifier named `name`: no change to the head, or with `favour` a bias that makes
    every tile read as that tile (so a test can tell whether a photo was read with it)."""
    classifier = TileClassifier()
    classes = tuple(classifier.classes)
    bias = np.zeros(len(classes), np.float32)
    if favour is not None:
        bias[classes.index(favour)] = 50.0
    profile = SetProfile(name, "test", "2026-11-30", classifier.sha256, classes,
                         np.zeros((len(classes), EMBEDDING_SIZE), np.float32), bias)
    return save_profile(profile, path)


def saved_labels(dataset: Path, stem: str, image_size: tuple[int, int]) -> list[tuple[str, float, float]]:
    """The label file `labels/STEM.txt` of a YOLO dataset as (class name, centre x, centre y) in pixels."""
    names = read_class_names(dataset / "data.yaml")
    width, height = image_size
    labels = []
    for line in (dataset / "labels" / f"{stem}.txt").read_text(encoding="utf-8").splitlines():
        index, x, y, _, _ = line.split()
        labels.append((names[int(index)], float(x) * width, float(y) * height))
    return labels


def label_of_tile(labels: list[tuple[str, float, float]], box: list[float]) -> str:
    """The class of the label whose centre is that of `box` (x0, y0, x1, y1) within 2 pixels."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    near = [name for name, x, y in labels if abs(x - cx) <= 2 and abs(y - cy) <= 2]
    assert len(near) == 1, (box, labels)
    return near[0]
