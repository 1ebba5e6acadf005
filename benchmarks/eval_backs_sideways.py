"""Does the detector propose face-down and sideways tiles? Measured on rows re-laid from real photos' own tiles.

    python benchmarks/eval_backs_sideways.py --data ../shared/data/chinese-mahjong-v4/train --split dev \
        --json benchmarks/results/backs_sideways_dev.json
    python benchmarks/eval_backs_sideways.py --data ../shared/data/chinese-mahjong-v4/test --legacy   # the old figure

The labels have no face-down tiles and few sideways tiles in rows, so this builds them: the row of every photo whose
longest row of labelled tiles (`hand_*` photos only with `--legacy`) is laid out again from its own tiles, touching,
with the 2nd and 3rd tiles face down (rendered backs, as a concealed kong shows them) and one tile of each claimed
meld turned a quarter (the second-to-last; with `--melds 2` also the fifth from the end). Then: the share of those
backs and sideways tiles detected at IoU >= 0.5, recall on the other tiles of the row, and for every sideways tile
missed, why (no detection near it, or one whose box has the upright shape). Beside the re-laid rows, the real
sideways tiles of the chosen photos as they are (`real_sideways`: labelled boxes lying across a photo of upright
tiles): few, and often in photos turned or sheared upstream, but real.

Real-looking rows: the train split's copies that upstream rotated and sheared (three in four) are first turned back
with `training.label_repair` so that each tile is cut with its tight box (loose boxes cut half a neighbour with it);
a copy that cannot be turned back, or whose row has an untrusted box, is left out. Whatever lies above the row is
copied over it (often table, sometimes another row: those copies are unlabelled, so only recall is measured).
`--legacy` keeps the first version (original boxes, one sideways tile, `hand_*` only), which the model card's figure
0.15 came from.

Caveat: the backs come from the same renderer as the training composites
(`fanscan.training.detector_data.render_back`), so this shows that the detector learned
them, not how it does on a real set's backs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
from fanscan.training import detector_data as dd
from fanscan.training.label_repair import fill_colour, repair
from fanscan.vision import splits
from fanscan.vision.detect import TileDetector
from fanscan.vision.detection_metrics import iou_matrix, match
from fanscan.vision.yolo_data import iter_split
from results_file import ROOT, report

DEFAULT_ARTWORK = ROOT.parent / "shared" / "artwork" / "fluffystuff-cc0"
# Labelled tiles form one row when their centres lie within this share of the median tile height of one line.
ONE_ROW_SPREAD = 0.5
# Real sideways tiles: labelled boxes this much wider than tall, in photos whose median box is narrower than
# `UPRIGHT_MEDIAN` (most tiles stand upright there, so a wide one lies across its row).
REAL_SIDEWAYS_ASPECT = 1.15
UPRIGHT_MEDIAN = 0.9


def back_shapes(artwork: Path) -> list[np.ndarray]:
    svgs = sorted(artwork.glob("*/Back.svg"))
    try:
        return dd.rasterise_backs(svgs, ROOT / "work_data" / "detector_backs") if svgs else [dd.rounded_rect_mask()]
    except Exception:  # no rsvg-convert: the stand-in shape
        return [dd.rounded_rect_mask()]


def sideways_positions(count: int, melds: int) -> set[int]:
    """Which tiles of a row of `count` are turned: the second-to-last, and with two melds the fifth from the end."""
    return {count - 2} if melds == 1 else {count - 2, count - 5}


def composite(image: np.ndarray, boxes: np.ndarray, masks: list[np.ndarray], rng: np.random.Generator,
              side_at: set[int] | None = None, fit: bool = False):
    """The photo's row of tiles laid out again: two tiles face down (rendered backs), `side_at` turned a quarter.

    The tiles are cut from the photo and put back touching, left to right, on the row's bottom line, after the
    row's strip was covered with the table strip just above it. With `fit`, a row that the turned tiles make too
    long for the photo starts further left (else the tiles past the edge are left out). Returns (image, back boxes,
    sideways boxes, other boxes), or None when the photo has no row of at least six tiles with table above it.
    """
    order = np.argsort((boxes[:, 0] + boxes[:, 2]) / 2)
    if len(order) < 6:
        return None
    tight = boxes[order].round().astype(int)
    tight[:, 0::2] = tight[:, 0::2].clip(0, image.shape[1])
    tight[:, 1::2] = tight[:, 1::2].clip(0, image.shape[0])
    top, bottom = int(tight[:, 1].min()), int(tight[:, 3].max())
    height = bottom - top
    if top - height < 0:
        return None
    picture = image.copy()
    crops = [image[y0:y1, x0:x1].copy() for x0, y0, x1, y1 in tight]
    if any(c.size == 0 for c in crops):
        return None
    side_at = {len(crops) - 2} if side_at is None else side_at
    x_start, x_end = int(tight[:, 0].min()), int(tight[:, 2].max())
    if fit:
        length = sum(c.shape[0] if i in side_at else c.shape[1] for i, c in enumerate(crops))
        x_start = min(x_start, picture.shape[1] - length)
        if x_start < 0:
            return None
    picture[top:bottom, x_start:x_end] = image[top - height:top, x_start:x_end]
    backs_at = {1, 2}
    x = x_start
    found: dict[str, list[list[int]]] = {"backs": [], "sideways": [], "other": []}
    for i, crop in enumerate(crops):
        if i in side_at:
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
            kind = "sideways" if i in side_at else "other"
        found[kind].append([x, y, x + w, bottom])
        x += w
    as_array = {k: np.array(v, np.float32).reshape(-1, 4) for k, v in found.items()}
    return picture, as_array["backs"], as_array["sideways"], as_array["other"]


def tight_row(image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The photo turned back to its source frame and the tight boxes of its longest row of tiles, or None.

    An untransformed photo comes back as it is; a copy that cannot be repaired, or whose row has an untrusted box,
    is None. The longest row: the most boxes whose centres lie within `ONE_ROW_SPREAD` of the median tile height
    of one box's centre line.
    """
    good = np.ones(len(boxes), bool)
    repaired = repair(image, boxes)
    if repaired is not None:
        image, boxes, good = repaired.image, repaired.boxes, repaired.good
    elif fill_colour(image) is not None:  # rotated or sheared upstream, and `repair` could not undo it
        return None
    if len(boxes) == 0:
        return None
    centres = (boxes[:, 1] + boxes[:, 3]) / 2
    spread = ONE_ROW_SPREAD * float(np.median(boxes[:, 3] - boxes[:, 1]))
    rows = [np.abs(centres - c) <= spread for c in centres]
    row = max(rows, key=lambda r: int(r.sum()))
    if not good[row].all():
        return None
    return image, boxes[row]


