"""Classifier inference speed: median milliseconds per crop when classifying batches of 14 (one hand).

    python benchmarks/classifier_speed.py [--model PATH] [--batch 14] [--repeat 200] [--threads N] [--json OUT]

Times `TileClassifier.classify` end to end (normalisation, onnxruntime, softmax, top-k) on fixed random crops of the
model's input size. Target: <= 1 ms per crop at batch 14.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from fanscan.vision.classify import DEFAULT_MODEL, TileClassifier
from results_file import write_json


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--batch", type=int, default=14)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads (default 1)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    classifier = TileClassifier(args.model, threads=args.threads)
    spec = classifier.crop_spec
    crops = np.random.default_rng(0).integers(0, 256, (args.batch, spec.height, spec.width, 3), dtype=np.uint8)
    for _ in range(10):  # warm-up: first runs allocate
        classifier.classify(crops, k=3)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        classifier.classify(crops, k=3)
        times.append(time.perf_counter() - start)
    per_batch = float(np.median(times)) * 1000
    result = {
        "model": str(args.model), "batch": args.batch, "repeat": args.repeat, "threads": args.threads,
        "median_ms_per_batch": round(per_batch, 3), "median_ms_per_crop": round(per_batch / args.batch, 4),
        "p90_ms_per_batch": round(float(np.percentile(times, 90)) * 1000, 3),
        "target_ms_per_crop": 1.0, "cpu_count": os.cpu_count(), "machine": platform.machine(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    print(f"median {result['median_ms_per_crop']} ms per crop ({per_batch:.2f} ms per batch of {args.batch}), "
          f"p90 {result['p90_ms_per_batch']} ms per batch, load {result['load_average_1min']}")
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
