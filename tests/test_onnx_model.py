"""The one model opener (vision/onnx_model.py) and the one letterbox (vision/letterbox.py) both models use."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import TileClassifier
from fanscan.vision.detect import TileDetector
from fanscan.vision.letterbox import PAD_GREY, letterbox
from fanscan.vision.onnx_model import OnnxModel, open_model

from fanscan import models


def test_a_model_of_the_other_kind_is_refused_naming_what_its_metadata_lacks() -> None:
    classifier_file = models.model_path(models.CLASSIFIER)
    with pytest.raises(FanscanError, match=r"not a fanscan tile detector \(metadata lacks input_size") as caught:
        TileDetector(classifier_file)
    assert str(caught.value).startswith(str(classifier_file))
    with pytest.raises(FanscanError, match=r"not a fanscan tile classifier \(metadata lacks input_width"):
        TileClassifier(models.model_path(models.DETECTOR))


def test_missing_and_non_onnx_files_get_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(FanscanError, match="detector model file not found"):
        open_model(tmp_path / "absent.onnx", "detector", 1)
    text = tmp_path / "notes.onnx"
    text.write_text("not a model\nsecond line\n")
    with pytest.raises(FanscanError, match="not a loadable ONNX model") as caught:
        open_model(text, "classifier", 1)
    assert "\n" not in str(caught.value)


def test_metadata_errors_name_the_file() -> None:
    model = OnnxModel(Path("m.onnx"), None, {"size": "twelve"})
    with pytest.raises(FanscanError, match=r"^m\.onnx: not a fanscan tile detector \(metadata lacks a, b\)$"):
        model.read_info("tile detector", ["a", "size", "b"], dict)
    with pytest.raises(FanscanError, match=r"^m\.onnx: unreadable tile detector metadata \(.*twelve"):
        model.read_info("tile detector", ["size"], lambda meta: int(meta["size"]))

    def refuse(meta: dict[str, str]) -> None:
        raise FanscanError("metadata size is twelve, not a number")

    with pytest.raises(FanscanError, match=r"^m\.onnx: metadata size is twelve, not a number$"):
        model.read_info("tile detector", ["size"], refuse)


def test_letterbox_centres_in_a_fixed_canvas() -> None:
    image = np.full((20, 40, 3), 7, np.uint8)  # 2:1 into 64 x 80: scale 64 / 40 = 1.6 -> 64 x 32, centred
    canvas, scale = letterbox(image, 64, 80)
    assert canvas.shape == (80, 64, 3) and scale == pytest.approx(1.6)
    rows = np.flatnonzero((canvas != PAD_GREY).any(axis=(1, 2)))
    assert (rows.min(), rows.max()) == (24, 55)
    assert (canvas[24:56] == 7).all()


def test_letterbox_top_left_pads_to_a_multiple() -> None:
    image = np.full((300, 500, 3), 9, np.uint8)  # long side 500 -> 384: 384 x 230.4 -> 384 x 230, padded to 256
    canvas, scale = letterbox(image, 384, 384, pad_multiple=32)
    assert canvas.shape == (256, 384, 3) and scale == pytest.approx(384 / 500)
    assert (canvas[:230] == 9).all() and (canvas[230:] == PAD_GREY).all()


def test_sessions_wait_without_spinning() -> None:
    """Both models' threads sleep while they wait: on a 2-core machine shared with a browser (the phone page on the
    same machine) or other batch workers, spinning threads took the cores the work needed."""
    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.detect import TileDetector

    for model in (TileDetector(threads=2), TileClassifier(threads=2)):
        options = model.session.get_session_options()
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


class _CountingSession:
    """A stand-in session that records how many of its runs overlap."""

    def __init__(self) -> None:
        import threading

        self.running, self.most, self.lock = 0, 0, threading.Lock()

    def run(self, outputs, feeds):
        import time

        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.02)
        with self.lock:
            self.running -= 1
        return [feeds["x"] * 2]

    def get_inputs(self):
        return ["x"]


def _overlap(session, calls: int = 6) -> int:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda n: session.run(None, {"x": n}), range(calls)))
    assert [r[0] for r in results] == [2 * n for n in range(calls)]
    return session.most if hasattr(session, "most") else session._session.most


def test_one_call_at_a_time_runs_calls_from_several_threads_one_after_another() -> None:
    from fanscan.vision.onnx_model import OneCallAtATime

    assert _overlap(_CountingSession()) > 1  # the stand-in itself lets calls overlap
    serial = OneCallAtATime(_CountingSession())
    assert _overlap(serial) == 1
    assert serial.get_inputs() == ["x"]  # everything else is the session's own


def test_sessions_are_opened_one_call_at_a_time_only_when_asked() -> None:
    from fanscan.vision.onnx_model import OneCallAtATime

    detector_file = models.model_path(models.DETECTOR)
    plain = open_model(detector_file, "detector", 1).session
    assert not isinstance(plain, OneCallAtATime) and plain.get_session_options().enable_mem_pattern
    model = open_model(detector_file, "detector", 1, one_call_at_a_time=True)
    assert isinstance(model.session, OneCallAtATime) and model.metadata["input_size"]
    assert not model.session.get_session_options().enable_mem_pattern  # no plan kept per input shape
