"""The README's and the model cards' figures, written from benchmarks/results/*.json: one source for every figure.

    python benchmarks/readme_figures.py            # rewrite every marked block from the JSON
    python benchmarks/readme_figures.py --check    # exit 1 when a block differs from what the JSON says (CI)

A block is marked `<!-- figures:NAME -->` … `<!-- /figures -->` (the markers stay, the text between them is
generated). Each figure says the split and the command that produced its JSON. To change a figure, run the
benchmark again (it writes the JSON), then this script; never edit a block by hand.

The blocks' text is written by `figures_models.py` (recognition, model cards) and `figures_product.py` (browser,
batch, scoring); `figure_sources.py` holds the result files and the command behind each.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import figures_models as models
import figures_product as product
from results_file import ROOT

FILES = (ROOT / "README.md", ROOT / "models" / "tile_detector.md", ROOT / "models" / "tile_classifier.md")
BLOCK = re.compile(r"(<!-- figures:(?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /figures -->)", re.DOTALL)


RENDERERS: dict[str, Callable[[], str]] = {
    "recognition": models.recognition,
    "samples": models.samples_sentence,
    "vision-speed": models.vision_speed,
    "rules-margin": models.rules_margin,
    "detector-test": models.detector_test,
    "classifier-test": models.classifier_test,
    "hand-apart": models.hand_apart,
    "web-speed": product.web_speed,
    "batch-throughput": product.batch_throughput,
    "million-photos": product.million_photos,
    "calibration-curve": models.calibration_curve,
    "calibration-speed": models.calibration_speed,
    "label-studio": product.label_studio,
    "train-small": models.train_small,
    "scoring-mcr": product.scoring_mcr,
    "scoring-hk": product.scoring_hk,
    "differential": product.differential,
    "sideways-turned": models.sideways_turned,
    "sideways-detector": models.sideways_detector,
    "large-tiles": models.large_tiles,
    "classifier-test-detail": models.classifier_test_detail,
    "classifier-rebuild": models.classifier_rebuild,
    "classifier-per-class": models.classifier_per_class,
    "classifier-speed": models.classifier_speed,
    "classifier-candidate": models.classifier_candidate,
    "detector-misses": models.detector_misses,
    "backs-test": models.backs_test,
    "detector-calibration": models.detector_calibration,
}


def render(text: str, where: str) -> str:
    """`text` with every marked block regenerated. A block's body starts and ends with a newline when the
    generated text has several lines (a table), and sits inline otherwise (a sentence)."""

    def fill(found: re.Match) -> str:
        name = found.group("name")
        if name not in RENDERERS:
            raise SystemExit(f"error: {where}: unknown figures block {name!r} (known: {', '.join(RENDERERS)})")
        body = RENDERERS[name]()
        body = f"\n{body}\n" if "\n" in body else body
        return f"{found.group(1)}{body}{found.group(4)}"

    return BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 when a block is out of date")
    parser.add_argument("files", nargs="*", type=Path, help="markdown files (default: README and model cards)")
    args = parser.parse_args(argv)
    stale = []
    for path in args.files or FILES:
        text = path.read_text(encoding="utf-8")
        updated = render(text, str(path))
        if updated == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(updated, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(str(p) for p in stale)
        print(f"figures out of date with benchmarks/results in: {names}; run python benchmarks/readme_figures.py",
              file=sys.stderr)
        return 1
    for path in stale:
        print(f"rewrote the figures of {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
