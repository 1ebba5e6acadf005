"""Detection accuracy on a YOLO-layout folder: recall and precision at IoU >= 0.5, end-to-end tile accuracy, whole
hands — the summary of `benchmarks/evaluate.py` (the product's `Pipeline` on every photo) under its historic keys.

    python benchmarks/eval_detection.py --data ../shared/data/chinese-mahjong-v4/test --json OUT.json
    python benchmarks/eval_detection.py --data ../shared/data/chinese-mahjong-v4/train --split dev --turned-copies \
        --json OUT.json

Keys (over all photos; `groups` has them per group of photos): `recall`, `precision` (every detection the product
keeps counts, an unmatched one read as `back` too), `precision_raw` (every detection, `none` included),
`end_to_end_accuracy` (found and read right by the classifier's top-1, over all labelled tiles), `whole_hand_exact`
(photos of 13-18 labelled tiles whose proposal has exactly the labelled tiles), and the misses and false positives.
See `benchmarks/evaluate.py` for every measure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evaluate import add_arguments, evaluate, make_pipeline
from fanscan.scoring.errors import FanscanError
from results_file import write_json

HAND_KEYS = ("hand_photos", "hands_exact", "whole_hand_exact", "whole_hand_exact_classifier", "hands_with_override")


def detection_report(result: dict, hands: bool = True) -> dict:
    """The historic flat report of eval_detection from a full evaluation."""
    summary = dict(result["all"])
    if not hands:
        summary.update({key: None for key in HAND_KEYS})
    photos = result["per_photo"]
    return {
        "data": result["data"], "split": result["split"], "model": result["detector"],
        "classifier": result["classifier"], "score_threshold": result["score_threshold"],
        "iou_threshold": result["iou_threshold"], "caveat": result["caveat"],
        **summary,
        "unmatched_called_back": sum(fp["read"] == "back" for p in photos for fp in p["false_positives"]),
        "groups": result["groups"], "labels": result["labels"], "seconds": result["seconds"],
        "misses": [{"image": p["image"], "box": box} for p in photos for box in p["misses"]],
        "false_positives": [{"image": p["image"], **fp} for p in photos for fp in p["false_positives"]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--model", type=Path, help="detector ONNX (default: the shipped one)")
    parser.add_argument("--classifier", type=Path, help="classifier ONNX (default: the shipped one)")
    parser.add_argument("--threshold", type=float, help="override the model's score threshold")
    parser.add_argument("--no-hands", action="store_true", help="leave the whole-hand measures out of the report")
    args = parser.parse_args(argv)
    try:
        pipeline = make_pipeline(args.model, args.classifier, args.threshold, args.profile)
        result = detection_report(evaluate(args.data, pipeline, args.split, args.limit, squeeze=args.squeeze,
                                           turned_copies=args.turned_copies), hands=not args.no_hands)
        result["profile"] = str(args.profile) if args.profile else None
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps({k: v for k, v in result.items() if k not in ("misses", "false_positives", "groups")},
                     indent=2, ensure_ascii=False))
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
