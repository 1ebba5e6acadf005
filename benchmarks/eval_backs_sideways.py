"""Does the detector propose face-down and sideways tiles? Measured on composites of the test hand photos.

    python benchmarks/eval_backs_sideways.py --data ../shared/data/chinese-mahjong-v4/test --json runs/backs.json

The labels have no face-down tiles and few sideways tiles in rows, so this builds them: the row of every `hand_*`
photo is laid out again from its own tiles, touching, with the 2nd and 3rd tiles face down (rendered backs, as a
concealed kong shows them) and the second-to-last turned a quarter (a claimed tile). Then: the share of those backs
and sideways tiles detected at IoU >= 0.5, and recall on the other tiles of the row.

Caveat: the backs come from the same renderer as the training composites
(`fanscan.training.detector_data.render_back`), so this shows that the detector learned
them, not how it does on a real set's backs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
from fanscan.training import detector_data as dd
from fanscan.vision.detect import TileDetector
from fanscan.vision.detection_metrics import match
from fanscan.vision.yolo_data import iter_split
from results_file import ROOT, write_json

DEFAULT_ARTWORK = ROOT.parent / "shared" / "artwork" / "fluffystuff-cc0"


def back_shapes(artwork: Path) -> list[np.ndarray]:
    svgs = sorted(artwork.glob("*/Back.svg"))
    try:
        return dd.rasterise_backs(svgs, ROOT / "work_data" / "detector_backs") if svgs else [dd.rounded_rect_mask()]
    except Exception:  # no rsvg-convert: the stand-in shape
        return [dd.rounded_rect_mask()]


def composite(image: np.ndarray, boxes: np.ndarray, masks: list[np.ndarray], rng: np.random.Generator):
    """The photo's row of tiles laid out again: two tiles face down (rendered backs), one turned a quarter.

    The tiles are cut from the photo and put back touching, left to right, on the row's bottom line, after the
    row's strip was covered with the table strip just above it. Returns (image, back boxes, sideways boxes,
    other boxes), or None when the photo has no single row of at least six tiles with table above it.
    """
    order = np.argsort((boxes[:, 0] + boxes[:, 2]) / 2)
    if len(order) < 6:
        return None
    tight = boxes[order].round().astype(int)
    top, bottom = int(tight[:, 1].min()), int(tight[:, 3].max())
    height = bottom - top
    if top - height < 0:
        return None
    picture = image.copy()
    crops = [image[y0:y1, x0:x1].copy() for x0, y0, x1, y1 in tight]
    x_start, x_end = int(tight[:, 0].min()), int(tight[:, 2].max())
    picture[top:bottom, x_start:x_end] = image[top - height:top, x_start:x_end]
    backs_at, side_at = {1, 2}, len(crops) - 2
    x = x_start
    found: dict[str, list[list[int]]] = {"backs": [], "sideways": [], "other": []}
    for i, crop in enumerate(crops):
        if i == side_at:
            crop = np.rot90(crop, 1).copy()
        h, w = crop.shape[:2]
        if x + w > picture.shape[1]:
            break
        y = bottom - h
        if i in backs_at:
            patch, alpha = dd.render_back(masks[int(rng.integers(len(masks)))], w, h, rng)
            dd.paste(picture, patch, alpha, x, y)  # onto the table strip that now covers the row
            kind = "backs"
        else:
            picture[y:bottom, x:x + w] = crop
            kind = "sideways" if i == side_at else "other"
        found[kind].append([x, y, x + w, bottom])
        x += w
    as_array = {k: np.array(v, np.float32).reshape(-1, 4) for k, v in found.items()}
    return picture, as_array["backs"], as_array["sideways"], as_array["other"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--model", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--save-examples", type=Path, help="write the composites with detections drawn here")
    args = parser.parse_args(argv)
    detector = TileDetector(args.model)
    masks = back_shapes(DEFAULT_ARTWORK)
    rng = np.random.default_rng(args.seed)
    counts = {"backs": [0, 0], "sideways": [0, 0], "other": [0, 0]}
    photos = 0
    for item in iter_split(args.data):
        if not item.image_path.name.startswith("hand_"):
            continue
        image = cv2.imread(str(item.image_path))
        h, w = image.shape[:2]
        boxes = np.array([b.to_pixels(w, h) for b in item.boxes], np.float32).reshape(-1, 4)
        made = composite(image, boxes, masks, rng)
        if made is None:
            continue
        photos += 1
        picture, backs, sideways, others = made
        tiles = detector.detect(picture)
        found = np.array([t.box for t in tiles], np.float32).reshape(-1, 4)
        for name, truth in (("backs", backs), ("sideways", sideways), ("other", others)):
            counts[name][0] += len(match(found, truth, 0.5))
            counts[name][1] += len(truth)
        if args.save_examples:
            args.save_examples.mkdir(parents=True, exist_ok=True)
            for t in tiles:
                x0, y0, x1, y1 = (int(v) for v in t.box)
                cv2.rectangle(picture, (x0, y0), (x1, y1), (0, 0, 255), 1)
            cv2.imwrite(str(args.save_examples / f"{item.image_path.stem[:8]}.png"), picture)
    result = {"data": str(args.data), "model": str(detector.path), "photos": photos}
    for name, (hit, total) in counts.items():
        result[f"{name}_recall"] = round(hit / max(total, 1), 4)
        result[f"{name}_count"] = total
    print(json.dumps(result, indent=2))
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
