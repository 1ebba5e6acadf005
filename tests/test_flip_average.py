"""vision.detect.flip_averaged: the close-up detector's look at a photo as the mean of three views."""

from __future__ import annotations

import numpy as np
import pytest
from fanscan.vision.detect import CLOSE_UP_MODEL, TileDetector, flip_averaged

STRIDE = 4


def pooled(channel: np.ndarray) -> np.ndarray:
    """A stride-4 mean pool: what a flip-equivariant net does to a channel."""
    h, w = channel.shape
    return channel.reshape(h // STRIDE, STRIDE, w // STRIDE, STRIDE).mean(axis=(1, 3))


def test_constant_sides_are_swapped_by_each_flipped_view():
    # A stand-in net that says (left, top, right, bottom) = (1, 2, 3, 4) at every cell, whatever it sees. Its
    # mirrored view's left is the photo's right, its upside-down view's top the photo's bottom, so the mean of the
    # three views is left (1 + 3 + 1) / 3, top (2 + 2 + 4) / 3, right (3 + 1 + 3) / 3, bottom (4 + 4 + 2) / 3.
    def forward(blob):
        h, w = blob.shape[2] // STRIDE, blob.shape[3] // STRIDE
        sides = np.stack([np.full((h, w), v, np.float32) for v in (1, 2, 3, 4)])
        return np.zeros((h, w), np.float32), sides

    _, distances = flip_averaged(forward, np.zeros((1, 3, 16, 24), np.float32))
    assert distances.shape == (4, 4, 6)
    np.testing.assert_allclose(distances[:, 2, 3], [5 / 3, 8 / 3, 7 / 3, 10 / 3], rtol=1e-6)


def test_an_equivariant_net_reads_the_same_averaged_as_once():
    # A net that pools its input commutes with flips, so each flipped view, flipped back, is the plain view: the
    # mean equals one pass, on a photo with nothing symmetric about it. A view not flipped back would differ.
    rng = np.random.default_rng(38)
    blob = rng.random((1, 3, 32, 48)).astype(np.float32)

    def forward(b):
        return pooled(b[0, 0]), np.stack([pooled(b[0, 1]), pooled(b[0, 2]), pooled(b[0, 1]), pooled(b[0, 2])])

    heat, distances = flip_averaged(forward, blob)
    plain_heat, plain_distances = forward(blob)
    np.testing.assert_allclose(heat, plain_heat, rtol=1e-5)
    np.testing.assert_allclose(distances, plain_distances, rtol=1e-5)
    assert not np.allclose(plain_heat, plain_heat[:, ::-1])  # the check above could fail


def test_a_net_that_sees_only_the_left_half_is_averaged_with_its_mirror():
    # A stand-in whose heat is 1 on the left half of whatever it sees: as it is, the photo's left half; mirrored,
    # the mirror's left half, which is the photo's right; upside down, the photo's left again. So the mean is 2/3 on
    # the left half and 1/3 on the right.
    def forward(b):
        h, w = b.shape[2] // STRIDE, b.shape[3] // STRIDE
        heat = np.zeros((h, w), np.float32)
        heat[:, : w // 2] = 1.0
        return heat, np.zeros((4, h, w), np.float32)

    heat, _ = flip_averaged(forward, np.zeros((1, 3, 16, 32), np.float32))
    np.testing.assert_allclose(heat[:, :4], 2 / 3, rtol=1e-6)
    np.testing.assert_allclose(heat[:, 4:], 1 / 3, rtol=1e-6)


@pytest.mark.skipif(not CLOSE_UP_MODEL.exists(), reason="models/tile_detector_close_up.onnx not shipped")
def test_the_close_up_net_finds_a_large_tile_on_a_sheet_with_three_views():
    # A large ivory tile with a dark rim on a white sheet: a shape any view of the close-up net should find.
    photo = np.full((480, 640, 3), 235, np.uint8)
    photo[90:390, 220:440] = (40, 120, 40)
    photo[96:384, 226:434] = (215, 235, 240)
    net = TileDetector(CLOSE_UP_MODEL)
    heat, distances, scale = net.run(photo, flip_average=True)
    one_heat, _, one_scale = net.run(photo)
    assert scale == one_scale and heat.shape == one_heat.shape and distances.shape[0] == 4
    assert float(heat.max()) <= 1.0 and float(heat.min()) >= 0.0
    found = net.detect(photo, refine=False, flip_average=True)
    assert found, "no box on a large tile"
    x0, y0, x1, y1 = max(found, key=lambda t: t.score).box
    assert abs((x0 + x1) / 2 - 330) < 40 and abs((y0 + y1) / 2 - 240) < 40
