"""Whole-hand accuracy: the share of `hand_*` photos whose proposed hand is exactly the labelled one.

    python benchmarks/eval_hands.py                      # the bundled samples (= the test split's hand_* photos)
    python benchmarks/eval_hands.py --data ../shared/data/chinese-mahjong-v4/test --json runs/eval_hands.json

Each photo goes through the product path, `vision.pipeline.Pipeline.propose` (load, detect, crop, classify, group
with the rules), and counts as exact when the proposal's tile multiset (faces and flowers, no backs) equals the
labelled one; `exact_classifier` counts the same for the classifier's own best reading of every tile (no rule
override), `hands_with_override` the proposals in which the rules overruled the classifier, and
`hands_needing_review` those that `photo --yes` and `batch` refuse without --accept-overrides (`needs_review`: the
rules overruled the classifier, or suggest a reading that would make the hand complete). The labels of a photo
that does not show a complete hand (13 tiles, or 14 that make no hand) are still what the photo shows, so the rules
must not "correct" those. Also reports the median time of each stage.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from evaluate import face_multiset, top_reading
from fanscan.scoring.errors import FanscanError
from fanscan.vision.dataset_classes import guess_table, tile_id_for
from fanscan.vision.yolo_data import find_data_yaml, iter_split, read_class_names
from results_file import ROOT, shown_path, write_json

DEFAULT_DATA = ROOT / "datasets" / "samples"


def evaluate(data: Path, pipeline, prefix: str = "hand_", progress: bool = True) -> dict:
    names = read_class_names(find_data_yaml(data))
    table = guess_table(names)
    items = [item for item in iter_split(data) if item.image_path.name.startswith(prefix)]
    if not items:
        raise FanscanError(f"{data}: no {prefix}* photos")
    photos = []
    timings: dict[str, list[float]] = {}
    started = time.perf_counter()
    for n, item in enumerate(items, start=1):
        expected = [tile_id_for(names[b.class_index], table) for b in sorted(item.boxes, key=lambda b: b.cx)]
        proposal = pipeline.propose(item.image_path)
        got = proposal.hand_tiles()
        exact = Counter(got) == Counter(expected)
        exact_classifier = face_multiset([top_reading(t)[0] for t in proposal.tiles]) == face_multiset(expected)
        missing = list((Counter(expected) - Counter(got)).elements())
        extra = list((Counter(got) - Counter(expected)).elements())
        photos.append({
            "image": item.image_path.name, "exact": exact, "exact_classifier": exact_classifier,
            "rule_overrides": proposal.rule_overrides, "needs_review": proposal.needs_review,
            "status": proposal.status, "hand": proposal.hand,
            "expected": expected, "missing": missing, "extra": extra, "warnings": proposal.warnings,
            "timings_ms": proposal.timings_ms,
        })
        for stage, ms in proposal.timings_ms.items():
            timings.setdefault(stage, []).append(ms)
        if progress:
            mark = "exact" if exact else f"WRONG (missing {missing}, extra {extra})"
            print(f"[{n}/{len(items)}] {item.image_path.name}: {proposal.hand!r} {proposal.status} {mark}",
                  file=sys.stderr)
    exact_count = sum(p["exact"] for p in photos)
    return {
        "data": shown_path(data),
        "photos": len(photos),
        "exact": exact_count,
        "whole_hand_exact": round(exact_count / len(photos), 4),
        # The classifier's own best reading of every tile (no rule override), and the proposals the rules changed.
        "exact_classifier": sum(p["exact_classifier"] for p in photos),
        "hands_with_override": sum(bool(p["rule_overrides"]) for p in photos),
        # What the batch marks needs_review: the overrides above and the rules' suggestions.
        "hands_needing_review": sum(p["needs_review"] for p in photos),
        "median_ms": {stage: round(statistics.median(v), 2) for stage, v in timings.items()},
        "seconds": round(time.perf_counter() - started, 1),
        "per_photo": photos,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="YOLO-layout split (default: the samples)")
    parser.add_argument("--json", type=Path, help="write the full result (per photo) here")
    parser.add_argument("--prefix", default="hand_", help="photos whose name starts with this (default hand_)")
    args = parser.parse_args(argv)
    try:
        from fanscan.vision.pipeline import Pipeline

        result = evaluate(args.data, Pipeline(), args.prefix)
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    summary = {k: v for k, v in result.items() if k != "per_photo"}
    summary["wrong"] = [p["image"] for p in result["per_photo"] if not p["exact"]]
    print(json.dumps(summary, indent=2))
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
