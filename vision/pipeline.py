"""Photo → `HandProposal`: load → detect → crop → classify → group, each stage timed.

    from fanscan.vision.pipeline import propose
    proposal = propose("datasets/samples/images/hand_001.jpg")
    print(proposal.hand, proposal.warnings, proposal.timings_ms)

The models are loaded once per `Pipeline` (and once per process for the module-level `propose`). Quads and boxes in
the proposal are in the pixels of the file as the user sees it (EXIF orientation applied), even when the photo was
scaled down to work on.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision.crops import DEFAULT_SPEC, crop_tiles
from fanscan.vision.detect import DetectedTile, TileDetector, default_detector
from fanscan.vision.group import ObservedTile, choose_reading
from fanscan.vision.load import LoadedImage, load_image
from fanscan.vision.proposal import HandProposal, build_proposal

# How many classifier candidates each tile carries into the reading search.
TOP_K = 5


def observed_tiles(
    detections: Sequence[DetectedTile], readings: Sequence[Sequence[tuple[str, float]]], scale: float = 1.0
) -> list[ObservedTile]:
    """Detections plus classifier readings as the grouping stage takes them; quads divided by `scale`
    (working pixels → file pixels)."""
    if len(detections) != len(readings):
        raise ValueError(f"{len(detections)} detections but {len(readings)} classifier readings")
    tiles = []
    for detection, reading in zip(detections, readings, strict=True):
        quad = tuple((float(x) / scale, float(y) / scale) for x, y in np.asarray(detection.quad).reshape(4, 2))
        tiles.append(ObservedTile(quad, detection.orientation, tuple((str(t), float(p)) for t, p in reading),
                                  float(detection.score)))
    return tiles


def read_hand_tiles(
    image: np.ndarray, detections: list[DetectedTile], readings: list[list[tuple[str, float]]]
) -> list[str] | None:
    """The whole-hand hook of `benchmarks/eval_detection.py` (`HandReader`): the tile ids of the hand the grouping
    stage proposes for these detections and readings (faces and flowers; no backs), or None without tiles."""
    if not detections or any(not r for r in readings):
        return None
    best = choose_reading(observed_tiles(detections, readings)).best
    return list(best.tile_multiset()) if best is not None else None


class Pipeline:
    """The models of the photo pipeline, loaded once; `propose` turns a photo into a `HandProposal`."""

    def __init__(self, detector: TileDetector | None = None, classifier=None, top_k: int = TOP_K) -> None:
        self.detector = detector or default_detector()
        if classifier is None:
            from fanscan.vision.classify import TileClassifier  # the classifier's module loads onnxruntime

            classifier = TileClassifier()
        self.classifier = classifier
        self.top_k = top_k

    def propose(self, image: str | Path | np.ndarray | LoadedImage) -> HandProposal:
        """The proposal for a photo file, a decoded `LoadedImage`, or a BGR uint8 array."""
        timings: dict[str, float] = {}
        started = clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timings[stage] = round((now - clock) * 1000, 2)
            clock = now

        if isinstance(image, np.ndarray):
            if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8 or min(image.shape[:2]) < 1:
                raise FanscanError(f"expected a BGR uint8 image array, got shape {image.shape} {image.dtype}")
            pixels, scale, name = image, 1.0, None
        else:
            loaded = image if isinstance(image, LoadedImage) else load_image(image)
            pixels, scale, name = loaded.image, loaded.scale, str(loaded.path)
        lap("load")  # ~0 when the caller decoded the photo
        detections = self.detector.detect(pixels)
        lap("detect")
        spec = getattr(self.classifier, "crop_spec", DEFAULT_SPEC)
        crops = crop_tiles(pixels, [d.quad for d in detections], spec)
        lap("crop")
        readings = self.classifier.classify(crops, self.top_k) if len(detections) else []
        lap("classify")
        tiles = observed_tiles(detections, readings, scale)
        grouping = choose_reading(tiles)
        lap("group")
        boxes = [[v / scale for v in d.box] for d in detections]
        height, width = pixels.shape[:2]
        size = (round(width / scale), round(height / scale))
        timings["total"] = round((time.perf_counter() - started) * 1000, 2)
        return build_proposal(tiles, grouping, name, size, boxes=boxes, timings_ms=timings)


_DEFAULT: Pipeline | None = None


def default_pipeline() -> Pipeline:
    """The pipeline with the shipped models, loaded once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Pipeline()
    return _DEFAULT


def set_default_pipeline(pipeline: Pipeline) -> None:
    """Make `pipeline` the one `default_pipeline` returns (a batch worker process builds its own, with one
    onnxruntime thread per model, so that several processes share the cores without oversubscribing them)."""
    global _DEFAULT
    _DEFAULT = pipeline


def propose(image: str | Path | np.ndarray | LoadedImage) -> HandProposal:
    """The proposal for one photo (a path, a `LoadedImage`, or a BGR uint8 array) with the shipped models."""
    return default_pipeline().propose(image)
