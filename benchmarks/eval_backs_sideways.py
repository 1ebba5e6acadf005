"""Does the detector propose face-down and sideways tiles? Measured on composites of the test hand photos.

    python benchmarks/eval_backs_sideways.py --data ../shared/data/chinese-mahjong-v4/test --json runs/backs.json

The labels have no face-down tiles and few sideways tiles in rows, so this builds them: in every `hand_*` photo two
neighbouring tiles of the row get a rendered back pasted over them (a concealed kong shows two backs), and another
tile is turned a quarter where it lies (a claimed tile); labels it covers are dropped. Then: the share of those
backs and sideways tiles detected at IoU >= 0.5, and recall on the untouched tiles.

Caveat: the backs come from the same renderer as the training composites (`vision.detector_data.render_back`), so
this shows that the detector learned them, not how it does on a real set's backs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision import detector_data as dd  # noqa: E402
from vision.detect import TileDetector  # noqa: E402
from vision.detection_metrics import match  # noqa: E402
from vision.yolo_data import iter_split  # noqa: E402

DEFAULT_ARTWORK = ROOT.parent / "shared" / "artwork" / "fluffystuff-cc0"


def back_shapes(artwork: Path) -> list[np.ndarray]:
    svgs = sorted(artwork.glob("*/Back.svg"))
    try:
        return dd.rasterise_backs(svgs, ROOT / "work_data" / "detector_backs") if svgs else [dd.rounded_rect_mask()]
    except Exception:  # no rsvg-convert: the stand-in shape
        return [dd.rounded_rect_mask()]


def composite(image: np.ndarray, boxes: np.ndarray, masks: list[np.ndarray], rng: np.random.Generator):
    """(image, back boxes, sideways boxes, untouched boxes) for one photo, or None when its row is too short."""
    order = np.argsort((boxes[:, 0] + boxes[:, 2]) / 2)
    if len(order) < 6:
        return None
    image = image.copy()
    backs = [order[1], order[2]]
    for i in backs:
        x0, y0, x1, y1 = boxes[i]
        patch, alpha = dd.render_back(masks[int(rng.integers(len(masks)))], round(float(x1 - x0)),
                                      round(float(y1 - y0)), rng)
        dd.paste(image, patch, alpha, round(float(x0)), round(float(y0)))
    side = order[-2]
    x0, y0, x1, y1 = boxes[side].round().astype(int)
    turned = np.rot90(image[y0:y1, x0:x1], 1).copy()
    th, tw = turned.shape[:2]
    # The claimed tile lies across the row, its bottom on the row's bottom line.
    nx0, ny0 = round((x0 + x1) / 2 - tw / 2), y1 - th
    dd.paste(image, turned.astype(np.float32), np.ones((th, tw), np.float32), nx0, ny0)
    side_box = np.array([[nx0, ny0, nx0 + tw, ny0 + th]], np.float32)
    covered = dd.box_overlap_fraction(boxes, tuple(side_box[0]))
    untouched = [i for i in range(len(boxes)) if i not in backs and i != side and covered[i] <= 0.1]
    return image, boxes[backs], side_box, boxes[untouched]


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
    counts = {"backs": [0, 0], "sideways": [0, 0], "untouched": [0, 0]}
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
        picture, backs, sideways, untouched = made
        tiles = detector.detect(picture)
        found = np.array([t.box for t in tiles], np.float32).reshape(-1, 4)
        for name, truth in (("backs", backs), ("sideways", sideways), ("untouched", untouched)):
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
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
