"""The development split of the train folder, and which of its photos the shipped models were trained on.

    python benchmarks/dev_split.py --json benchmarks/results/dev_split.json

The split itself is `fanscan.vision.splits` (photo sessions, a salted hash). The shipped detector was trained before
it existed, with its own held-out photos, so most dev photos were in its training data; the shipped classifier (the
session-5 release) held out the development split itself:
- the classifier held out the dev split's sources (models/tile_classifier.md; run 3 before it held out the sources
  whose unsalted SHA-1 falls below 0.08);
- the detector held out 16 sources ranked first by SHA-256 of "20261129:<source>" among the sources whose photos
  survived label repair (models/tile_detector.md); survival is checked here by running the repair on the candidates.
Every dev figure of the shipped models must carry this caveat (benchmarks/evaluate.py reads this file).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections import Counter
from pathlib import Path

from fanscan.vision import splits
from fanscan.vision.yolo_data import find_data_yaml
from results_file import shown_path, write_json

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chinese-mahjong-v4" / "train"
# The shipped detector's own held-out rule (its card): --val-groups 16 with seed 20261129.
DETECTOR_GROUPS, DETECTOR_SEED = 16, 20261129


def classifier_held_out(sources: list[str]) -> set[str]:
    """The shipped classifier's held-out sources: the development split's (its trainer's default)."""
    return {s for s in sources if splits.split_of(s) == splits.DEV}


def detector_held_out(data: Path, sources: list[str]) -> set[str]:
    """The shipped detector's 16 held-out sources: the seeded ranking, skipping sources label repair left no photo of
    (the training ranked only the sources it loaded)."""
    from fanscan.training.detector_data import load_split

    ranked = sorted(sources, key=lambda g: hashlib.sha256(f"{DETECTOR_SEED}:{g}".encode()).hexdigest())
    candidates = ranked[: DETECTOR_GROUPS + 8]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "images").mkdir()
        (folder / "labels").mkdir()
        (folder / "data.yaml").symlink_to(find_data_yaml(data).resolve())
        for image in (data / "images").iterdir():
            if splits.source_of(image.name) in candidates:
                (folder / "images" / image.name).symlink_to(image.resolve())
                label = data / "labels" / f"{image.stem}.txt"
                (folder / "labels" / label.name).symlink_to(label.resolve())
        survivors = {splits.source_of(item.name) for item in load_split(folder, repair_labels=True)}
    kept = [s for s in candidates if s in survivors]
    return set(kept[:DETECTOR_GROUPS])


def describe(data: Path) -> dict:
    names = sorted(p.name for p in (data / "images").iterdir())
    sources = sorted({splits.source_of(n) for n in names})
    by_classifier = classifier_held_out(sources)
    by_detector = detector_held_out(data, sources)
    dev = splits.select(names, splits.DEV)
    dev_sources = sorted({splits.source_of(n) for n in dev})
    sessions = Counter(splits.session_of(n) for n in dev)
    return {
        "data": shown_path(data),
        "rule": f"fanscan.vision.splits: session from the file name, SHA-1 of {splits.SALT!r} + session "
                f"< {splits.DEV_FRACTION}",
        "photos": len(names), "sources": len(sources),
        "sessions": len({splits.session_of(n) for n in names}),
        "dev_photos": len(dev), "dev_sources": len(dev_sources), "dev_sessions": dict(sorted(sessions.items())),
        "shipped_classifier_held_out_dev_sources": sorted(by_classifier & set(dev_sources)),
        "shipped_detector_held_out_dev_sources": sorted(by_detector & set(dev_sources)),
        "dev_sources_held_out_by_both": sorted(by_classifier & by_detector & set(dev_sources)),
        "dev_photos_trained_on_by_classifier": sum(splits.source_of(n) not in by_classifier for n in dev),
        "dev_photos_trained_on_by_detector": sum(splits.source_of(n) not in by_detector for n in dev),
        "dev_photos_trained_on_by_either": sum(
            splits.source_of(n) not in (by_classifier & by_detector) for n in dev),
        "shipped_detector_held_out_sources": sorted(by_detector),
        "dev": dev,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the train folder (images/, labels/)")
    parser.add_argument("--json", type=Path, help="write the description here")
    args = parser.parse_args(argv)
    if not (args.data / "images").is_dir():
        print(f"error: {args.data}: no images/ folder", file=sys.stderr)
        return 2
    result = describe(args.data)
    for key, value in result.items():
        if key not in ("dev", "dev_sessions"):
            print(f"{key}: {value}")
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
