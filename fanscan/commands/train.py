"""`fanscan train classifier --data DATASET`: fine-tune a shipped model on your own labelled photos (`train` extra).

    fanscan train classifier --data my_tiles/ --out runs/my-classifier --steps 300

Starts from the shipped weights, holds out a share of the dataset's source photos (augmented copies of one photo
stay together), trains on the rest on the CPU, and writes OUT/tile_classifier.onnx with its card (OUT/
tile_classifier.md and .json: data, steps, held-out top-1 of the shipped and the fine-tuned model). Use the new
model with `benchmarks/eval_classifier.py --model`, or copy it over models/tile_classifier.onnx.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from fanscan.scoring.errors import FanscanError

MODELS = ("classifier",)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train", help="fine-tune the shipped classifier on a labelled YOLO dataset (needs the train extra)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", choices=MODELS, help="which model to fine-tune")
    parser.add_argument("--data", required=True, help="YOLO-layout dataset: images/, labels/, data.yaml")
    parser.add_argument("--out", default="runs/fine-tuned", help="folder for the model and its card "
                                                                 "(default runs/fine-tuned)")
    parser.add_argument("--steps", type=int, default=300, help="training steps of 32 crops (default 300)")
    parser.add_argument("--held-out", type=float, default=0.25, help="share of source photos held out (0.25)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    missing = [name for name in ("torch", "onnx") if importlib.util.find_spec(name) is None]
    if missing:
        raise FanscanError(f"fanscan train needs {' and '.join(missing)}: pip install 'fanscan[train]' "
                           f"(or pip install -e '.[train]' in a checkout)")
    data = Path(args.data)
    if not data.is_dir():
        raise FanscanError(f"{data}: no such dataset folder")
    if not 1 <= args.steps <= 100_000:
        raise FanscanError(f"--steps {args.steps}: give 1 to 100000")
    if not 0.0 < args.held_out < 1.0:
        raise FanscanError(f"--held-out {args.held_out}: give a share between 0 and 1")
    import torch

    from fanscan import models
    from fanscan.training.finetune_classifier import finetune

    torch.set_num_threads(args.threads)
    card = finetune(data, Path(args.out), args.steps, models.model_path(models.CLASSIFIER),
                    held_out_fraction=args.held_out, log=lambda m: print(m, file=sys.stderr, flush=True))
    held = card["held_out_top1"]
    print(f"held-out top-1 ({card['held_out_crops']} crops): shipped {held['shipped']}, fine-tuned "
          f"{held['fine_tuned']}; model {card['model']}, card {Path(args.out) / 'tile_classifier.md'}")
    return 0
