"""The candidate recipe's extra training data: drawn suit layouts, quarter turns of any crop, boosted renders,
squeezed views."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from fanscan.training.augment import patch_to_input, squeezed_and_back
from fanscan.training.classes import CLASSES
from fanscan.training.classifier_train import INPUT_SPEC, parse_args, sampling_weights
from fanscan.training.drawn_suits import bamboo_body, dots_body
from fanscan.training.faces import FACE_H, FACE_W, Face
from fanscan.training.real_data import STORE_SPEC, PatchSet
from fanscan.training.renders import Renderer, render_set

SVG = "{http://www.w3.org/2000/svg}"


def _elements(body: str) -> ET.Element:
    return ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{body}</svg>')


@pytest.mark.parametrize("count", range(2, 10))
def test_drawn_bamboo_has_one_stick_per_count(count: int) -> None:
    for seed in range(3):
        sticks = _elements(bamboo_body(count, np.random.default_rng(seed))).findall(f"{SVG}g")
        assert len(sticks) == count


@pytest.mark.parametrize("count", range(2, 10))
def test_drawn_dots_have_count_dots_inside_the_face(count: int) -> None:
    for seed in range(3):
        circles = _elements(dots_body(count, np.random.default_rng(seed))).findall(f"{SVG}circle")
        # A dot is two circles (ring or solid, and its centre) or eight petals and a centre.
        assert len(circles) in (2 * count, 9 * count)
        centres = [(float(c.get("cx")), float(c.get("cy")), float(c.get("r"))) for c in circles]
        assert all(r <= x <= FACE_W - r and r <= y <= FACE_H - r for x, y, r in centres)


def _bright_bar_patch() -> np.ndarray:
    """A tall white tile-shaped rectangle on black, centred like a stored patch's tile."""
    patch = np.zeros((STORE_SPEC.height, STORE_SPEC.width, 3), np.uint8)
    cy, cx = STORE_SPEC.height // 2, STORE_SPEC.width // 2
    patch[cy - 40:cy + 40, cx - 12:cx + 12] = 255
    return patch


def _bright_extent(image: np.ndarray) -> tuple[int, int]:
    ys, xs = np.nonzero(image.max(axis=2) > image.max() * 0.6)
    return int(xs.max() - xs.min()), int(ys.max() - ys.min())


def test_quarter_turn_lays_a_tall_tile_on_its_side() -> None:
    patch = _bright_bar_patch()
    for seed in range(5):
        width, height = _bright_extent(patch_to_input(patch, INPUT_SPEC, np.random.default_rng(seed),
                                                      quarter_turn=1.0))
        assert width > 1.3 * height  # the 7-degree (sigma) tilt jitter widens the short side
        width, height = _bright_extent(patch_to_input(patch, INPUT_SPEC, np.random.default_rng(seed)))
        assert height > 1.3 * width


def test_boosted_tiles_get_more_renders() -> None:
    rgba = np.zeros((FACE_H, FACE_W, 4), np.uint8)
    rgba[60:140, 40:110] = (0, 0, 200, 255)
    faces = {tile: [Face("test", tile, rgba)] for tile in ("2m", "3m", "a")}
    renders = render_set(Renderer(faces, [], [], seed=0), per_tile=2, per_back=1, per_none=1, boost=("2m", "a"),
                         boost_factor=1.5)
    counts = {CLASSES[i]: int(n) for i, n in zip(*np.unique(renders.labels, return_counts=True), strict=True)}
    assert counts == {"2m": 3, "3m": 2, "a": 6, "back": 1, "none": 1}


def test_a_squeezed_view_loses_detail_along_the_squeezed_axis_only() -> None:
    # Stripes 2 px wide across x (detail along x) in the left half, across y (detail along y) in the right half.
    image = np.zeros((80, 64, 3), np.uint8)
    image[:, :32][:, (np.arange(32) // 2) % 2 == 1] = 255
    image[:, 32:][(np.arange(80) // 2) % 2 == 1] = 255
    for factor in (3.0, 8.0):
        squeezed_x = squeezed_and_back(image, axis=1, factor=factor)
        assert squeezed_x.shape == image.shape
        # Along x the left stripes are averaged away (contrast far below 255); the right ones are untouched inside.
        assert np.ptp(squeezed_x[:, 4:28].astype(int), axis=1).max() < 128
        assert np.array_equal(squeezed_x[4:76, 40:56], image[4:76, 40:56])
        squeezed_y = squeezed_and_back(image, axis=0, factor=factor)
        assert np.ptp(squeezed_y[4:76, 40:56].astype(int), axis=0).max() < 128
        assert np.array_equal(squeezed_y[4:76, 4:28], image[4:76, 4:28])


@pytest.mark.parametrize("render_weight", [1.0, 0.5, 0.0])
def test_render_weight_scales_the_chance_of_drawing_a_rendered_patch(render_weight: float) -> None:
    # One class, four patches: two real crops (source groups 0, 1), two renders (group -1), none loose. Every patch
    # has the same class weight, so a render's chance against a real crop's is render_weight alone.
    labels = np.zeros(4, np.int64)
    patches = np.zeros((4, STORE_SPEC.height, STORE_SPEC.width, 3), np.uint8)
    pool = PatchSet(patches, labels, np.array([0, 1, -1, -1]), np.zeros(4, bool), ["a", "b"])
    weights = sampling_weights(pool, loose_weight=0.3, render_weight=render_weight)
    real, rendered = 1 / (2 + 2 * render_weight), render_weight / (2 + 2 * render_weight)
    assert np.allclose(weights, [real, real, rendered, rendered])


def test_a_negative_render_weight_is_refused_in_one_line(capsys) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--render-weight", "-1"])
    assert "--render-weight must be 0 or more" in capsys.readouterr().err
