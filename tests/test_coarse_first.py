"""A big JPEG decoded coarse first (`vision.load`, `coarse_first`): the pipeline reads the coarse image when its
tiles are large there, and the photo again at the working size when they are small or few. Either way the hand is
the one read from the working size (the expectation comes from the plain decode, not from the coarse path)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from fanscan.vision.load import COARSE_MIN_SIDE, WORKING_MAX_SIDE, decode_image
from test_cli_photo import MODELS, SAMPLES

needs_models = pytest.mark.skipif(not all(p.exists() for p in MODELS), reason="the shipped models are not built yet")


def jpeg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


def sample() -> np.ndarray:
    return cv2.imread(str(SAMPLES / "images" / "hand_001.jpg"))


def upscaled(size=(4000, 3000)) -> bytes:
    """The sample hand filling a 12-MP frame: large tiles."""
    return jpeg(cv2.resize(sample(), size, interpolation=cv2.INTER_CUBIC))


def small_in_big() -> bytes:
    """The sample hand at its own size in the middle of a 12-MP frame: tiles of ~30 px, 7 px at the coarse size."""
    canvas = np.full((3000, 4000, 3), 90, np.uint8)
    image = sample()
    h, w = image.shape[:2]
    canvas[1500 - h // 2:1500 - h // 2 + h, 2000 - w // 2:2000 - w // 2 + w] = image
    return jpeg(canvas)


def test_a_big_jpeg_is_decoded_coarse_with_the_working_size_on_demand():
    data = upscaled()
    coarse = decode_image(data, Path("big.jpg"), coarse_first=True)
    plain = decode_image(data, Path("big.jpg"))
    assert COARSE_MIN_SIDE <= max(coarse.image.shape[:2]) < max(plain.image.shape[:2]) <= WORKING_MAX_SIDE
    assert coarse.original_size == plain.original_size == (4000, 3000)
    assert coarse.scale == pytest.approx(coarse.image.shape[1] / 4000)
    finer = coarse.finer()
    assert finer.finer is None and finer.scale == plain.scale
    assert np.array_equal(finer.image, plain.image)


@pytest.mark.parametrize("name, data", [("small.jpg", lambda: jpeg(sample())),
                                        ("big.png", lambda: cv2.imencode(".png", cv2.resize(sample(), (4000, 3000)))[1]
                                         .tobytes())])
def test_a_small_jpeg_or_another_format_is_decoded_once(name, data):
    coarse, plain = (decode_image(data(), Path(name), coarse_first=first) for first in (True, False))
    assert coarse.finer is None
    assert np.array_equal(coarse.image, plain.image)


@needs_models
def test_large_tiles_are_read_from_the_coarse_image():
    from fanscan.vision.pipeline import default_pipeline

    data = upscaled()
    expected = default_pipeline().propose(decode_image(data, Path("big.jpg")))
    got = default_pipeline().propose(decode_image(data, Path("big.jpg"), coarse_first=True))
    assert "coarse_look" not in got.timings_ms
    assert got.hand == expected.hand and len(got.tiles) == len(expected.tiles) >= 14
    assert got.image_size == expected.image_size == (4000, 3000)
    for a, b in zip(got.tiles, expected.tiles, strict=True):  # outlines in the file's pixels, within a few pixels
        assert np.abs(np.array(a.quad) - np.array(b.quad)).max() < 4000 / 100


@needs_models
def test_small_tiles_send_the_pipeline_to_the_working_size():
    from fanscan.vision.pipeline import default_pipeline

    data = small_in_big()
    expected = default_pipeline().propose(decode_image(data, Path("table.jpg")))
    got = default_pipeline().propose(decode_image(data, Path("table.jpg"), coarse_first=True))
    assert got.timings_ms["coarse_look"] > 0
    assert got.hand == expected.hand and len(got.tiles) == len(expected.tiles) >= 14
    assert [t.quad for t in got.tiles] == [t.quad for t in expected.tiles]


@needs_models
def test_the_annotated_copy_is_drawn_at_the_working_size_on_the_same_reading(tmp_path):
    from fanscan.commands.photo import read_photo

    photo, out = tmp_path / "big.jpg", tmp_path / "annotated.png"
    photo.write_bytes(upscaled())
    plain = read_photo(str(photo))
    annotated = read_photo(str(photo), annotate=str(out))
    assert annotated.hand == plain.hand and len(annotated.tiles) == len(plain.tiles)
    working = decode_image(photo.read_bytes(), photo)
    assert cv2.imread(str(out)).shape[1] == working.image.shape[1] == 2000  # not the coarse image's 1000
