"""benchmarks/eval_large_tiles.py: the close-ups it builds keep their labels on the tiles (the geometry is followed
exactly), enlarge tiles to the asked share of the frame, and count split tiles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30), (30, 200, 200), (200, 30, 200)]


@pytest.fixture
def large_tiles(monkeypatch):
    # The benchmark scripts import each other as siblings (as when run as `python benchmarks/x.py`).
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import eval_large_tiles

    return eval_large_tiles


def coloured_source(module):
    """A grey 'photo' of 1200 x 900 with six solid tiles of distinct colours (60 x 80 px) in a row."""
    image = np.full((900, 1200, 3), 90, np.uint8)
    boxes = []
    for i, colour in enumerate(COLOURS):
        x0, y0 = 300 + 70 * i, 400
        image[y0:y0 + 80, x0:x0 + 60] = colour
        boxes.append([x0, y0, x0 + 60, y0 + 80])
    return module.Source("photo.jpg", image, np.array(boxes, np.float64), [f"{i + 1}m" for i in range(6)])


def colour_inside(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The median colour of the middle of a box (a margin of 2 px against resampling at the edges)."""
    x0, y0, x1, y1 = (round(v) for v in box)
    return np.median(image[y0 + 2:y1 - 2, x0 + 2:x1 - 2].reshape(-1, 3), axis=0)


@pytest.mark.parametrize("variant", ["crop", "white"])
def test_each_label_lies_on_its_own_tile(large_tiles, variant):
    source = coloured_source(large_tiles)
    rng = np.random.default_rng(3)
    build = large_tiles.crop_case if variant == "crop" else large_tiles.white_case
    cases = [case for case in (build(rng, source) for _ in range(20)) if case is not None]
    assert len(cases) >= 15
    for case in cases:
        assert 1 <= len(case.boxes) <= large_tiles.MAX_TILES
        assert max(case.image.shape[:2]) == large_tiles.FRAME_SIDE
        for box, name in zip(case.boxes, case.tiles, strict=True):
            expected = COLOURS[int(name[0]) - 1]
            if variant == "white" or box[2] - box[0] > 20:  # a tile the window cuts to a sliver has no middle
                assert np.abs(colour_inside(case.image, box) - expected).max() <= 12, (variant, name, box)
        if variant == "white":  # the sheet around the tiles is near-white
            sheet = np.ones(case.image.shape[:2], bool)
            for x0, y0, x1, y1 in case.boxes.astype(int):
                sheet[max(0, y0 - 3):y1 + 3, max(0, x0 - 3):x1 + 3] = False
            assert case.image[sheet].mean() > 200


def test_tiles_are_enlarged_to_the_asked_share_of_the_frame(large_tiles):
    source = coloured_source(large_tiles)
    rng = np.random.default_rng(5)
    sizes = [case.size for case in (large_tiles.white_case(rng, source) for _ in range(40)) if case is not None]
    low, high = large_tiles.SIZE_RANGE
    # A tile's long side (80 px) over the frame's long side; pasting rounds to whole pixels.
    assert all(low - 0.01 <= size <= high + 0.01 for size in sizes) and len(sizes) >= 30


def test_a_tile_split_in_three_counts_three_fragments(large_tiles):
    truth = np.array([[100, 100, 300, 400]], np.float64)
    pieces = np.array([[110, 110, 290, 200], [110, 210, 290, 300], [110, 310, 290, 390], [310, 100, 400, 200]])
    assert large_tiles.fragment_count(pieces, truth) == 3
