"""`fanscan train classifier` on a small dataset: does fine-tuning beat the shipped model on its held-out part?

    python benchmarks/train_classifier_small.py --json benchmarks/results/train_classifier_small.json

The small dataset: the photos of the train split's sources that the shipped classifier held out (its development
split, `calibration_curve.shipped_validation_source`: the shipped model never trained on them), linked
into a YOLO-layout folder. `fanscan train classifier` holds out a quarter of those sources again by name hash,
fine-tunes on the rest and reports both models on the held-out quarter, crop for crop.

`--recolour` swaps red and blue in every photo first (written as PNG): the same tiles in a palette no training
photo shows, as a set of another maker would look to the model (the same construction as
`benchmarks/calibration_curve.py`'s recoloured curve).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import cv2
from calibration_curve import shipped_validation_source
from fanscan.vision.splits import source_of
from fanscan.vision.yolo_data import find_data_yaml, iter_split
from results_file import ROOT, write_json

from fanscan.cli import main as fanscan_main

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chinese-mahjong-v4" / "train"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--recolour", action="store_true", help="swap red and blue in every photo (see above)")
    parser.add_argument("--json", type=Path, default=None,
                        help="result (default benchmarks/results/train_classifier_small[_recoloured].json)")
    args = parser.parse_args(argv)
    name = "train_classifier_small_recoloured.json" if args.recolour else "train_classifier_small.json"
    args.json = args.json or ROOT / "benchmarks" / "results" / name
    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder) / "small"
        (small / "images").mkdir(parents=True)
        (small / "labels").mkdir()
        shutil.copy(find_data_yaml(args.data), small / "data.yaml")
        photos = 0
        for item in iter_split(args.data):
            if shipped_validation_source(source_of(item.image_path)):
                if args.recolour:
                    image = cv2.imread(str(item.image_path), cv2.IMREAD_COLOR)
                    cv2.imwrite(str(small / "images" / f"{item.image_path.stem}.png"), image[..., ::-1])
                else:
                    (small / "images" / item.image_path.name).symlink_to(item.image_path.resolve())
                if item.label_path.exists():
                    (small / "labels" / item.label_path.name).symlink_to(item.label_path.resolve())
                photos += 1
        out = Path(folder) / "run"
        code = fanscan_main(["train", "classifier", "--data", str(small), "--out", str(out), "--steps",
                             str(args.steps)])
        if code != 0:
            return code
        card = json.loads((out / "tile_classifier.json").read_text(encoding="utf-8"))
    card.update(dataset=f"{photos} photos of the shipped classifier's held-out sources (the development split) of "
                        f"{args.data}"
                        + (", red and blue swapped" if args.recolour else ""),
                model="(temporary; rebuild with this script)")
    write_json(args.json, card)
    print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
