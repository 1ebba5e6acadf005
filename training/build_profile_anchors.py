"""Build the profile anchors (`fanscan.calibration.anchors`) from the training split of chinese-mahjong-v4.

    python -m fanscan.training.build_profile_anchors --data ../shared/data/chinese-mahjong-v4/train

For each of the classifier's tile kinds, up to `--per-kind` labelled boxes of the *training* split
(`vision.splits`: never a development session, so that no development figure reads its own photos back), spread
over as many photo sessions as there are (round-robin), whole tiles (either way round), from photos square on and in
colour (not copies the dataset's augmentation rotated or turned grey). Each box is cut as `fanscan calibrate` cuts a
labelled box (its plain crop, `calibration.views.plain_crop`) and read by the profile classifier at every zoom of
`fit.CROP_ZOOMS`.
Writes `models/tile_classifier_profiles_anchors.npz`, keyed by that classifier file's sha256.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
from fanscan.training.real_data import is_grey, is_rotated_photo
from fanscan.vision.classify import PROFILE_MODEL, TileClassifier
from fanscan.vision.crops import quad_from_box, zoom_crop
from fanscan.vision.dataset_classes import guess_table
from fanscan.vision.splits import TRAIN, session_of, split_of
from fanscan.vision.yolo_data import LabelBox, find_data_yaml, iter_split, read_class_names

from fanscan.calibration.anchors import Anchors, anchors_path, save_anchors
from fanscan.calibration.fit import CROP_ZOOMS
from fanscan.calibration.sources import context_tile
from fanscan.calibration.views import plain_crop

PER_KIND = 40
MIN_SIDE = 24  # px: big enough to read as a calibration photo shows a tile


def candidate_boxes(data: Path) -> dict[str, dict[str, list[tuple[Path, LabelBox]]]]:
    """Every labelled box of the training split: per tile kind, per photo session, (image, label box)."""
    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    by_kind: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for item in iter_split(data):
        if split_of(item.image_path) != TRAIN or not item.boxes:
            continue
        for box in item.boxes:
            if not 0 <= box.class_index < len(names):
                continue
            # labels are fractions of the image: shape and size are judged in pixels once the image is read
            by_kind[table[names[box.class_index]]][session_of(item.image_path)].append((item.image_path, box))
    return by_kind


def anchor_crops(data: Path, classes: tuple[str, ...], spec,
                 per_kind: int) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Plain crops, class indices and image names of up to `per_kind` anchors a tile kind (see the module doc)."""
    images: dict[Path, np.ndarray | None] = {}

    def image_of(path: Path) -> np.ndarray | None:
        if path not in images:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            images[path] = None if image is None or is_rotated_photo(image) or is_grey(image) else image
        return images[path]

    crops, labels, photos = [], [], []
    for kind, sessions in sorted(candidate_boxes(data).items()):
        if kind not in classes:
            continue
        order = [sessions[s][i] for i in range(max(len(v) for v in sessions.values())) for s in sorted(sessions)
                 if i < len(sessions[s])]
        taken = 0
        for path, box in order:
            image = image_of(path)
            if image is None:
                continue
            clamped = box.clamped_pixels(image.shape[1], image.shape[0])
            if clamped is None:
                continue
            x0, y0, x1, y1 = clamped
            long, short = max(x1 - x0, y1 - y0), min(x1 - x0, y1 - y0)
            if not (1.2 <= long / short <= 1.8 and short >= MIN_SIDE):  # one whole tile, either way round
                continue
            tile = context_tile(image, quad_from_box(x0, y0, x1, y1), kind, path.name)
            crops.append(plain_crop(tile, spec))
            labels.append(classes.index(kind))
            photos.append(path.name)
            taken += 1
            if taken == per_kind:
                break
    return crops, labels, photos


def build(data: Path, model: Path, per_kind: int = PER_KIND) -> Anchors:
    classifier = TileClassifier(model)
    classes = tuple(classifier.classes)
    crops, labels, photos = anchor_crops(data, classes, classifier.crop_spec, per_kind)
    if not crops:
        raise SystemExit(f"{data}: no usable labelled box of the training split")
    logits, embeddings = [], []
    for zoom in CROP_ZOOMS:
        zoomed = [zoom_crop(crop, zoom) for crop in crops]
        read = [classifier.logits_and_embeddings(zoomed[i:i + 256]) for i in range(0, len(zoomed), 256)]
        logits.append(np.concatenate([r[0] for r in read]))
        embeddings.append(np.concatenate([r[1] for r in read]))
    return Anchors(classifier.sha256, classes, tuple(CROP_ZOOMS), np.array(labels, np.int64), np.stack(logits),
                   np.stack(embeddings), tuple(photos))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="chinese-mahjong-v4's train folder (YOLO layout)")
    parser.add_argument("--model", type=Path, default=PROFILE_MODEL, help="the profile classifier file")
    parser.add_argument("--per-kind", type=int, default=PER_KIND)
    parser.add_argument("--out", type=Path, default=None, help="default: beside the shipped models")
    args = parser.parse_args(argv)
    anchors = build(args.data, args.model, args.per_kind)
    out = args.out or anchors_path()
    save_anchors(out, anchors)
    counts = np.bincount(anchors.labels, minlength=len(anchors.classes))
    tiles = [i for i, c in enumerate(anchors.classes) if c not in ("back", "none")]
    print(f"{out}: {len(anchors.labels)} anchors, {min(counts[tiles])}-{max(counts[tiles])} a tile kind, "
          f"zooms {', '.join(f'{z:g}' for z in anchors.zooms)}, {out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
