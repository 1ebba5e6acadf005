"""Detection accuracy on a YOLO-layout split: recall and precision at IoU >= 0.5, end-to-end tile accuracy.

    python benchmarks/eval_detection.py --data ../shared/data/chinese-mahjong-v4/test --json runs/eval_test.json

Photos go through the product path: `vision.load.load_image` then `fanscan.vision.detect.detect`; labelled boxes are
scaled into the same working pixels. Every labelled box (whatever its class) is a tile to find; matching is greedy, best
score first, one detection per labelled tile.

Precision is measured on face-up tiles: the data labels no face-down tiles (SOURCE.md), yet the detector is taught
to propose them (a concealed kong shows two backs). So two precisions are reported:
- `precision_raw`: every detection counts;
- with a classifier (`vision.classify.TileClassifier`, when it and its model exist): detections it calls `none` are
  dropped (as the product drops them), unmatched detections it calls `back` are not false positives
  (`precision`); and `end_to_end_accuracy` = labelled tiles found AND read right (top-1) / all labelled tiles.
Without a classifier `precision` equals `precision_raw`.

Whole-hand exact share on `hand_*` photos needs the grouping step: a `HandReader` (image, detections, top-k
readings -> tile ids of the proposed hand, or None), by default `vision.pipeline.read_hand_tiles` when a classifier
is present; the proposed tiles must equal the labelled tiles as a multiset (order and melds are not labelled).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from fanscan.scoring.errors import FanscanError  # noqa: E402
from fanscan.vision.dataset_classes import tile_id_for  # noqa: E402
from fanscan.vision.detect import DetectedTile, TileDetector  # noqa: E402
from fanscan.vision.detection_metrics import match  # noqa: E402
from fanscan.vision.load import load_image  # noqa: E402
from fanscan.vision.yolo_data import find_data_yaml, iter_split, read_class_names  # noqa: E402

from benchmarks.results_file import write_json  # noqa: E402

# The hook for the whole-hand measure: (working image, detections, per-detection top-k [(tile_id, prob)]) ->
# the proposed hand's tile ids (flowers included), or None when no hand could be proposed.
HandReader = Callable[[np.ndarray, list[DetectedTile], list[list[tuple[str, float]]]], Sequence[str] | None]


@dataclass
class Totals:
    labelled: int = 0
    raw_detections: int = 0
    raw_matched: int = 0
    detections: int = 0
    matched: int = 0
    dropped_none: int = 0
    unmatched_back: int = 0
    read_right: int = 0
    photos: int = 0
    hands: int = 0
    hands_exact: int = 0
    misses: list[dict] = field(default_factory=list)
    false_positives: list[dict] = field(default_factory=list)


def load_classifier(path: str | None, profile: Path | None = None):
    """The tile classifier if its code and model are present ('none' or a missing model: no classifier); with a set
    profile when one is given (a profile that does not fit the classifier is an error, not a silent fallback)."""
    if path == "none":
        if profile is not None:
            raise FanscanError("--profile needs a classifier (not --classifier none)")
        return None
    try:
        from fanscan.vision.classify import TileClassifier
    except ImportError:
        return None
    if profile is not None:
        return TileClassifier(path or None, profile=profile)
    try:
        return TileClassifier(path) if path else TileClassifier()
    except FanscanError as error:
        print(f"no classifier: {error}", file=sys.stderr)
        return None


def default_hand_reader(classifier) -> HandReader | None:
    """The grouping step's hook, when the pipeline module and a classifier are both present."""
    if classifier is None:
        return None
    try:
        from fanscan.vision.pipeline import read_hand_tiles
    except ImportError:
        return None
    return read_hand_tiles


def classify(classifier, image: np.ndarray, tiles: list[DetectedTile], k: int = 3) -> list[list[tuple[str, float]]]:
    if classifier is None or not tiles:
        return [[] for _ in tiles]
    from fanscan.vision.crops import DEFAULT_SPEC, crop_tiles

    spec = getattr(classifier, "crop_spec", DEFAULT_SPEC)
    crops = crop_tiles(image, [t.quad for t in tiles], spec)
    return [list(r) for r in classifier.classify(crops, k)]


