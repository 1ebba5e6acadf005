"""The squeezed-photo search (vision.aspect): it runs only on weak or squeezed-looking first passes, picks the shrink
under which the detector finds tile-shaped boxes, and maps the boxes back to the photo's own pixels."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from fanscan.vision import aspect
from fanscan.vision.detect import DEFAULT_WEAK_EVIDENCE, make_tile
from fanscan.vision.second_look import LookEvidence

from tests.test_outsized import PlainClassifier


def row_of_tiles(count: int, width: float, height: float, score: float) -> list:
    return [make_tile(np.array([10 + i * width, 20, 10 + (i + 1) * width, 20 + height]), score) for i in range(count)]


class FakeDetector:
    """Finds 14 confident tile-shaped tiles only in a photo shrunk to a quarter of its height; elsewhere two weak,
    thin boxes. Counts its calls."""

    def __init__(self, height: int) -> None:
        self.height, self.calls = height, 0

    def __call__(self, image: np.ndarray) -> list:
        self.calls += 1
        if image.shape[0] == self.height // 4:
            return row_of_tiles(14, 30, 40, 0.9)
        return row_of_tiles(2, 30, 200, 0.2)


def test_a_weak_first_pass_is_searched_and_the_right_shrink_wins():
    image = np.zeros((640, 640, 3), np.uint8)
    detect = FakeDetector(640)
    shrunk, fix, found = aspect.unsqueeze(image, detect, detect(image))
    assert fix == aspect.AspectFix(1.0, 4.0) and shrunk.shape[:2] == (160, 640)
    assert len(found) == 14
    back = aspect.stretched_back(found, fix)
    assert back[0].box == pytest.approx((10, 80, 40, 240))  # y times 4, x unchanged
    assert back[0].quad[2].tolist() == pytest.approx([40, 240])
    assert back[0].orientation == found[0].orientation


def test_a_confident_first_pass_costs_no_second_look():
    image = np.zeros((640, 640, 3), np.uint8)
    first = row_of_tiles(14, 30, 40, 0.9)
    detect = FakeDetector(640)
    shrunk, fix, found = aspect.unsqueeze(image, detect, first)
    assert detect.calls == 0 and shrunk is image and not fix.changed and found == first


def test_the_evidence_bar_is_the_detectors():
    # 6 tiles at 0.9 sum to 5.4: over the default bar (no search), under a detector's bar of 6 (the search runs, and
    # the shrink that finds all 14 wins).
    image = np.zeros((640, 640, 3), np.uint8)
    first = row_of_tiles(6, 30, 40, 0.9)
    assert DEFAULT_WEAK_EVIDENCE < 5.4 < 6.0
    default, raised = FakeDetector(640), FakeDetector(640)
    aspect.unsqueeze(image, default, first)
    _, fix, found = aspect.unsqueeze(image, raised, first, weak_evidence=6.0)
    assert default.calls == 0 and raised.calls > 0
    assert fix == aspect.AspectFix(1.0, 4.0) and len(found) == 14


class WideStripDetector:
    """A square photo squeezed 4x across, so 4x taller than wide. Its first look finds tile-shaped pieces, confident
    enough (6 x 0.9) to pass any bar; only the photo shrunk to a quarter of its height shows the 14 tiles."""

    def __init__(self, height: int) -> None:
        self.height, self.shapes = height, []

    def __call__(self, image: np.ndarray) -> list:
        self.shapes.append(image.shape[:2])
        if image.shape[0] == self.height // 4:
            return row_of_tiles(14, 8, 10, 0.9)
        return row_of_tiles(6, 8, 10, 0.9)


def test_a_photo_longer_than_a_camera_frames_is_searched_along_its_long_side():
    image = np.zeros((640, 160, 3), np.uint8)  # 4:1, no camera's frame
    detect = WideStripDetector(640)
    first = detect(image)
    assert aspect.squeezed_axis(first) is None and sum(d.score for d in first) > DEFAULT_WEAK_EVIDENCE
    shrunk, fix, found = aspect.unsqueeze(image, detect, first)
    assert fix == aspect.AspectFix(1.0, 4.0) and shrunk.shape[:2] == (160, 160) and len(found) == 14
    assert all(width == 160 for _, width in detect.shapes)  # only the long side was shrunk


def test_a_cropped_row_whose_shrinks_read_worse_keeps_its_first_look():
    image = np.zeros((128, 640, 3), np.uint8)  # a hand row cropped from a photo: 5:1, tiles as they are
    first = row_of_tiles(14, 40, 56, 0.6)

    tries = []

    def squashed(shrunk: np.ndarray) -> list:  # every shrink shows the tiles squashed: fewer, weaker boxes
        tries.append(shrunk.shape[:2])
        return row_of_tiles(6, 20, 56, 0.3)

    shrunk, fix, found = aspect.unsqueeze(image, squashed, first)
    assert tries and all(height == 128 for height, _ in tries)  # searched, along its long side only
    assert not fix.changed and shrunk is image and found == first


def test_boxes_long_the_same_way_show_the_squeezed_axis():
    assert aspect.squeezed_axis(row_of_tiles(5, 10, 80, 0.9)) == "y"
    assert aspect.squeezed_axis(row_of_tiles(5, 80, 10, 0.9)) == "x"
    assert aspect.squeezed_axis(row_of_tiles(5, 30, 40, 0.9)) is None
    assert aspect.squeezed_axis(row_of_tiles(2, 10, 80, 0.9)) is None  # too few to say


def test_a_large_photo_is_searched_small_and_detected_once_at_full_size():
    image = np.zeros((2560, 2560, 3), np.uint8)
    detect = FakeDetector(640)  # at the 640-px search copy, a quarter of its height finds the tiles
    shrunk, fix, _ = aspect.unsqueeze(image, detect, detect(image))
    assert fix == aspect.AspectFix(1.0, 4.0) and shrunk.shape[:2] == (640, 2560)


class SquashingDetector:
    """A photo of nine tall tiles (3.2 x taller than wide, as an export's squeeze leaves them) found with scores
    0.42; every shrunk copy shows more boxes, square and weaker (0.34): the detector seeing tiles squashed flat, as
    riichi-table-leomiura's frames shrunk 8x were read (issue 18)."""

    def __init__(self, height: int) -> None:
        self.height = height

    def __call__(self, image: np.ndarray) -> list:
        if image.shape[0] == self.height:
            return row_of_tiles(9, 40, 128, 0.42)
        return row_of_tiles(12, 20, 22, 0.34)


def test_a_shrink_that_finds_more_but_weaker_boxes_does_not_replace_the_first_look():
    image = np.zeros((640, 640, 3), np.uint8)
    detect = SquashingDetector(640)
    first = detect(image)
    assert sum(d.score for d in first) < DEFAULT_WEAK_EVIDENCE  # the search does run
    shrunk, fix, found = aspect.unsqueeze(image, detect, first)
    assert not fix.changed and shrunk is image and found == first


def test_a_camera_frame_has_a_natural_aspect_and_a_squeezed_strip_does_not():
    assert aspect.natural_aspect((480, 640, 3)) and aspect.natural_aspect((4032, 3024, 3))
    assert aspect.natural_aspect((1080, 2520, 3))  # 21:9
    assert not aspect.natural_aspect((107, 640, 3))  # a square photo squeezed 6x across


SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "images" / "hand_001.jpg"
MODELS = [Path(__file__).resolve().parents[1] / "models" / name for name in ("tile_detector.onnx",
                                                                               "tile_classifier.onnx")]


@pytest.mark.skipif(not all(m.exists() for m in [SAMPLE, *MODELS]), reason="needs the shipped models and samples")
def test_the_pipeline_searches_by_its_detectors_bar():
    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.detect import TileDetector
    from fanscan.vision.pipeline import Pipeline

    detector = TileDetector(threads=1)
    looks = []
    plain_detect = detector.detect
    detector.detect = lambda image, **options: looks.append(image.shape) or plain_detect(image, **options)
    pipeline = Pipeline(detector, TileClassifier(threads=1), scale_pass=False)
    confident = pipeline.propose(SAMPLE)
    assert len(looks) == 1 and sum(t.detection_score for t in confident.tiles) > DEFAULT_WEAK_EVIDENCE
    looks.clear()
    detector.info = replace(detector.info, weak_evidence=1000.0)  # every first look is "little evidence" now
    pipeline.propose(SAMPLE)
    assert len(looks) > 1  # the squeezed-photo search tried its shrinks


class ShapeBackDetector:
    """Finds `shape_back` in a photo 160 px wide (a 4:1 strip shrunk 4x along x: its tiles' shape back), `as_given`
    anywhere else."""

    def __init__(self, shape_back: list, as_given: list) -> None:
        self.shape_back, self.as_given = shape_back, as_given

    def __call__(self, image: np.ndarray) -> list:
        return self.shape_back if image.shape[1] == 160 else self.as_given


def test_a_photo_longer_than_a_camera_frames_may_take_a_shrink_whose_tiles_are_shaped_worse():
    # Tiles seen from above at a slant come out square: all 14 once the shape is back; 5 tile-shaped pieces before.
    detect = ShapeBackDetector(row_of_tiles(14, 10, 10, 0.8), row_of_tiles(5, 30, 40, 0.7))
    strip = np.zeros((160, 640, 3), np.uint8)  # 4:1: squeezed 4x along y, no camera's frame
    first = detect(strip)
    shape_loss = LookEvidence.of(row_of_tiles(14, 10, 10, 0.8)).shape_error - LookEvidence.of(first).shape_error
    assert aspect.SHAPE_SLACK < shape_loss <= aspect.LONG_PHOTO_SHAPE_SLACK
    _, fix, found = aspect.unsqueeze(strip, detect, first)
    assert fix == aspect.AspectFix(4.0, 1.0) and len(found) == 14
    # A camera's frame with the same weak first look keeps it: there the same shape loss is too much.
    frame = np.zeros((480, 640, 3), np.uint8)
    weak = row_of_tiles(5, 30, 40, 0.5)
    assert sum(d.score for d in weak) < DEFAULT_WEAK_EVIDENCE
    _, fix, found = aspect.unsqueeze(frame, ShapeBackDetector(detect.shape_back, weak), weak)
    assert not fix.changed and found == weak


def test_a_photo_longer_than_a_camera_frames_needs_less_gain_in_evidence_to_be_shrunk():
    # Squeezed, the first look finds 10 tile-shaped pieces at 0.5 (evidence 5); with the shape back, 14 tiles at 0.5
    # (evidence 7: 1.4x the first, over a long photo's gain and under a frame's).
    detect = ShapeBackDetector(row_of_tiles(14, 6, 8, 0.5), row_of_tiles(10, 30, 40, 0.5))
    assert aspect.LONG_PHOTO_MIN_GAIN < 1.4 < aspect.MIN_GAIN
    _, fix, found = aspect.unsqueeze(np.zeros((160, 640, 3), np.uint8), detect, detect(np.zeros((160, 640, 3))))
    assert fix == aspect.AspectFix(4.0, 1.0) and len(found) == 14
    weak = row_of_tiles(10, 30, 40, 0.39)  # a camera's frame: the first look weak enough to be searched
    shape_back = row_of_tiles(14, 6, 8, 0.39 * 1.4 * 10 / 14)  # again 1.4x the first look's evidence
    _, fix, _ = aspect.unsqueeze(np.zeros((480, 640, 3), np.uint8), ShapeBackDetector(shape_back, weak), weak)
    assert not fix.changed


def stripes(height: int, width: int, period: int) -> np.ndarray:
    """A photo of vertical black and white stripes, `period` px wide each pair: detail only along x."""
    row = np.where((np.arange(width) // (period // 2)) % 2 == 0, 0, 255).astype(np.uint8)
    return np.repeat(np.tile(row, (height, 1))[:, :, None], 3, axis=2)


def test_crops_after_a_shrink_are_cut_from_the_photo_stretched_back_with_its_other_sides_pixels():
    image = stripes(80, 640, 4)  # a square photo squeezed 8x along y: its tiles flat and wide
    fix = aspect.AspectFix(8.0, 1.0)  # the search shrank x by 8 (the shrunk photo is 80 x 80)
    tile = make_tile(np.array([10, 10, 50, 50]), 0.9)  # in the shrunk photo's pixels
    photo, (moved,) = aspect.restored_for_crops(image, fix, [tile])
    assert photo.shape == (640, 640, 3)  # y stretched 8x, x as the photo has it
    assert np.array_equal(photo, np.repeat(image[:1], 640, axis=0))  # every stripe kept, none averaged away
    assert moved.box == pytest.approx((80, 80, 400, 400))  # x: 10 x 8 photo pixels; y: 10 x 8 stretched
    assert moved.quad[2].tolist() == pytest.approx([400, 400])
    same, tiles = aspect.restored_for_crops(image, aspect.AspectFix(), [tile])
    assert same is image and tiles == [tile]


def test_the_photo_stretched_back_for_crops_is_no_longer_than_its_bound():
    image = stripes(80, 640, 4)
    photo, (moved,) = aspect.restored_for_crops(image, aspect.AspectFix(8.0, 1.0),
                                                [make_tile(np.array([10, 10, 50, 50]), 0.9)], max_side=320)
    assert photo.shape[:2] == (320, 320)  # the shrunk photo's square shape, 4x its 80 px
    assert moved.box == pytest.approx((40, 40, 200, 200))


class StripeDetector:
    """A photo 80 x 640 (squeezed 8x along y): the first look finds two thin weak pieces; the photo shrunk 8x along
    x (80 x 80) shows four tiles. Takes the pipeline's options."""

    info = SimpleNamespace(weak_evidence=DEFAULT_WEAK_EVIDENCE)

    def detect(self, image: np.ndarray, refine: bool = True, merge_splits: bool = True) -> list:
        if image.shape[:2] == (80, 80):
            return row_of_tiles(4, 15, 20, 0.9)
        return row_of_tiles(2, 200, 20, 0.2)


class RecordingClassifier(PlainClassifier):
    """Reads as `PlainClassifier` does, and keeps the crops it was given."""

    def __init__(self) -> None:
        self.crops = []

    def classify(self, crops: np.ndarray, top_k: int) -> list:
        self.crops.extend(crops)
        return super().classify(crops, top_k)


def test_the_pipeline_reads_a_squeezed_photos_tiles_with_the_detail_the_shrink_would_average_away():
    from fanscan.vision.pipeline import Pipeline

    classifier = RecordingClassifier()
    proposal = Pipeline(StripeDetector(), classifier, scale_pass=False, close_up_detector=None).propose(
        stripes(80, 640, 4))
    assert len(proposal.tiles) == 4 and len(classifier.crops) == 4
    # Shrunk 8x along x, 4-px stripes average to one grey; the crops show black and white.
    assert all(float(np.asarray(crop, np.float32).std()) > 40 for crop in classifier.crops)
    # Boxes in the photo's own pixels: the shrunk photo's 15-px tiles from x = 10, times 8.
    assert sorted(t.box[0] for t in proposal.tiles) == pytest.approx([80, 200, 320, 440])


class SlicingDetector:
    """One large, weakly scored tile (x 200-400, y 100-366) in the photo at its own size; the scale pass's shrunk view
    (the photo's size, no closer look) finds nothing; any shrunk copy shows five confident boxes side by side that
    fill the tile's place, as the search's slices of one large tile come out."""

    info = SimpleNamespace(weak_evidence=DEFAULT_WEAK_EVIDENCE)

    def __init__(self, shape: tuple[int, int]) -> None:
        self.shape = shape

    def detect(self, image: np.ndarray, refine: bool = True, merge_splits: bool = True) -> list:
        height, width = image.shape[:2]
        if (height, width) == self.shape:
            return [make_tile(np.array([200, 100, 400, 366]), 0.3)] if refine else []
        fx, fy = self.shape[1] / width, self.shape[0] / height
        return [make_tile(np.array([(200 + 40 * i) / fx, 100 / fy, (240 + 40 * i) / fx, 366 / fy]), 0.9)
                for i in range(5)]


@pytest.mark.parametrize(("shape", "tiles"), [((480, 640), 1), ((640, 480), 1), ((640, 640), 5)])
def test_a_camera_frame_keeps_its_large_tile_when_the_search_would_slice_it(shape, tiles):
    """Issue 18: on a camera's frame (4:3 either way) a search whose boxes cut the first look's large tile into
    pieces found no more tiles, and the tile stays one box; a square (a dataset export's frame) takes the search's
    boxes as before."""
    from fanscan.vision.pipeline import Pipeline

    photo = np.full((*shape, 3), 200, np.uint8)
    proposal = Pipeline(SlicingDetector(shape), PlainClassifier(), close_up_detector=None).propose(photo)
    assert len(proposal.tiles) == tiles


def test_a_camera_frame_is_natural_and_longer_than_a_square():
    assert aspect.camera_frame((480, 640, 3)) and aspect.camera_frame((4032, 3024, 3))
    assert aspect.camera_frame((1080, 2520, 3))  # 21:9
    assert not aspect.camera_frame((640, 640, 3))  # an export's square
    assert not aspect.camera_frame((600, 640, 3))
    assert not aspect.camera_frame((107, 640, 3))  # squeezed
