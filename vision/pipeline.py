"""Photo → `HandProposal`: load → detect → crop → classify → group, each stage timed.

    from fanscan.vision.pipeline import propose
    proposal = propose("datasets/samples/images/hand_001.jpg")
    print(proposal.hand, proposal.warnings, proposal.timings_ms)

The models are loaded once per `Pipeline` (and once per process for the module-level `propose`). Quads and boxes in
the proposal are in the pixels of the file as the user sees it (EXIF orientation applied), even when the photo was
scaled down to work on.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision.aspect import (
    AspectFix,
    camera_frame,
    natural_aspect,
    restored_for_crops,
    stretched_back,
    unsqueeze,
)
from fanscan.vision.crops import DEFAULT_SPEC, CropSpec, crop_tiles
from fanscan.vision.detect import (
    REFINE_FEWER_THAN,
    DetectedTile,
    DetectorOnFirstUse,
    TileDetector,
    default_detector,
    shipped_close_up_detector,
)
from fanscan.vision.group import ObservedTile, choose_reading
from fanscan.vision.load import LoadedImage, load_image
from fanscan.vision.outsized import OUTSIZED_LONG_SIDE, without_outsized
from fanscan.vision.proposal import HandProposal, build_proposal
from fanscan.vision.scale import ScalePass, read_close_up, splits_a_tile

# How many classifier candidates each tile carries into the reading search.
TOP_K = 5
# A coarse first look that finds fewer tiles than this reads the photo again at the working size.
FEW_TILES = REFINE_FEWER_THAN


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


def too_coarse(detections: Sequence[DetectedTile], spec: CropSpec) -> bool:
    """Whether a coarse first look is not enough: fewer tiles than a hand's smallest part (the detector then looks
    closer, which wants the pixels), or a median tile's short side below the width the crop gives a tile (its crop
    would be blown up from too few pixels)."""
    if len(detections) < FEW_TILES:
        return True
    short_sides = [min(d.width, d.height) for d in detections]
    return float(np.median(short_sides)) < spec.width / (1 + 2 * spec.pad)


class Pipeline:
    """The models of the photo pipeline, loaded once; `propose` turns a photo into a `HandProposal`."""

    def __init__(self, detector: TileDetector | None = None, classifier=None, top_k: int = TOP_K,
                 aspect_search: bool = True, profile: str | Path | None = None, scale_pass: bool = True,
                 second_reader=None,
                 close_up_detector: TileDetector | DetectorOnFirstUse | str | None = "shipped",
                 outsized_boxes: float | None = OUTSIZED_LONG_SIDE) -> None:
        """`aspect_search`: look again at a photo that seems squeezed along one axis (`vision.aspect`); off only to
        measure what it costs or brings. `scale_pass`: look again at a close-up, shrunk (`vision.scale`); off
        likewise. `profile`: a set profile file of `fanscan calibrate` for the shipped
        classifier (not with `classifier`). `second_reader`: a `vision.second_reader.SecondReader` (or anything
        with its `read`) asked about the crops the classifier doubts (`vision.second_reader.second_opinions`).
        `close_up_detector`: what reads the photos the scale pass calls close-ups (`vision.scale.read_close_up`);
        "shipped" (the default): the shipped close-up model, opened on first use, but only with the shipped
        detector (a caller measuring its own `detector` gets no second net unless it names one); None: off.
        `outsized_boxes`: a box whose long side is over this many times the photo's median is dropped
        (`vision.outsized`); None: kept."""
        if close_up_detector == "shipped":
            close_up_detector = shipped_close_up_detector() if detector is None else None
        self.close_up_detector = close_up_detector
        self.detector = detector or default_detector()
        if classifier is not None and profile is not None:
            raise ValueError("give a profile to the TileClassifier you pass, not to the Pipeline")
        if classifier is None:
            from fanscan.vision.classify import TileClassifier  # the classifier's module loads onnxruntime

            # One part: two (`TileClassifier(threads=2)`) made a photo alone 0.85x as long, but the phone page's
            # server, sharing the cores with other readers (and a browser in web_speed), 1.1x as long.
            classifier = TileClassifier(profile=profile)
        self.classifier = classifier
        self.top_k = top_k
        self.aspect_search = aspect_search
        self.scale_pass = scale_pass
        self.second_reader = second_reader
        self.outsized_boxes = outsized_boxes

    def propose(self, image: str | Path | np.ndarray | LoadedImage) -> HandProposal:
        """The proposal for a photo file, a decoded `LoadedImage`, or a BGR uint8 array."""
        timings: dict[str, float] = {}
        started = clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timings[stage] = round((now - clock) * 1000, 2)
            clock = now

        finer = None
        if isinstance(image, np.ndarray):
            if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8 or min(image.shape[:2]) < 1:
                raise FanscanError(f"expected a BGR uint8 image array, got shape {image.shape} {image.dtype}")
            pixels, scale, name = image, 1.0, None
        else:
            loaded = image if isinstance(image, LoadedImage) else load_image(image, coarse_first=True)
            pixels, scale, name, finer = loaded.image, loaded.scale, str(loaded.path), loaded.finer
        lap("load")  # ~0 when the caller decoded the photo
        # A photo squeezed along one axis is detected again shrunk along it (vision.aspect); its tiles are cut from
        # it with the squeezed side stretched back, where they have their shape and all the photo's pixels.
        spec = getattr(self.classifier, "crop_spec", DEFAULT_SPEC)
        # The coarse look is one pass of the detector: the closer look it would take at small or few tiles is
        # what the working size is for.
        detections = self.detector.detect(pixels, refine=finer is None)
        if finer is not None and too_coarse(detections, spec):
            return self._read_finer(finer, started)
        scaled, looked_closer = ScalePass(detections), False
        weak_evidence = self.detector.info.weak_evidence
        if self.scale_pass:
            # A close-up (few large or nested boxes) is looked at again shrunk (vision.scale); timed apart when it
            # runs, so that a caller can tell how often it does.
            zoom_started = time.perf_counter()
            scaled = read_close_up(pixels, self.detector, detections, self._close_up_reader())
            detections = scaled.detections
            looked_closer = scaled.fired or scaled.read_by_close_up_detector
            if looked_closer:
                timings["scale_pass"] = round((time.perf_counter() - zoom_started) * 1000, 2)
        shrunk, fix = pixels, AspectFix()
        if self.aspect_search:
            # A close-up found by the scale pass is searched only if its boxes look squeezed, not for its few tiles;
            # a photo longer than a camera frames is no close-up of a camera's (a strip squeezed across, say).
            # The search's tries see tiles squashed or stretched until the right factor, where two thin
            # neighbours can look like a tile's halves: it detects without joining them (squeezed dev photos: with
            # the join it chose 6x for a 5x squeeze, end-to-end 0.413 against 0.433).
            close_up = scaled.close_up and natural_aspect(pixels.shape)
            search_detect = functools.partial(self.detector.detect, merge_splits=False)
            looked = detections
            shrunk, fix, detections = unsqueeze(pixels, search_detect, detections, search_when_weak=not close_up,
                                                weak_evidence=weak_evidence)
            if fix.changed and scaled.fired and scaled.large and camera_frame(pixels.shape) \
                    and splits_a_tile(looked, stretched_back(detections, fix)):
                # A camera's frame of large tiles is no export's squeezed photo: a search that slices one of its
                # tiles into pieces found no more tiles, and the first look stands (issue 18: passes keep their
                # result only when they find more tiles).
                shrunk, fix, detections = pixels, AspectFix(), looked
        if finer is not None and fix.changed:
            return self._read_finer(finer, started)  # never so with a camera's own photos
        if self.outsized_boxes is not None and not looked_closer:
            # A close-up's few large tiles are not judged by its fragments (`vision.outsized`).
            detections = without_outsized(detections, shrunk.shape, self.outsized_boxes)
        lap("detect")
        crop_photo, crop_boxes = restored_for_crops(pixels, fix, detections)
        crops = crop_tiles(crop_photo, [d.quad for d in crop_boxes], spec)
        lap("crop")
        readings, turns = self.read(crops)
        detections = stretched_back(detections, fix)
        lap("classify")
        tiles = observed_tiles(detections, readings, scale)
        grouping = choose_reading(tiles)
        lap("group")
        boxes = [[v / scale for v in d.box] for d in detections]
        height, width = pixels.shape[:2]
        size = (round(width / scale), round(height / scale))
        timings["total"] = round((time.perf_counter() - started) * 1000, 2)
        return build_proposal(tiles, grouping, name, size, boxes=boxes, timings_ms=timings, turns=turns)

    def _close_up_reader(self):
        """The call that gives the close-up detector (None: there is none)."""
        reader = self.close_up_detector
        if reader is None:
            return None
        if isinstance(reader, DetectorOnFirstUse):
            return reader.get
        return lambda: reader

    def _read_finer(self, finer, started: float) -> HandProposal:
        """The proposal of a photo decoded coarse first whose tiles are too small, too few or squeezed there: read
        again at the working size; what the coarse look cost is kept in the timings (`coarse_look`)."""
        proposal = self.propose(finer())
        elapsed = (time.perf_counter() - started) * 1000
        proposal.timings_ms["coarse_look"] = round(elapsed - proposal.timings_ms["total"], 2)
        proposal.timings_ms["total"] = round(elapsed, 2)
        return proposal

    def read(self, crops: np.ndarray) -> tuple[list, list[int]]:
        """Top-k readings of the crops and the turn (degrees clockwise) each was read at: uncertain crops are read
        turned too (`vision.turned_faces`) when the classifier gives probabilities; a stand-in's readings as is."""
        if len(crops) == 0:
            return [], []
        if not hasattr(self.classifier, "probabilities"):
            return self.classifier.classify(crops, self.top_k), [0] * len(crops)
        from fanscan.vision.turned_faces import read_any_turn  # loads the classifier's module (onnxruntime)

        result = read_any_turn(self.classifier, crops, self.top_k)
        if self.second_reader is None:
            return result.readings, result.turns
        from fanscan.vision.second_reader import second_opinions

        return second_opinions(self.second_reader, crops, result.readings, result.turns), result.turns


