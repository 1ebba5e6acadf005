"""Choose the close-up detector's box-size calibration (`box_scale_x`, `box_scale_y` in its metadata) through the
product's `Pipeline`, on the development sets it reads.

    python benchmarks/calibrate_close_up_boxes.py --json benchmarks/results/close_up_box_calibration.json   # 15 min

Why: the close-up net (models/tile_detector_close_up.onnx) was fine-tuned from the first net and kept its metadata,
so its boxes were scaled by the first net's calibration (0.95 x 1.1), chosen on held-out table photos
(`calibrate_detector_boxes.py`). The close-up net learnt other boxes since (tight ones, on sheets): on the large
tiles built from dev its kept boxes came out a median 1.05 x wide and 1.13 x tall against the labels (session 20).

The close-up net reads only photos the first look calls close-ups (`vision.scale.read_close_up`), so the grid is
measured on the sets where that happens: both other makers' sets, the close-ups built from them and from dev
(`close_ups.py`) and the large tiles built from dev (`eval_large_tiles.py`), each through the whole pipeline (a box's
size moves its crop, so the classifier's reading is part of the measure). A grid point is eligible when on every set
its recall and precision are at least the current metadata's less `SLACK`; of those, the best mean end-to-end
accuracy is chosen (ties: the point nearest the current factors). The dev split and its squeezed copy are then
checked with `evaluate.py --all` before the metadata changes (never `test/`).

Session 20 (results/close_up_box_calibration.json): the model's own factors (0.95, 1.1) are chosen. Tighter boxes read
the large tiles better (at (0.9, 0.95): recall 0.886 -> 0.894, end-to-end 0.828 -> 0.841) but hk-crops-justinchan,
one tile filling each frame, worse at every other point (recall 0.849 -> 0.712-0.795): its boxes are the net's
smallest against its labels, the large tiles' the largest, so no one scale serves both.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from dataclasses import replace
from pathlib import Path

from evaluate import CLOSE_UP_MODEL, DEVELOPMENT_SETS, SHARED_DATA, evaluate_all, make_pipeline
from fanscan.scoring.errors import FanscanError
from results_file import shown_path, write_json

SETS = ("riichi-table-leomiura", "hk-crops-justinchan", "close-ups", "large tiles")
SLACK = 0.002  # a set's recall or precision may fall this much (the session-9 rule's tolerance)
MEASURES = ("recall", "precision", "end_to_end_accuracy")


def factors(text: str) -> list[float]:
    try:
        values = sorted({round(float(v), 3) for v in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values or any(not 0.5 <= v <= 1.5 for v in values):
        raise argparse.ArgumentTypeError(f"factors must lie in 0.5-1.5, got {text!r}")
    return values


def measured(rows: dict) -> dict:
    """{set: {recall, precision, end_to_end_accuracy}} of an `evaluate_all` result."""
    return {name: {key: row["all"][key] for key in MEASURES} for name, row in rows["sets"].items() if "all" in row}


def eligible(point: dict, base: dict, slack: float = SLACK) -> bool:
    """Whether every set's recall and precision at `point` are at least `base`'s less `slack`."""
    return all(point[name][key] >= base[name][key] - slack - 1e-9
               for name in base for key in ("recall", "precision"))


def mean_end_to_end(point: dict) -> float:
    return sum(row["end_to_end_accuracy"] for row in point.values()) / len(point)


def choose(grid: list[dict], base_factors: tuple[float, float], base: dict) -> dict:
    """The eligible grid entry with the best mean end-to-end accuracy (ties: nearest `base_factors`)."""
    candidates = [entry for entry in grid if eligible(entry["sets"], base)]

    def distance(entry: dict) -> float:
        return abs(entry["box_scale_x"] - base_factors[0]) + abs(entry["box_scale_y"] - base_factors[1])

    return max(candidates, key=lambda entry: (round(mean_end_to_end(entry["sets"]), 4), -distance(entry)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=CLOSE_UP_MODEL, help="close-up detector ONNX")
    parser.add_argument("--x", type=factors, default=factors("0.9,0.95"), help="box_scale_x values to try")
    parser.add_argument("--y", type=factors, default=factors("0.95,1.0,1.05,1.1"), help="box_scale_y values to try")
    parser.add_argument("--shared-data", type=Path, default=SHARED_DATA)
    parser.add_argument("--limit", type=int, help="only the first N photos of each set (a quick look)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        pipeline = make_pipeline(close_up_detector=args.model)
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    reader = pipeline.close_up_detector
    shipped = reader.info
    base_factors = (shipped.box_scale_x, shipped.box_scale_y)
    sets = [entry for entry in DEVELOPMENT_SETS if entry.name in SETS]
    points = sorted({*itertools.product(args.x, args.y), base_factors})
    grid = []
    for sx, sy in points:
        reader.info = replace(shipped, box_scale_x=sx, box_scale_y=sy)
        point = measured(evaluate_all(pipeline, args.shared_data, args.limit, sets))
        grid.append({"box_scale_x": sx, "box_scale_y": sy, "sets": point,
                     "mean_end_to_end": round(mean_end_to_end(point), 4)})
        print(f"({sx}, {sy}): " + "; ".join(f"{name} " + "/".join(str(row[k]) for k in MEASURES)
                                             for name, row in point.items()), file=sys.stderr)
    base = next(entry["sets"] for entry in grid if (entry["box_scale_x"], entry["box_scale_y"]) == base_factors)
    chosen = choose(grid, base_factors, base)
    result = {"model": shown_path(args.model), "model_factors": list(base_factors), "sets": list(SETS),
              "slack": SLACK, "limit": args.limit, "grid": grid,
              "chosen": {"box_scale_x": chosen["box_scale_x"], "box_scale_y": chosen["box_scale_y"],
                         "mean_end_to_end": chosen["mean_end_to_end"]},
              "seconds": round(time.perf_counter() - started, 1)}
    print(f"chosen: box_scale_x={chosen['box_scale_x']} box_scale_y={chosen['box_scale_y']} "
          f"(mean end-to-end {chosen['mean_end_to_end']}; the model's ({base_factors[0]}, {base_factors[1]}): "
          f"{round(mean_end_to_end(base), 4)})")
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
