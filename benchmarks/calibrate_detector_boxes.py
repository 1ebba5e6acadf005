"""Choose the detector's box-size calibration (sx, sy) and whether `partition_overlaps` stays, on held-out photos.

    python benchmarks/diagnostics/detector/make_tight_val.py work_data/detector_val work_data/detector_val_tight
    python benchmarks/calibrate_detector_boxes.py --data work_data/detector_val_tight \\
        --json benchmarks/results/detector_box_calibration.json

`--data` must be held-out TRAIN photos with tight labels (the repaired held-out set above: the 16 held-out source
groups of `fanscan.training.train_detector --write-val`, rotation and shear undone), never `test/`.
The net runs once per photo (`TileDetector.proposals`, product path after `vision.load.load_image`); every grid
point then only re-runs `TileDetector.finish` (calibration, optional split of overlapping neighbours)
and the IoU >= 0.5 matching. The choice is the grid point with the best F1;
ties go to the factors nearest 1 (the smallest change).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from fanscan.vision.detect import TileDetector
from fanscan.vision.detection_metrics import match
from fanscan.vision.load import load_image
from fanscan.vision.yolo_data import iter_split
from results_file import write_json


def grid_values(start: float, stop: float, step: float) -> list[float]:
    return [round(v, 3) for v in np.arange(start, stop + step / 2, step)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="held-out train photos with tight labels")
    parser.add_argument("--model", type=Path, help="detector ONNX (default: models/tile_detector.onnx)")
    parser.add_argument("--json", type=Path, help="write the grid here")
    parser.add_argument("--lo", type=float, default=0.60, help="smallest factor tried (both axes)")
    parser.add_argument("--hi", type=float, default=1.05, help="largest factor tried (both axes)")
    parser.add_argument("--step", type=float, default=0.05)
    parser.add_argument("--centre-suppression", default="0",
                        help="comma-separated fractions to try for `centre_suppression` (0 = off)")
    parser.add_argument("--thresholds", default=None,
                        help="score thresholds to try, comma-separated (default: the model's own only). The net runs "
                             "once at the lowest; a higher one keeps the proposals scoring at least that much (the "
                             "same boxes suppression would keep, since it only ever removes lower-scoring ones)")
    args = parser.parse_args(argv)
    if "test" in args.data.resolve().parts:
        parser.error("the calibration is chosen on held-out train photos, never on test/")

    started = time.perf_counter()
    # Factors forced to 1: the grid sets them itself, whatever the model's metadata says.
    detector = TileDetector(args.model, threads=1, box_scale=(1.0, 1.0))
    model_threshold = detector.info.score_threshold
    thresholds = sorted({float(t) for t in args.thresholds.split(",")}) if args.thresholds else [model_threshold]
    photos = []
    for item in iter_split(args.data):
        image = load_image(item.image_path).image
        h, w = image.shape[:2]
        truth = np.array([b.to_pixels(w, h) for b in item.boxes], np.float64).reshape(-1, 4)
        photos.append((detector.proposals(image, score_threshold=thresholds[0]), image.shape, truth))
    labelled = sum(len(t) for _, _, t in photos)

    values = grid_values(args.lo, args.hi, args.step)
    grid = []
    suppressions = sorted({float(v) for v in args.centre_suppression.split(",")})
    for threshold, suppression in ((t, c) for t in thresholds for c in suppressions):
        for partition in (True, False):
            for sx in values:
                for sy in values:
                    detector.info = replace(detector.info, box_scale_x=sx, box_scale_y=sy,
                                            centre_suppression=suppression)
                    matched = detections = 0
                    for (boxes, scores, centres), shape, truth in photos:
                        keep = scores >= threshold
                        tiles = detector.finish(boxes[keep], scores[keep], centres[keep], shape, partition)
                        found = np.array([t.box for t in tiles], np.float64).reshape(-1, 4)
                        matched += len(match(found, truth, 0.5))
                        detections += len(tiles)
                    recall, precision = matched / max(labelled, 1), matched / max(detections, 1)
                    f1 = 2 * recall * precision / max(recall + precision, 1e-9)
                    grid.append({"score_threshold": threshold, "centre_suppression": suppression,
                                 "box_scale_x": sx, "box_scale_y": sy,
                                 "partition": partition, "matched": matched, "detections": detections,
                                 "recall": round(recall, 4), "precision": round(precision, 4), "f1": round(f1, 4)})

    def key(row: dict) -> tuple:
        return (-row["f1"], abs(row["box_scale_x"] - 1) + abs(row["box_scale_y"] - 1),
                abs(row["score_threshold"] - model_threshold), row["centre_suppression"], not row["partition"])

    best = min(grid, key=key)
    shipped = min((r for r in grid if r["box_scale_x"] == 1.0 and r["box_scale_y"] == 1.0 and r["partition"]),
                  key=lambda r: (abs(r["score_threshold"] - model_threshold), r["centre_suppression"]))
    best_per_partition = {str(p): min((r for r in grid if r["partition"] == p), key=key) for p in (True, False)}
    result = {
        "data": str(args.data),
        "model": str(detector.path),
        "model_score_threshold": model_threshold,
        "thresholds": thresholds,
        "iou_threshold": 0.5,
        "photos": len(photos),
        "labelled_tiles": labelled,
        "factors": values,
        "chosen": best,
        "uncalibrated_with_partition": shipped,
        "best_with_and_without_partition": best_per_partition,
        "seconds": round(time.perf_counter() - started, 1),
        "grid": grid,
    }
    print(json.dumps({k: v for k, v in result.items() if k != "grid"}, indent=2))
    if args.json:
        write_json(args.json, result, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