def real_sideways(image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A photo as it is (turned back when repaired) and its labelled tiles lying across the others: boxes wider than
    tall by `REAL_SIDEWAYS_ASPECT` in a photo whose median box is upright. None when it has none."""
    repaired = repair(image, boxes)
    good = np.ones(len(boxes), bool)
    if repaired is not None:
        image, boxes, good = repaired.image, repaired.boxes, repaired.good
    elif fill_colour(image) is not None:
        return None
    if len(boxes) < 3:
        return None
    aspect = (boxes[:, 2] - boxes[:, 0]) / np.maximum(boxes[:, 3] - boxes[:, 1], 1e-6)
    lying = good & (aspect > REAL_SIDEWAYS_ASPECT) if np.median(aspect) < UPRIGHT_MEDIAN else np.zeros(len(boxes), bool)
    return (image, boxes[lying]) if lying.any() else None


def why_missed(found: np.ndarray, truth: np.ndarray) -> str:
    """For a sideways tile not found: 'upright_box' when a detection overlaps it with an upright shape (IoU 0.2-0.5),
    'merged' when one detection covers it and a neighbour, 'no_detection' otherwise."""
    if len(found) == 0:
        return "no_detection"
    ious = iou_matrix(found, truth[None])[:, 0]
    best = int(np.argmax(ious))
    if ious[best] < 0.2:
        return "no_detection"
    x0, y0, x1, y1 = found[best]
    if (x1 - x0) > 1.6 * (truth[2] - truth[0]):
        return "merged"
    return "upright_box" if (x1 - x0) <= (y1 - y0) else "wide_box_off"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--split", choices=[*splits.SPLITS, "all"], default="all",
                        help="photos of the train folder's dev or train part (vision.splits); all = every photo")
    parser.add_argument("--legacy", action="store_true", help="the first version: hand_* photos, original boxes")
    parser.add_argument("--melds", type=int, choices=(1, 2), default=2, help="claimed melds (sideways tiles) a row")
    parser.add_argument("--no-sideways-check", action="store_true", help="the net's boxes only (no vision.sideways)")
    parser.add_argument("--model", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--save-examples", type=Path, help="write the composites with detections drawn here")
    args = parser.parse_args(argv)
    detector = TileDetector(args.model)
    detector.sideways_check = not args.no_sideways_check
    masks = back_shapes(DEFAULT_ARTWORK)
    rng = np.random.default_rng(args.seed)
    counts = {"backs": [0, 0], "sideways": [0, 0], "other": [0, 0]}
    misses: dict[str, int] = {}
    photos = 0
    real = [0, 0, 0]  # photos, real sideways tiles found, real sideways tiles
    for item in iter_split(args.data):
        name = item.image_path.name
        if args.split != "all" and splits.split_of(name) != args.split:
            continue
        if args.legacy and not name.startswith("hand_"):
            continue
        image = cv2.imread(str(item.image_path))
        h, w = image.shape[:2]
        boxes = np.array([b.to_pixels(w, h) for b in item.boxes], np.float32).reshape(-1, 4)
        if not args.legacy and (lying := real_sideways(image, boxes)) is not None:
            found = np.array([t.box for t in detector.detect(lying[0])], np.float32).reshape(-1, 4)
            real = [real[0] + 1, real[1] + len(match(found, lying[1], 0.5)), real[2] + len(lying[1])]
        if args.legacy:
            made = composite(image, boxes, masks, rng)
        else:
            row = tight_row(image, boxes)
            made = None if row is None else composite(*row, masks, rng, sideways_positions(len(row[1]), args.melds),
                                                      fit=True)
        if made is None:
            continue
        photos += 1
        picture, backs, sideways, others = made
        tiles = detector.detect(picture)
        found = np.array([t.box for t in tiles], np.float32).reshape(-1, 4)
        for kind, truth in (("backs", backs), ("sideways", sideways), ("other", others)):
            pairs = match(found, truth, 0.5)
            counts[kind][0] += len(pairs)
            counts[kind][1] += len(truth)
            if kind == "sideways":
                matched = {j for _, j in pairs}
                for j in range(len(truth)):
                    if j not in matched:
                        reason = why_missed(found, truth[j])
                        misses[reason] = misses.get(reason, 0) + 1
        if args.save_examples:
            args.save_examples.mkdir(parents=True, exist_ok=True)
            for t in tiles:
                x0, y0, x1, y1 = (int(v) for v in t.box)
                cv2.rectangle(picture, (x0, y0), (x1, y1), (0, 0, 255), 1)
            cv2.imwrite(str(args.save_examples / f"{item.image_path.stem[:24]}.png"), picture)
    result = {"data": str(args.data), "split": args.split, "legacy": args.legacy,
              "melds_per_row": 1 if args.legacy else args.melds, "sideways_check": detector.sideways_check,
              "model": str(detector.path), "photos": photos}
    for kind, (hit, total) in counts.items():
        result[f"{kind}_recall"] = round(hit / max(total, 1), 4)
        result[f"{kind}_count"] = total
    result["sideways_missed_because"] = misses
    if not args.legacy:
        result["real_sideways"] = {"photos": real[0], "count": real[2], "recall": round(real[1] / max(real[2], 1), 4)}
    return report(result, args.json)


if __name__ == "__main__":
    sys.exit(main())