# Threads per model of the default pipelines: None leaves each model its own default; a batch worker process sets
# 1 (`set_default_threads`) so that several processes on one machine share its cores without oversubscribing them.
_default_threads: int | None = None


def default_pipeline(profile: str | Path | None = None) -> Pipeline:
    """The pipeline with the shipped models (and a set profile, when given), loaded once per process: no profile,
    `None` and `""` are one pipeline, and a profile is one pipeline whether named by a str or a Path."""
    return _loaded_pipeline(str(profile) if profile else None, _default_threads)


# A cache, not state: the shipped models never change while the process runs, and loading them costs about as much
# as reading one photo, so `propose` and the photo and batch commands share one pipeline per process (and thread
# setting: a batch that switches to one thread per model and back loads each once).
@functools.cache
def _loaded_pipeline(profile: str | None, threads: int | None) -> Pipeline:
    if threads is None:
        return Pipeline(profile=profile)
    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.detect import TileDetector

    # Set threads are for callers that read one photo a core on threads sharing this pipeline (a local batch): each
    # network runs one call at a time, so that its activations are held once while the threads still overlap.
    return Pipeline(TileDetector(threads=threads, one_call_at_a_time=True),
                    TileClassifier(threads=threads, profile=profile, one_call_at_a_time=True),
                    close_up_detector=shipped_close_up_detector(threads, one_call_at_a_time=True))


def default_threads() -> int | None:
    """The onnxruntime threads per model of the default pipelines (None: each model's own default)."""
    return _default_threads


def set_default_threads(threads: int | None) -> None:
    """Build (or reuse) the default pipelines from now on with `threads` onnxruntime threads per model."""
    global _default_threads
    _default_threads = threads


def propose(image: str | Path | np.ndarray | LoadedImage) -> HandProposal:
    """The proposal for one photo (a path, a `LoadedImage`, or a BGR uint8 array) with the shipped models."""
    return default_pipeline().propose(image)