def evaluate(
    data: Path, detector: TileDetector, classifier=None, hand_reader: HandReader | None = None,
    limit: int | None = None, progress: bool = True,
) -> dict:
    names = read_class_names(find_data_yaml(data))
    totals = Totals()
    started = time.perf_counter()
    items = list(iter_split(data))[:limit]
    for n, item in enumerate(items, start=1):
        loaded = load_image(item.image_path)
        image = loaded.image
        h, w = image.shape[:2]
        truth = np.array([b.to_pixels(w, h) for b in item.boxes], np.float64).reshape(-1, 4)
        truth_ids = [tile_id_for(names[b.class_index]) for b in item.boxes]
        tiles = detector.detect(image)
        raw_boxes = np.array([t.box for t in tiles], np.float64).reshape(-1, 4)
        totals.raw_detections += len(tiles)
        totals.raw_matched += len(match(raw_boxes, truth, 0.5))
        readings = classify(classifier, image, tiles)
        if item.image_path.name.startswith("hand_") and hand_reader is not None:
            # The grouping step sees every detection with its readings, as in the product (it drops `none` itself).
            totals.hands += 1
            proposed = hand_reader(image, tiles, readings)
            if proposed is not None and Counter(proposed) == Counter(truth_ids):
                totals.hands_exact += 1
        if classifier is not None:
            kept = [i for i, r in enumerate(readings) if not (r and r[0][0] == "none")]
            totals.dropped_none += len(tiles) - len(kept)
            tiles = [tiles[i] for i in kept]
            readings = [readings[i] for i in kept]
        boxes = np.array([t.box for t in tiles], np.float64).reshape(-1, 4)
        pairs = match(boxes, truth, 0.5)
        matched_pred = {p for p, _ in pairs}
        matched_true = {t for _, t in pairs}
        totals.photos += 1
        totals.labelled += len(truth)
        totals.detections += len(tiles)
        totals.matched += len(pairs)
        for p, t in pairs:
            if readings[p] and readings[p][0][0] == truth_ids[t]:
                totals.read_right += 1
        for p in range(len(tiles)):
            if p in matched_pred:
                continue
            if readings[p] and readings[p][0][0] == "back":
                totals.unmatched_back += 1
            else:
                totals.false_positives.append({"image": item.image_path.name, "box": [round(v, 1) for v in boxes[p]],
                                               "score": round(tiles[p].score, 3)})
        for t in range(len(truth)):
            if t not in matched_true:
                totals.misses.append({"image": item.image_path.name, "box": [round(v, 1) for v in truth[t]]})
        if progress and (n % 10 == 0 or n == len(items)):
            print(f"{n}/{len(items)} photos, recall so far {totals.matched / max(totals.labelled, 1):.4f}",
                  file=sys.stderr)
    return report(data, detector, classifier, hand_reader, totals, time.perf_counter() - started)


def report(data: Path, detector: TileDetector, classifier, hand_reader, totals: Totals, seconds: float) -> dict:
    counted = totals.detections - totals.unmatched_back
    has_classifier = classifier is not None
    return {
        "data": str(data),
        "model": str(detector.path),
        "score_threshold": detector.info.score_threshold,
        "iou_threshold": 0.5,
        "photos": totals.photos,
        "labelled_tiles": totals.labelled,
        "detections": totals.raw_detections,
        "matched": totals.raw_matched,
        "recall": round(totals.raw_matched / max(totals.labelled, 1), 4),
        "precision_raw": round(totals.raw_matched / max(totals.raw_detections, 1), 4),
        # After the classifier: `none` dropped, unmatched `back` not counted against precision.
        "recall_after_classifier": round(totals.matched / max(totals.labelled, 1), 4) if has_classifier else None,
        "precision": round(totals.matched / max(counted, 1), 4),
        "classifier": str(getattr(classifier, "path", "yes")) if has_classifier else None,
        "profile": str(classifier.profile.path) if getattr(classifier, "profile", None) is not None else None,
        "dropped_as_none": totals.dropped_none if has_classifier else None,
        "unmatched_called_back": totals.unmatched_back if has_classifier else None,
        "end_to_end_accuracy": round(totals.read_right / max(totals.labelled, 1), 4) if has_classifier else None,
        "hand_photos": totals.hands if hand_reader else None,
        "whole_hand_exact": round(totals.hands_exact / max(totals.hands, 1), 4) if hand_reader else None,
        "whole_hand_note": None if hand_reader else "needs a HandReader (grouping step); see evaluate(hand_reader=)",
        "seconds": round(seconds, 1),
        "misses": totals.misses,
        "false_positives": totals.false_positives,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="YOLO-layout split (images/, labels/, data.yaml)")
    parser.add_argument("--json", type=Path, help="write the full result (with misses) here")
    parser.add_argument("--model", type=Path, help="detector ONNX (default: models/tile_detector.onnx)")
    parser.add_argument("--classifier", default=None, help="classifier ONNX, or 'none' (default: the shipped one)")
    parser.add_argument("--profile", type=Path, default=None, help="set profile (fanscan calibrate) for the classifier")
    parser.add_argument("--threshold", type=float, help="override the model's score threshold")
    parser.add_argument("--limit", type=int, help="only the first N photos")
    parser.add_argument("--no-hands", action="store_true", help="skip the whole-hand measure (grouping step)")
    args = parser.parse_args(argv)
    try:
        detector = TileDetector(args.model)
        if args.threshold is not None:
            from dataclasses import replace

            detector.info = replace(detector.info, score_threshold=args.threshold)
        classifier = load_classifier(args.classifier, args.profile)
        # The whole-hand measure: the grouping step (with the rules) as the hook.
        hand_reader = None if args.no_hands else default_hand_reader(classifier)
        result = evaluate(args.data, detector, classifier, hand_reader=hand_reader, limit=args.limit)
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = {k: v for k, v in result.items() if k not in ("misses", "false_positives")}
    print(json.dumps(summary, indent=2))
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
