"""`fanscan train classifier|detector --data DATASET`: fine-tune a shipped model on your own labelled photos.

    fanscan train classifier --data my_tiles/ --out runs/my-classifier --steps 300
    fanscan train detector --data my_tiles/ --out runs/my-detector --steps 200

Needs the `train` extra (torch, onnx). Starts from the shipped weights, holds out a share of the dataset's source
photos (augmented copies of one photo stay together), trains on the rest on the CPU, and writes
OUT/tile_classifier.onnx or OUT/tile_detector.onnx with its card (.md and .json beside it: data, steps, held-out
figures of the shipped and the fine-tuned model). Try the new model with `benchmarks/eval_classifier.py --model` /
`benchmarks/eval_detection.py --model`, then copy it over the one in models/.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from fanscan.scoring.errors import FanscanError

MODELS = ("classifier", "detector")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train", help="fine-tune the shipped classifier or detector on a labelled YOLO dataset (train extra)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", choices=MODELS, help="which model to fine-tune")
    parser.add_argument("--data", required=True, help="YOLO-layout dataset: images/, labels/, data.yaml")
    parser.add_argument("--out", default="runs/fine-tuned", help="folder for the model and its card "
                                                                 "(default runs/fine-tuned)")
    parser.add_argument("--steps", type=int, default=None,
                        help="training steps (default 300 for the classifier: 32 crops each; 200 for the detector: "
                             "8 crops of 256 px each)")
    parser.add_argument("--held-out", type=float, default=0.25, help="share of source photos held out (0.25)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.set_defaults(run=run)


def share(value: float | None) -> str:
    """A measured share as printed: four decimals (0.9888888888888889 -> 0.9889); the card keeps every digit."""
    return "n/a" if value is None else f"{value:.4f}"


def run(args: argparse.Namespace) -> int:
    missing = [name for name in ("torch", "onnx") if importlib.util.find_spec(name) is None]
    if missing:
        raise FanscanError(f"fanscan train needs {' and '.join(missing)}: pip install 'fanscan[train]' "
                           f"(or pip install -e '.[train]' in a checkout)")
    data = Path(args.data)
    if not data.is_dir():
        raise FanscanError(f"{data}: no such dataset folder")
    steps = args.steps or (300 if args.model == "classifier" else 200)
    if not 1 <= steps <= 100_000:
        raise FanscanError(f"--steps {args.steps}: give 1 to 100000")
    if not 0.0 < args.held_out < 1.0:
        raise FanscanError(f"--held-out {args.held_out}: give a share between 0 and 1")
    import torch

    from fanscan import models

    torch.set_num_threads(args.threads)
    out = Path(args.out)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if args.model == "classifier":
        from fanscan.training.finetune_classifier import finetune

        card = finetune(data, out, steps, models.model_path(models.CLASSIFIER), held_out_fraction=args.held_out,
                        log=log)
        held = card["held_out_top1"]
        print(f"held-out top-1 ({card['held_out_crops']} crops): shipped {share(held['shipped'])}, fine-tuned "
              f"{share(held['fine_tuned'])}; model {card['model']}, card {out / 'tile_classifier.md'}")
        return 0
    from fanscan.training.finetune_detector import finetune as finetune_detector

    card = finetune_detector(data, out, steps, models.model_path(models.DETECTOR), held_out_fraction=args.held_out,
                             log=log)
    before, after = card["held_out"]["shipped"], card["held_out"]["fine_tuned"]
    if before and after:
        print(f"held-out recall / precision ({card['held_out_boxes']} boxes): shipped {share(before['recall'])} / "
              f"{share(before['precision'])}, fine-tuned {share(after['recall'])} / {share(after['precision'])}; "
              f"model {card['model']}, card {out / 'tile_detector.md'}")
    else:
        print(f"no held-out photos (one source); model {card['model']}, card {out / 'tile_detector.md'}")
    return 0
