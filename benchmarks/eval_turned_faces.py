"""Faces turned by a known angle: classifier accuracy by angle, read as is and with `vision.turned_faces`.

    python benchmarks/eval_turned_faces.py --data ../shared/data/chinese-mahjong-v4/train --split dev \
        --json benchmarks/results/turned_faces_dev.json

Every labelled tile of the chosen photos is cut as the pipeline cuts a detection, after the photo was turned 0, 90,
180 or 270 degrees clockwise (`cv2.rotate`) and its box with it. The crop keeps the turned box's shape without
turning it upright (`CropSpec(turn_sideways=False)`), so a quarter-turned face reaches the classifier lying across
its crop, as when the detector gives a tile lying sideways an upright box. Reported for each angle: top-1 as is,
top-1 with the turned readings of `vision.turned_faces` (its shipped settings), the share of crops read turned,
and, of those, the share whose turn undoes the angle (up to a half turn: the classifier reads upside-down faces as
they are). Each crop is read once as is and once at each turn; `grid` applies the rule at other settings to those
readings (how the shipped ones were chosen).

Boxes: the train split's rotated and sheared copies are turned back with `training.label_repair` first (their
upstream boxes are loose); untrusted boxes and copies that cannot be turned back are left out.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from fanscan.training.label_repair import fill_colour, repair
from fanscan.vision import splits
from fanscan.vision.classify import TileClassifier
from fanscan.vision.crops import CropSpec, crop_box
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.turned_faces import LOW_CONFIDENCE, MARGIN, TURNS, choose_turns, turn_crop
from fanscan.vision.yolo_data import find_data_yaml, iter_split, read_class_names
from results_file import report

ANGLES = (0, 90, 180, 270)
ROTATE = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def turned_box(box: np.ndarray, angle: int, width: int, height: int) -> np.ndarray:
    """The box (x0, y0, x1, y1) in a photo of `width` x `height` turned `angle` degrees clockwise."""
    x0, y0, x1, y1 = box
    if angle == 90:
        return np.array([height - y1, x0, height - y0, x1])
    if angle == 180:
        return np.array([width - x1, height - y1, width - x0, height - y0])
    if angle == 270:
        return np.array([y0, width - x1, y1, width - x0])
    return np.asarray(box)


def labelled_tiles(image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The photo, its boxes and which to trust: turned back and tight for a repaired copy; None for a copy that
    cannot be turned back."""
    repaired = repair(image, boxes)
    if repaired is not None:
        return repaired.image, repaired.boxes, repaired.good
    if fill_colour(image) is not None:
        return None
    return image, boxes, np.ones(len(boxes), bool)


