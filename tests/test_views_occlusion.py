"""The occluded calibration views (`calibration.views.occluded`): a strip along one side hidden by another part of
the same crop, everything else untouched."""

import numpy as np

from fanscan.calibration.views import OCCLUDED_SHARE, occluded


def distinct_crop(height: int = 80, width: int = 64) -> np.ndarray:
    """Every pixel different from every other one (so any moved strip shows)."""
    values = np.arange(height * width * 3, dtype=np.int64).reshape(height, width, 3)
    return (values % 251).astype(np.uint8) ^ (values // 251 % 256).astype(np.uint8)


def changed_lines(before: np.ndarray, after: np.ndarray, axis: int) -> np.ndarray:
    """Indices of the columns (axis 1) or rows (axis 0) where the two crops differ."""
    other = (0, 2) if axis == 1 else (1, 2)
    return np.flatnonzero((before != after).any(axis=other))


def test_a_strip_at_one_side_is_replaced_by_the_same_crop_rolled():
    crop = distinct_crop()
    height, width = crop.shape[:2]
    rng = np.random.default_rng(5)
    sides = set()
    for _ in range(60):
        out = occluded(crop, rng)
        assert out.shape == crop.shape and out.dtype == crop.dtype
        columns, rows = changed_lines(crop, out, 1), changed_lines(crop, out, 0)
        if len(rows) == height:  # a left or right strip: whole columns change
            axis, lines, length = 1, columns, width
        else:  # a bottom strip: whole rows change
            axis, lines, length = 0, rows, height
            assert len(columns) == width
        assert len(lines) > 0
        assert np.array_equal(lines, np.arange(lines[0], lines[-1] + 1)), "one contiguous strip"
        if axis == 1:
            side = "left" if lines[0] == 0 else "right"
            assert side == "left" or lines[-1] == width - 1
        else:
            side = "bottom"
            assert lines[-1] == height - 1, "never the top edge"
        sides.add(side)
        low, high = OCCLUDED_SHARE
        assert round(length * low) <= len(lines) <= round(length * high)
        # the strip shows the crop rolled along the same axis by at least the strip's own length
        strip = out[:, lines] if axis == 1 else out[lines]
        shifts = [s for s in range(1, length)
                  if np.array_equal(strip, np.take(np.roll(crop, s, axis=axis), lines, axis=axis))]
        assert len(shifts) == 1 and len(lines) <= shifts[0] <= length - len(lines)
        # the rest of the crop is exactly as it was
        keep = np.ones(length, bool)
        keep[lines] = False
        assert np.array_equal(np.compress(keep, out, axis=axis), np.compress(keep, crop, axis=axis))
    assert sides == {"left", "right", "bottom"}


def test_the_input_crop_is_left_as_it_was():
    crop = distinct_crop()
    copy = crop.copy()
    occluded(crop, np.random.default_rng(0))
    assert np.array_equal(crop, copy)
