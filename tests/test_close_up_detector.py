"""The close-up detector (models/tile_detector_close_up.onnx, `vision.scale.read_close_up`): it reads a photo only
when the first look calls it a close-up of a few tiles, it is opened only when one comes, and the shipped file is a
detector that `vision.detect` reads like the first one."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from fanscan.vision import scale
from fanscan.vision.detect import DEFAULT_WEAK_EVIDENCE, make_tile

from fanscan import models

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [ROOT / "models" / name for name in (models.DETECTOR, models.CLOSE_UP_DETECTOR, models.CLASSIFIER)]
HAND_PHOTO = ROOT / "tests" / "data" / "mini_yolo" / "train" / "images" / \
    "hand_041_jpg.rf.11587f4f8bd4391e93981cff7a638af1.jpg"
needs_models = pytest.mark.skipif(not all(p.exists() for p in SHIPPED), reason="needs the shipped models")


def tile(x0: float, y0: float, x1: float, y1: float, score: float = 0.8):
    return make_tile(np.array([x0, y0, x1, y1], np.float32), score)


class CountingDetector:
    """A stand-in detector: the same boxes for every call, and the number of calls."""

    def __init__(self, boxes: list) -> None:
        self.boxes, self.calls, self.flip_averaged = boxes, 0, []
        self.info = SimpleNamespace(weak_evidence=DEFAULT_WEAK_EVIDENCE)

    def detect(self, image: np.ndarray, refine: bool = True, flip_average: bool = False) -> list:
        self.calls += 1
        self.flip_averaged.append(flip_average)
        return list(self.boxes)


PHOTO = np.full((480, 640, 3), 240, np.uint8)


def test_a_close_up_of_one_tile_is_read_by_the_close_up_detector():
    first_net, close_net = CountingDetector([]), CountingDetector([tile(200, 60, 420, 400, 0.9)])
    result = scale.read_close_up(PHOTO, first_net, [tile(200, 60, 420, 220, 0.3)], lambda: close_net)
    assert result.read_by_close_up_detector and result.close_up_kept
    assert first_net.calls == 1  # its shrunk view only, to see whether its own reading found more tiles
    assert close_net.calls >= 1
    assert len(result.detections) >= 1
    # Its look at the photo averages three views; the first net's shrunk view, and the close-up net's, are one each.
    assert close_net.flip_averaged[0] is True and not any(close_net.flip_averaged[1:])
    assert first_net.flip_averaged == [False]


class ScriptedDetector(CountingDetector):
    """A stand-in detector that finds these boxes on the photo and nothing on the shrunk view."""

    def detect(self, image: np.ndarray, refine: bool = True, flip_average: bool = False) -> list:
        self.calls += 1
        return list(self.boxes) if self.calls == 1 else []


def test_a_run_of_tiles_the_close_up_net_takes_for_one_box_keeps_the_first_nets_tiles():
    # Three tiles side by side, found weakly by the first net; the close-up net sees one box around the run. The
    # tiles cover 3 x 60 x 80 / (192 x 100) = 0.75 of that box: tiles of a group, not pieces of one tile.
    run = [tile(200 + 62 * i, 200, 260 + 62 * i, 280, 0.45) for i in range(3)]
    first_net, close_net = CountingDetector([]), ScriptedDetector([tile(196, 190, 388, 290, 0.4)])
    result = scale.read_close_up(PHOTO, first_net, run, lambda: close_net)
    assert result.read_by_close_up_detector and not result.close_up_kept
    assert [d.box for d in result.detections] == [d.box for d in run]


@pytest.mark.parametrize(("run_score", "first_nets_kept"), [(0.41, True), (0.35, False)])
def test_a_run_scored_a_little_below_the_close_up_nets_box_keeps_its_tiles(run_score, first_nets_kept):
    # Two nets' scores are not on one scale: two tiles at 0.41 against the close-up net's one box around both at
    # 0.418 (the built close-up chinese_050) are scored as well (0.41 >= SCORE_SLACK 0.95 x 0.418 = 0.397); at
    # 0.35 they are not.
    run = [tile(200 + 92 * i, 150, 290 + 92 * i, 270, run_score) for i in range(2)]
    first_net, close_net = CountingDetector([]), ScriptedDetector([tile(196, 146, 386, 274, 0.418)])
    result = scale.read_close_up(PHOTO, first_net, run, lambda: close_net)
    assert result.read_by_close_up_detector and result.close_up_kept is not first_nets_kept
    assert len(result.detections) == (2 if first_nets_kept else 1)


def test_a_tiles_dots_found_as_boxes_do_not_outdo_the_close_up_nets_tile():
    # Four dots of one tile (4 x 50 x 50 = 0.13 of the tile's 240 x 320), as well scored as the close-up net's tile.
    dots = [tile(x, y, x + 50, y + 50, 0.45) for x in (230, 360) for y in (140, 330)]
    whole = tile(200, 100, 440, 420, 0.4)
    first_net, close_net = CountingDetector([]), ScriptedDetector([whole])
    result = scale.read_close_up(PHOTO, first_net, dots, lambda: close_net)
    assert result.read_by_close_up_detector and result.close_up_kept
    assert [d.box for d in result.detections] == [whole.box]


def test_a_hand_never_reaches_the_close_up_detector():
    hand = [tile(20 + 30 * i, 200, 48 + 30 * i, 238) for i in range(14)]
    first_net, close_net = CountingDetector([]), CountingDetector([tile(0, 0, 10, 10)])
    result = scale.read_close_up(PHOTO, first_net, hand, lambda: close_net)
    assert not result.read_by_close_up_detector and result.detections == hand
    assert close_net.calls == 0 and first_net.calls == 0


def test_eight_weak_boxes_get_the_first_nets_scale_pass_not_the_close_up_detector():
    # Eight weak small boxes (8 x 0.3 under the bar) call for the scale pass, but a close-up shows fewer boxes.
    weak_row = [tile(20 + 60 * i, 200, 70 + 60 * i, 266, 0.3) for i in range(scale.CLOSE_UP_FEWER_THAN)]
    assert scale.needs_zoom_out(weak_row, PHOTO.shape)
    first_net, close_net = CountingDetector([]), CountingDetector([])
    result = scale.read_close_up(PHOTO, first_net, weak_row, lambda: close_net)
    assert result.fired and not result.read_by_close_up_detector
    assert first_net.calls == 1 and close_net.calls == 0


def test_without_a_close_up_detector_the_scale_pass_is_the_first_nets():
    first_net = CountingDetector([])
    result = scale.read_close_up(PHOTO, first_net, [], None)
    assert result.fired and not result.read_by_close_up_detector and first_net.calls == 1


@needs_models
def test_the_shipped_close_up_model_reads_like_the_detector_and_is_recorded_by_a_batch():
    from fanscan.vision.detect import CLOSE_UP_MODEL, TileDetector

    from fanscan.batch.settings import model_versions

    close_up, first = TileDetector(CLOSE_UP_MODEL), TileDetector()
    assert close_up.path.name == models.CLOSE_UP_DETECTOR
    # The same input and decoding: the close-up net is the first one fine-tuned, not a new design.
    assert (close_up.info.input_size, close_up.info.score_threshold) == (first.info.input_size,
                                                                          first.info.score_threshold)
    assert close_up.path.read_bytes() != first.path.read_bytes()
    assert models.CLOSE_UP_DETECTOR in model_versions()


@needs_models
def test_the_default_pipeline_opens_the_close_up_detector_only_for_a_close_up():
    from fanscan.vision.detect import DetectorOnFirstUse, TileDetector
    from fanscan.vision.pipeline import Pipeline

    pipeline = Pipeline()
    assert isinstance(pipeline.close_up_detector, DetectorOnFirstUse)
    hand = pipeline.propose(HAND_PHOTO)
    assert len(hand.tiles) >= 10 and not pipeline.close_up_detector.opened
    pipeline.propose(np.full((480, 640, 3), 235, np.uint8))  # a blank sheet: nothing found, a close-up's first look
    assert pipeline.close_up_detector.opened
    # A caller that measures its own detector gets no second net unless it names one.
    assert Pipeline(TileDetector()).close_up_detector is None
