"""Learning as you play (`--learn`): accuracy on the rest of `riichi-table-leomiura` after 1, 3 and 10 confirmed frames,
starting from no profile.

    python benchmarks/learning_curve.py --json benchmarks/results/learning_curve.json

Scenes as in `benchmarks/calibration_sets.py` (frames less than 20 s apart), alternating into two halves. A player
confirms frames of one half, one per scene in time order (each hand is a new scene), each with every labelled box
read right (the user fixed what the model misread): the frame's tiles join the profile through `--learn`'s own code
(`calibration.learn.add_entry`, with the classifier the profile learns with, profile and all, deciding which tiles
count as fixes: before the first frame the profiles' own file, `vision.classify.PROFILE_MODEL`, as `--learn` starts a
new profile) and the profile is refitted (`calibration.learn.refit`). "Without a profile" is the shipped reading.
After 1, 3 and 10 frames, every box of the other half
is read with the profile. Then the halves swap; figures are pooled over both directions.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the fanscan CLI does (see fanscan/cli.py); before numpy loads
import cv2
import numpy as np
from calibration_sets import labelled_boxes, read_accuracy, scene_of_frames, tile_of
from fanscan.vision.classify import PROFILE_MODEL, TileClassifier
from fanscan.vision.crops import crop_box
from results_file import ROOT, shown_path, write_json

from fanscan.calibration.learn import add_entry, refit

DEFAULT = ROOT.parent / "shared" / "data" / "riichi-table-leomiura"


def confirmation_order(boxes: list[tuple], scenes: dict[str, int]) -> list[str]:
    """Frames of a half in the order a player confirms them: the first frame of each scene, then the second, ..."""
    by_scene: dict[int, list[str]] = {}
    for frame in sorted({b[0].name for b in boxes}):
        by_scene.setdefault(scenes[frame], []).append(frame)
    return [frames[i] for i in range(max(len(f) for f in by_scene.values()))
            for _, frames in sorted(by_scene.items()) if i < len(frames)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--frames", default="1,3,10", help="confirmed frames after which to measure")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "learning_curve.json")
    args = parser.parse_args(argv)
    marks = sorted(int(v) for v in args.frames.split(","))
    shipped = TileClassifier()
    learner = TileClassifier(PROFILE_MODEL)  # what a new --learn profile is built on
    boxes = labelled_boxes(args.data)
    scenes = scene_of_frames(sorted({b[0].name for b in boxes}))
    images = {p: cv2.imread(str(p), cv2.IMREAD_COLOR) for p in {b[0] for b in boxes}}
    halves = [[b for b in boxes if scenes[b[0].name] % 2 == h] for h in (0, 1)]
    crops = [np.stack([crop_box(images[p], box, shipped.crop_spec) for p, box, _ in half]) for half in halves]
    truth = [[t for _, _, t in half] for half in halves]
    without = sum(read_accuracy(shipped, c, t)[0] for c, t in zip(crops, truth, strict=True)) / len(boxes)
    right = dict.fromkeys(marks, 0)
    tested = dict.fromkeys(marks, 0)
    details: dict[int, list] = {m: [] for m in marks}
    for learn_on in (0, 1):
        order = confirmation_order(halves[learn_on], scenes)
        with tempfile.TemporaryDirectory() as folder:
            profile = Path(folder) / "learned.npz"
            reader = learner
            for count, frame in enumerate(order[:marks[-1]], start=1):
                tiles = [tile_of(b, images) for b in halves[learn_on] if b[0].name == frame]
                started = time.perf_counter()
                entry = add_entry(profile, reader, tiles, "photo", frame)
                fitted = refit(profile, learner)
                seconds = time.perf_counter() - started
                reader = TileClassifier(profile=fitted)
                if count in marks:
                    got, n = read_accuracy(reader, crops[1 - learn_on], truth[1 - learn_on])
                    right[count] += got
                    tested[count] += n
                    details[count].append({"learned_on_half": learn_on, "accuracy": round(got / n, 4),
                                           "tiles_learned": fitted.details["tiles"],
                                           "kinds_learned": len(fitted.details["tile_counts"]),
                                           "penalty": fitted.details["penalty"],
                                           "fixed_in_last_frame": len(entry.hard),
                                           "last_add_and_refit_seconds": round(seconds, 1)})
                    print(f"half {learn_on}, {count} frames: {details[count][-1]}", flush=True)
    result = {"data": shown_path(args.data), "construction": __doc__.split("\n\n")[2].replace("\n", " "),
              "boxes": len(boxes), "scenes": max(scenes.values()) + 1, "without_profile": round(without, 4),
              "curve": [{"confirmed_frames": m, "with_profile": round(right[m] / tested[m], 4) if tested[m] else None,
                         "runs": details[m]} for m in marks]}
    write_json(args.json, result)
    print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
