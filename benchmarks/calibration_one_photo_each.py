"""The acceptance's shape on a shared set: `fanscan calibrate` on one photo of each tile, then the other photos read.

    python benchmarks/calibration_one_photo_each.py --json benchmarks/results/calibration_one_photo_each.json

hk-crops-justinchan (development only, never trained on) holds single-tile crops of all 42 kinds. The first crop of
each kind by file name becomes a YOLO folder of 42 photos (in a temporary folder), `fanscan calibrate` builds a
profile from it, the way a player would run it, and the set's other crops are read with and without that profile.
The timings are the command's own (`seconds` in the profile) and this process's wall clock around it. The models
are loaded once before timing. The other crops are read twice: their labelled boxes' crops by the classifier
(`with_profile`, `without_profile`), and the photos whole through the product's `Pipeline` (`end_to_end`: found and
read right over labelled, as `evaluate.py` measures it, with recall and precision), with and without the profile.
hk-crops mixes two or three physical sets, so "the other crops" include other sets' tiles of a kind: a harder test
than one set's other photos.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the fanscan CLI does (see fanscan/cli.py); before numpy loads
import cv2
import numpy as np
from calibration_sets import labelled_boxes
from evaluate import evaluate
from fanscan.vision.classify import DEFAULT_MODEL, TileClassifier
from fanscan.vision.crops import crop_box
from fanscan.vision.pipeline import Pipeline
from fanscan.vision.profile import load_profile
from results_file import ROOT, write_json

from fanscan.cli import main as fanscan_main

DEFAULT_SET = ROOT.parent / "shared" / "data" / "hk-crops-justinchan"


def one_photo_each(folder: Path, out: Path) -> list[str]:
    """Copy the first single-tile photo of each kind (by file name) of the YOLO folder `folder` into `out` (YOLO
    layout); the names of the photos taken."""
    taken: dict[str, str] = {}
    for label in sorted((folder / "labels").glob("*.txt")):
        lines = [line for line in label.read_text(encoding="utf-8").splitlines() if line.strip()]
        images = sorted((folder / "images").glob(f"{label.stem}.*"))
        if len(lines) != 1 or not images or lines[0].split()[0] in taken:
            continue
        taken[lines[0].split()[0]] = images[0].name
    names = sorted(taken.values())
    copy_photos(folder, names, out)
    return names


def copy_photos(folder: Path, names: list[str], out: Path) -> None:
    """The photos `names` of the YOLO folder `folder`, with their labels, as a YOLO folder `out`."""
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    shutil.copy(folder / "data.yaml", out / "data.yaml")
    for name in names:
        shutil.copy(folder / "images" / name, out / "images" / name)
        shutil.copy(folder / "labels" / f"{Path(name).stem}.txt", out / "labels" / f"{Path(name).stem}.txt")


def through_pipeline(folder: Path, pipeline: Pipeline) -> dict:
    """Recall, precision and end-to-end of the photos of `folder` through `pipeline` (`evaluate.evaluate`)."""
    measured = evaluate(folder, pipeline, progress=False)["all"]
    return {key: measured[key] for key in ("recall", "precision", "end_to_end_accuracy")}


def read_share(classifier: TileClassifier, crops: np.ndarray, truth: list[str]) -> tuple[int, list[list[str]]]:
    predicted = [classifier.classes[i] for i in classifier.probabilities(crops).argmax(axis=1)]
    wrong = [[t, p] for t, p in zip(truth, predicted, strict=True) if t != p]
    return len(truth) - len(wrong), wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_SET, help="a YOLO folder of single-tile photos")
    parser.add_argument("--json", type=Path,
                        default=ROOT / "benchmarks" / "results" / "calibration_one_photo_each.json")
    args = parser.parse_args(argv)
    if not (args.data / "labels").is_dir():
        parser.error(f"--data {args.data}: not a YOLO folder (no labels/)")
    shipped = TileClassifier(DEFAULT_MODEL)
    with tempfile.TemporaryDirectory() as folder:
        calibration = Path(folder) / "one-each"
        taken = one_photo_each(args.data, calibration)
        profile_path = Path(folder) / "set.npz"
        fanscan_main(["calibrate", str(args.data), "--out", str(Path(folder) / "warm.npz"), "-q", "--no-loo",
                      "--views", "1"])  # models loaded and warm before the timed run
        started = time.perf_counter()
        fanscan_main(["calibrate", str(calibration), "--out", str(profile_path), "-q"])
        wall = time.perf_counter() - started
        profile = load_profile(profile_path)
        profiled = TileClassifier(profile=profile_path)
        others = [b for b in labelled_boxes(args.data) if b[0].name not in set(taken)]
        other_photos = Path(folder) / "others"
        copy_photos(args.data, sorted({p.name for p, _, _ in others}), other_photos)
        pipeline_without = through_pipeline(other_photos, Pipeline())
        pipeline_with = through_pipeline(other_photos, Pipeline(profile=profile_path))
    crops = np.stack([crop_box(cv2.imread(str(p), cv2.IMREAD_COLOR), box, shipped.crop_spec) for p, box, _ in others])
    truth = [t for _, _, t in others]
    right_without, wrong_without = read_share(shipped, crops, truth)
    right_with, wrong_with = read_share(profiled, crops, truth)
    loo = profile.details.get("leave_one_out") or {}
    shown = f"../{args.data.relative_to(ROOT.parent)}" if args.data.is_relative_to(ROOT.parent) else str(args.data)
    result = {"data": shown,
              "calibration_photos": len(taken), "other_crops": len(others), "cpu_count": os.cpu_count(),
              "onnxruntime_threads": "all cores (fanscan calibrate's own setting)",
              "build_seconds_reported": profile.details.get("seconds"), "build_seconds_wall": round(wall, 1),
              "penalty": profile.details.get("penalty"), "crop_zoom": profile.crop_zoom,
              "held_out_views_with_profile": loo.get("accuracy"),
              "without_profile": round(right_without / len(truth), 4),
              "with_profile": round(right_with / len(truth), 4),
              "pipeline_without_profile": pipeline_without, "pipeline_with_profile": pipeline_with,
              "wrong_without_profile": wrong_without, "wrong_with_profile": wrong_with}
    print(result, file=sys.stderr)
    write_json(args.json, result)
    print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
