"""Two trained detectors' weights averaged into one checkpoint: a fine-tuned net pulled back part of the way
towards the net it started from.

    python -m fanscan.training.average_weights models/tile_detector_close_up.onnx runs/close-up-v5/final.pt \
        --weight 0.5 --out runs/close-up-v5/average.pt
    python -m fanscan.training.train_detector --export-from runs/close-up-v5/average.pt --export OUT.onnx ...

Either input is a checkpoint of `train_detector` or an exported .onnx (`train_detector.initial_weights`). The
average is taken tensor by tensor, `(1 - weight) * first + weight * second`; both nets must be the same network,
fine-tuned from one another with batch norms frozen (`--freeze-bn`), so that the averaged convolutions still fit
their batch norms. Integer tensors (batch norms' counters) are the second's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fanscan.scoring.errors import FanscanError


def average_state(first: dict, second: dict, weight: float) -> dict:
    """`(1 - weight) * first + weight * second` for each floating-point tensor; the second's for the others."""
    if not 0.0 <= weight <= 1.0:
        raise FanscanError(f"--weight {weight}: expected a share between 0 and 1")
    if first.keys() != second.keys():
        differing = sorted(set(first) ^ set(second))[:3]
        raise FanscanError(f"the two nets have different layers ({', '.join(differing)}): not the same network")
    averaged = {}
    for name, tensor in first.items():
        other = second[name]
        if tuple(tensor.shape) != tuple(other.shape):
            raise FanscanError(f"layer {name}: shapes {tuple(tensor.shape)} and {tuple(other.shape)} differ")
        averaged[name] = tensor * (1 - weight) + other * weight if tensor.is_floating_point() else other.clone()
    return averaged


def main(argv: list[str] | None = None) -> int:
    import torch
    from fanscan.training.train_detector import initial_weights

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path, help="checkpoint or .onnx (weight 1 - W)")
    parser.add_argument("second", type=Path, help="checkpoint or .onnx (weight W)")
    parser.add_argument("--weight", type=float, default=0.5, help="W, the second net's share (default 0.5)")
    parser.add_argument("--out", type=Path, required=True, help="the averaged checkpoint (for --export-from)")
    args = parser.parse_args(argv)
    try:
        for path in (args.first, args.second):
            if not path.is_file():
                raise FanscanError(f"{path}: no such file")
        state = average_state(initial_weights(args.first), initial_weights(args.second), args.weight)
    except FanscanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": state}, args.out)
    print(f"{args.out}: {1 - args.weight:g} x {args.first} + {args.weight:g} x {args.second}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
