"""What the sideways look (`vision.sideways`) and the turned readings (`vision.turned_faces`) cost, per photo.

    python benchmarks/sideways_turned_speed.py --json benchmarks/results/sideways_turned_speed.json

On a ~640-px photo (default: the first hand_* test photo, the one `vision_speed.py` times) and on the same photo
upscaled to 12 MP and loaded at working size: detection with and without the local look at sideways candidates, and
the classifier's readings as is and with uncertain crops read turned as well. The variants run interleaved, one
after the other in each round, so that a busy machine slows them alike; medians over `--repeat` rounds after one
warm-up. The added milliseconds are what the two steps add to `vision_speed.py`'s photo-to-proposal time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from big_photo import write_12mp_copy
from fanscan.vision.classify import TileClassifier
from fanscan.vision.crops import crop_tiles
from fanscan.vision.detect import TileDetector
from fanscan.vision.load import load_image
from fanscan.vision.sideways import candidates
from fanscan.vision.turned_faces import LOW_CONFIDENCE, read_any_turn
from results_file import report
from vision_speed import pick_photo


def interleaved_ms(variants: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in variants}
    for fn in variants.values():
        fn()
    for _ in range(repeat):
        for name, fn in variants.items():
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: round(statistics.median(t), 2) for name, t in times.items()}


def photo_costs(path: Path, detector: TileDetector, classifier: TileClassifier, repeat: int) -> dict:
    image = load_image(path).image

    def detect(check: bool):
        detector.sideways_check = check
        return detector.detect(image)

    detect_ms = interleaved_ms({"without_look": lambda: detect(False), "with_look": lambda: detect(True)}, repeat)
    tiles = detect(True)
    crops = crop_tiles(image, [t.quad for t in tiles], classifier.crop_spec)
    read_ms = interleaved_ms({"as_is": lambda: classifier.classify(crops, 5),
                              "any_turn": lambda: read_any_turn(classifier, crops, 5)}, repeat)
    uncertain = int((classifier.probabilities(crops).max(axis=1) < LOW_CONFIDENCE).sum()) if len(crops) else 0
    boxes = [t.box for t in detect(False)]
    return {
        "working_size": f"{image.shape[1]}x{image.shape[0]}", "tiles": len(tiles),
        "sideways_candidates": len(candidates(np.array(boxes, np.float32).reshape(-1, 4))),
        "uncertain_crops": uncertain,
        "detect_ms": detect_ms, "read_ms": read_ms,
        "added_ms": round(detect_ms["with_look"] - detect_ms["without_look"] + read_ms["any_turn"] - read_ms["as_is"],
                          2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photo", type=Path, help="a ~640-px photo (default: the first hand_* test photo)")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    photo = pick_photo(args.photo)
    detector = TileDetector()
    classifier = TileClassifier()
    with tempfile.TemporaryDirectory() as tmp:
        big = write_12mp_copy(photo, Path(tmp) / "photo_12mp.jpg")
        result = {
            "photo": str(photo),
            "detector_threads": detector.session.get_session_options().intra_op_num_threads,
            "classifier_threads": classifier.session.get_session_options().intra_op_num_threads,
            "cpu_count": os.cpu_count(),
            "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "photo_640": photo_costs(photo, detector, classifier, args.repeat),
            "photo_12mp": photo_costs(big, detector, classifier, max(5, args.repeat // 3)),
        }
    return report(result, args.json)


if __name__ == "__main__":
    sys.exit(main())