def whole_hands(data: Path, split: str, classifier: TileClassifier) -> dict[str, dict]:
    """Whole hands exact (`benchmarks/eval_hands.py`) of the split's hand_* photos, with every crop read as is and
    with uncertain crops read turned too (the product's pipeline); the photos go through a folder of links."""
    from eval_hands import evaluate
    from fanscan.vision.pipeline import Pipeline

    class AsIs(Pipeline):
        def read(self, crops: np.ndarray) -> tuple[list, list[int]]:
            return (self.classifier.classify(crops, self.top_k), [0] * len(crops)) if len(crops) else ([], [])

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for sub in ("images", "labels"):
            (folder / sub).mkdir()
        shutil.copy(find_data_yaml(data), folder / "data.yaml")
        for item in iter_split(data):
            if split == "all" or splits.split_of(item.image_path.name) == split:
                (folder / "images" / item.image_path.name).symlink_to(item.image_path.resolve())
                if item.label_path.exists():
                    (folder / "labels" / item.label_path.name).symlink_to(item.label_path.resolve())
        for name, kind in (("as_is", AsIs), ("any_turn", Pipeline)):
            counted = evaluate(folder, kind(classifier=classifier), progress=False)
            out[name] = {"photos": counted["photos"], "exact": counted["exact"]}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--split", choices=[*splits.SPLITS, "all"], default="all")
    parser.add_argument("--model", type=Path)
    parser.add_argument("--hands", action="store_true",
                        help="also whole hands of the chosen hand_* photos through the Pipeline, as is and turned")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    classifier = TileClassifier(args.model)
    classes = classifier.classes
    spec = CropSpec(classifier.info.width, classifier.info.height, classifier.info.pad, turn_sideways=False)
    names = read_class_names(find_data_yaml(args.data))
    table = guess_table(names)
    # Per angle: the truth, the probabilities as cut, and turned by each of TURNS (read once, every rule below
    # is applied to these).
    truth: list[int] = []
    as_is: dict[int, list[np.ndarray]] = {a: [] for a in ANGLES}
    turned: dict[int, list[np.ndarray]] = {a: [] for a in ANGLES}
    photos, started = 0, time.perf_counter()
    for item in iter_split(args.data):
        if args.split != "all" and splits.split_of(item.image_path.name) != args.split:
            continue
        image = cv2.imread(str(item.image_path))
        h, w = image.shape[:2]
        boxes = np.array([b.to_pixels(w, h) for b in item.boxes], np.float32).reshape(-1, 4)
        tiles = labelled_tiles(image, boxes)
        if tiles is None or len(boxes) == 0:
            continue
        photo, boxes, good = tiles
        ph, pw = photo.shape[:2]
        keep = [i for i in range(len(boxes)) if good[i] and boxes[i, 2] - boxes[i, 0] >= 4
                and boxes[i, 3] - boxes[i, 1] >= 4 and table.get(names[item.boxes[i].class_index]) in classes]
        if not keep:
            continue
        photos += 1
        truth += [classes.index(table[names[item.boxes[i].class_index]]) for i in keep]
        for angle in ANGLES:
            turned_photo = cv2.rotate(photo, ROTATE[angle]) if angle else photo
            crops = [crop_box(turned_photo, turned_box(boxes[i], angle, pw, ph), spec) for i in keep]
            as_is[angle].append(classifier.probabilities(crops))
            read = classifier.probabilities([turn_crop(c, d) for d in TURNS for c in crops])
            turned[angle].append(read.reshape(len(TURNS), len(crops), -1))
    labels = np.array(truth)
    result: dict = {"data": str(args.data), "split": args.split, "model": str(classifier.path), "photos": photos,
                    "crops_per_angle": len(labels), "low_confidence": LOW_CONFIDENCE, "margin": MARGIN,
                    "by_angle": {}, "grid": []}

    def measure(low: float, margin: float) -> dict[str, dict]:
        out = {}
        for angle in ANGLES:
            probs = np.concatenate(as_is[angle])
            kept, turns = choose_turns(probs, np.concatenate(turned[angle], axis=1), classes, low, margin)
            turn = np.array(turns)
            read_turned = turn != 0
            out[str(angle)] = {
                "top1_as_is": round(float((probs.argmax(axis=1) == labels).mean()), 4),
                "top1_any_turn": round(float((kept.argmax(axis=1) == labels).mean()), 4),
                "read_turned": round(float(read_turned.mean()), 4),
                "turn_undoes_angle": round(float(((turn + angle) % 180 == 0)[read_turned].mean()), 4)
                if read_turned.any() else None}
        return out

    for low in (0.5, 0.7, 0.8, 0.9, 0.95):
        for margin in (0.0, 0.1, 0.2, 0.3):
            by_angle = measure(low, margin)
            result["grid"].append({
                "low_confidence": low, "margin": margin,
                "mean_top1_any_turn": round(float(np.mean([v["top1_any_turn"] for v in by_angle.values()])), 4),
                "top1_any_turn_at_0": by_angle["0"]["top1_any_turn"],
                "read_turned_at_0": by_angle["0"]["read_turned"]})
    result["by_angle"] = measure(LOW_CONFIDENCE, MARGIN)
    if args.hands:
        result["whole_hands"] = whole_hands(args.data, args.split, classifier)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return report(result, args.json)


if __name__ == "__main__":
    sys.exit(main())
