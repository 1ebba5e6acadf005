"""Speed of the photo stages on a 640-px photo and on a 12-megapixel photo, next to the time to just decode it.

    python benchmarks/vision_speed.py --json runs/vision_speed.json            # 1 and 2 threads
    python benchmarks/compare_commits.py --against COMMIT -- vision_speed      # side by side with an earlier commit

The 12-MP photo is a test photo upscaled to 4000 x 3000 and saved as JPEG (quality 92) in a temporary folder.
Medians over `--repeat` runs after one warm-up. `decode_only_ms` is a plain full-resolution `cv2.imread`;
`load_ms` is `vision.load.load_image` (header checks, EXIF, libjpeg's reduced decode, scale to working size).
Stages present in this checkout are timed; classification, and the whole path to a `HandProposal`
(`vision.pipeline.Pipeline.propose`: load, detect, crop, classify, group), when `vision.classify` and its model exist.
`by_threads` repeats the whole path with both models at each of `--threads` threads (default 1 and 2; the
classifier's are parts of its batch read side by side, `vision.classify`), and as the product builds it (`default`:
`Pipeline()`, what `fanscan photo` runs):
the median of the path, the median of each stage of the pipeline's own timings (`HandProposal.timings_ms`), and the
decode alone, measured in turn in the same rounds, so that the ratio between them holds on a drifting machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
from big_photo import write_12mp_copy, write_12mp_small_tiles_copy
from fanscan.vision.detect import TileDetector
from fanscan.vision.load import load_image
from results_file import ROOT, write_json

DEFAULT_PHOTO = ROOT.parent / "shared" / "data" / "chinese-mahjong-v4" / "test" / "images"
FALLBACK_PHOTO = ROOT / "tests" / "data" / "mini_yolo" / "train" / "images"


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def pick_photo(path: Path | None) -> Path:
    if path is not None:
        return path
    for folder in (DEFAULT_PHOTO, FALLBACK_PHOTO):
        if folder.is_dir():
            photos = sorted(p for p in folder.iterdir() if p.name.startswith("hand_")) or sorted(folder.iterdir())
            if photos:
                return photos[0]
    raise SystemExit("no photo found: pass --photo")


def load_classifier():
    try:
        from fanscan.vision.classify import TileClassifier

        return TileClassifier()
    except Exception:  # not written yet, or no model shipped: time what exists
        return None


def stage_times(path: Path, detector: TileDetector, classifier, repeat: int) -> dict:
    result: dict[str, float | int | None] = {}
    result["decode_only_ms"] = median_ms(lambda: cv2.imread(str(path), cv2.IMREAD_COLOR), repeat)
    result["load_ms"] = median_ms(lambda: load_image(path), repeat)
    image = load_image(path).image
    result["working_size"] = f"{image.shape[1]}x{image.shape[0]}"
    result["detect_ms"] = median_ms(lambda: detector.detect(image), repeat)
    tiles = detector.detect(image)
    result["tiles"] = len(tiles)
    # The squeezed-photo search (vision.aspect) on this first pass: a check only, unless the photo looks squeezed.
    from fanscan.vision.aspect import unsqueeze

    result["aspect_search_ms"] = median_ms(lambda: unsqueeze(image, detector.detect, tiles), repeat)
    result["aspect_fix_chosen"] = unsqueeze(image, detector.detect, tiles)[1].changed
    total = result["load_ms"] + result["detect_ms"]
    if classifier is not None and tiles:
        from fanscan.vision.crops import DEFAULT_SPEC, crop_tiles

        spec = getattr(classifier, "crop_spec", DEFAULT_SPEC)
        quads = [t.quad for t in tiles]
        result["crop_ms"] = median_ms(lambda: crop_tiles(image, quads, spec), repeat)
        crops = crop_tiles(image, quads, spec)
        result["classify_ms"] = median_ms(lambda: classifier.classify(crops, 3), repeat)
        total += result["crop_ms"] + result["classify_ms"]
    else:
        result["crop_ms"] = result["classify_ms"] = None
    result["load_detect_classify_ms"] = round(total, 2)
    result["ratio_to_decode_only"] = round(total / result["decode_only_ms"], 2)
    if classifier is not None:
        # The whole product path, grouping included: file → HandProposal.
        from fanscan.vision.pipeline import Pipeline

        pipeline = Pipeline(detector, classifier)
        without_search = Pipeline(detector, classifier, aspect_search=False)
        result["photo_to_proposal_ms"] = median_ms(lambda: pipeline.propose(path), repeat)
        # The same without the squeezed-photo search (vision.aspect), timed right after: what the search costs.
        result["photo_to_proposal_without_aspect_search_ms"] = median_ms(lambda: without_search.propose(path), repeat)
        result["proposal_ratio_to_decode_only"] = round(result["photo_to_proposal_ms"] / result["decode_only_ms"], 2)
    return result


def small_tiles_times(path: Path, detector: TileDetector, classifier, repeat: int) -> dict:
    """A 12-MP photo whose tiles are too small for the coarse first look (`vision.load`, `coarse_first`): the
    product path (coarse look, then the working size) against decoding at the working size at once."""
    from fanscan.vision.pipeline import Pipeline

    pipeline = Pipeline(detector, classifier)
    proposal = pipeline.propose(path)
    decode_ms = median_ms(lambda: cv2.imread(str(path), cv2.IMREAD_COLOR), repeat)
    product_ms = median_ms(lambda: pipeline.propose(path), repeat)
    working_ms = median_ms(lambda: pipeline.propose(load_image(path)), repeat)
    return {"tiles": len(proposal.tiles), "coarse_look_taken": "coarse_look" in proposal.timings_ms,
            "decode_only_ms": decode_ms, "photo_to_proposal_ms": product_ms,
            "photo_to_proposal_working_size_at_once_ms": working_ms,
            "proposal_ratio_to_decode_only": round(product_ms / decode_ms, 2)}


def medians_by_stage(proposals_timings: list[dict[str, float]]) -> dict[str, float]:
    """The median of each stage over runs (a stage that ran in only some runs counts 0 in the others)."""
    stages = sorted({stage for timings in proposals_timings for stage in timings})
    return {stage: round(statistics.median(t.get(stage, 0.0) for t in proposals_timings), 2) for stage in stages}


def path_by_threads(photos: dict[str, Path], threads: list[int], repeat: int) -> dict:
    """For each thread count and photo: decode-only, photo → proposal and its stages, medians over `repeat` rounds
    in which every configuration runs once in turn (so drift hits them alike)."""
    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.pipeline import Pipeline

    pipelines: dict = {t: Pipeline(TileDetector(threads=t), TileClassifier(threads=t)) for t in threads}
    pipelines["default"] = Pipeline()  # as `fanscan photo` builds it: each model at its own default threads
    runs: dict[tuple, dict[str, list]] = {(t, name): {"decode": [], "total": [], "stages": []}
                                          for t in pipelines for name in photos}
    for pipeline in pipelines.values():  # warm-up
        for photo in photos.values():
            pipeline.propose(photo)
    for _ in range(repeat):
        for name, photo in photos.items():
            start = time.perf_counter()
            cv2.imread(str(photo), cv2.IMREAD_COLOR)
            decode = (time.perf_counter() - start) * 1000
            for t, pipeline in pipelines.items():
                start = time.perf_counter()
                proposal = pipeline.propose(photo)
                runs[(t, name)]["total"].append((time.perf_counter() - start) * 1000)
                runs[(t, name)]["stages"].append(proposal.timings_ms)
                runs[(t, name)]["decode"].append(decode)
    result: dict[str, dict] = {}
    for (t, name), r in runs.items():
        total, decode = statistics.median(r["total"]), statistics.median(r["decode"])
        result.setdefault(str(t), {})[name] = {
            "decode_only_ms": round(decode, 2), "photo_to_proposal_ms": round(total, 2),
            "proposal_ratio_to_decode_only": round(total / decode, 2), "stages_ms": medians_by_stage(r["stages"])}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", nargs="?", const="-", help="write JSON here ('-' or no value: stdout only)")
    parser.add_argument("--photo", type=Path, help="a ~640-px photo (default: the first hand_* test photo)")
    parser.add_argument("--model", type=Path, help="detector ONNX (default: models/tile_detector.onnx)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="onnxruntime threads of both models for `by_threads` (default 1 2); the first count is "
                             "also the detector's in the single-stage figures")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    photo = pick_photo(args.photo)
    detector = TileDetector(args.model, threads=args.threads[0])
    classifier = load_classifier()
    with tempfile.TemporaryDirectory() as tmp:
        big = write_12mp_copy(photo, Path(tmp) / "photo_12mp.jpg")
        result = {
            "photo": str(photo),
            "model": str(detector.path),
            "onnxruntime_threads": detector.session.get_session_options().intra_op_num_threads,
            "cpu_count": os.cpu_count(),
            "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "python": platform.python_version(),
            "opencv": cv2.__version__,
            "photo_640": stage_times(photo, detector, classifier, args.repeat),
            "photo_12mp": stage_times(big, detector, classifier, max(5, args.repeat // 4)),
        }
        if classifier is not None:
            result["by_threads"] = path_by_threads({"photo_640": photo, "photo_12mp": big}, args.threads,
                                                   max(5, args.repeat // 2))
            result["photo_12mp_small_tiles"] = small_tiles_times(
                write_12mp_small_tiles_copy(photo, Path(tmp) / "photo_12mp_small_tiles.jpg"), detector, classifier,
                max(5, args.repeat // 4))
    text = json.dumps(result, indent=2)
    print(text)
    if args.json and args.json != "-":
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
