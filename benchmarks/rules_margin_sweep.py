"""How far the rules may overrule the classifier: `benchmarks/evaluate.py` on the development split for several
values of `vision.group.RULES_MARGIN` (a reading the rules make complete is chosen over the classifier's best one
when it is at most MARGIN times less probable), whole hands counted as proposed, as the classifier read them, and
the overrides that made a hand exact or wrong.

    python benchmarks/rules_margin_sweep.py [--margins 1 10 100 1000] [--classifier MODEL.onnx]

Writes benchmarks/results/rules_margin_dev.json (or `--json`). Each margin is a full evaluation (a few minutes).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import evaluate
from fanscan.vision import group
from results_file import ROOT, shown_path, write_json

DATA = ROOT.parent / "shared" / "data" / "chinese-mahjong-v4" / "train"
OUT = ROOT / "benchmarks" / "results" / "rules_margin_dev.json"
KEPT = ("photos", "hand_photos", "hands_exact", "hands_exact_classifier", "hands_with_override",
        "overrides_made_exact", "overrides_made_wrong", "end_to_end_accuracy", "end_to_end_as_proposed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the train folder (its development split is used)")
    parser.add_argument("--margins", type=float, nargs="+", default=[1, 10, 100, 1000],
                        help="probability ratios to try (shipped: %(default)s's last)")
    parser.add_argument("--classifier", type=Path, help="classifier ONNX (default: the shipped one)")
    parser.add_argument("--json", type=Path, default=OUT)
    args = parser.parse_args(argv)
    shipped = group.RULES_MARGIN
    pipeline = evaluate.make_pipeline(classifier_path=args.classifier)
    rows = []
    try:
        for margin in args.margins:
            group.RULES_MARGIN = math.log(margin)  # read by choose_reading at each call
            result = evaluate.evaluate(args.data, pipeline, "dev", turned_copies=True)
            rows.append({"margin": margin, **{key: result["all"][key] for key in KEPT}})
            print(rows[-1], file=sys.stderr)
    finally:
        group.RULES_MARGIN = shipped
    write_json(args.json, {
        "data": shown_path(args.data), "split": "dev", "classifier": shown_path(args.classifier) if args.classifier
        else "models/tile_classifier.onnx (shipped)", "shipped_margin": round(math.exp(shipped)), "caveat":
        result["caveat"], "by_margin": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
