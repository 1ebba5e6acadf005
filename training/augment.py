"""From a stored patch to a model input: the exact inference geometry, plus train-time jitter (numpy / OpenCV).

A patch is `crop_quad(image, quad, STORE_SPEC)`; the model input is `crop_quad(image, quad, spec)`. Both centre the
tile and scale it uniformly, so one is the other scaled about the centre by `base_scale(spec)`. Training adds what
loose boxes, other cameras and other sets vary: shift, scale, small rotation, upside-down (the crop cannot know which
way a sideways tile turns), a quarter turn for near-square boxes (whose upright/sideways call is a coin toss),
light, colour, blur, low resolution, noise and JPEG; optionally (`squeeze`) the blur of a tile from a photo that a
dataset export squeezed 3-8x along one axis and the runtime stretched back (`vision.aspect`).
"""

from __future__ import annotations

import cv2
import numpy as np
from fanscan.training.real_data import STORE_SPEC
from fanscan.vision.crops import CropSpec
from fanscan.vision.photometric import photometric


def base_scale(spec: CropSpec) -> float:
    """Patch pixels -> input pixels: both fit the padded tile to their height (same aspect), so a ratio of sizes."""
    return (spec.height / STORE_SPEC.height) * (1 + 2 * STORE_SPEC.pad) / (1 + 2 * spec.pad)


SQUEEZE_FACTORS = (3.0, 8.0)  # the range of squeezes the issue measures on exported strips and screenshots


def squeezed_and_back(image: np.ndarray, axis: int, factor: float) -> np.ndarray:
    """`image` squeezed `factor` times along `axis` (1: x, 0: y) by area averaging, then stretched back to its size:
    what is left of a tile in a squeezed photo once its shape is restored, sharp along the other axis only."""
    height, width = image.shape[:2]
    small = (max(1, round(width / factor)), height) if axis == 1 else (width, max(1, round(height / factor)))
    return cv2.resize(cv2.resize(image, small, interpolation=cv2.INTER_AREA), (width, height),
                      interpolation=cv2.INTER_LINEAR)


def patch_to_input(patch: np.ndarray, spec: CropSpec, rng: np.random.Generator | None = None,
                   square: bool = False, quarter_turn: float = 0.0, squeeze: float = 0.0) -> np.ndarray:
    """The (spec.height, spec.width, 3) uint8 model input for a patch; jittered when `rng` is given.

    `quarter_turn`: share of patches (of any shape) turned a quarter either way and shrunk by width / height so the
    turned tile fits the input, as the runtime's turned re-read (`vision.turned_faces`) letterboxes a turned crop.
    `squeeze`: share of patches blurred as `squeezed_and_back` along a random axis by a factor in SQUEEZE_FACTORS.
    """
    scale, angle, shift = base_scale(spec), 0.0, np.zeros(2)
    if rng is not None:
        scale *= float(np.exp(np.clip(rng.normal(0, 0.08), -0.2, 0.2)))
        angle = float(rng.normal(0, 7))
        if rng.random() < 0.5:
            angle += 180.0
        if square and rng.random() < 0.35:
            angle += 90.0 * rng.choice([-1, 1])
        elif quarter_turn and rng.random() < quarter_turn:
            angle += 90.0 * rng.choice([-1, 1])
            scale *= spec.width / spec.height
        shift = rng.normal(0, 0.035, 2) * np.array([spec.width, spec.height])
    centre = (STORE_SPEC.width / 2, STORE_SPEC.height / 2)
    matrix = cv2.getRotationMatrix2D(centre, angle, scale)
    matrix[:, 2] += np.array([spec.width / 2 - centre[0], spec.height / 2 - centre[1]]) + shift
    out = cv2.warpAffine(patch, matrix, (spec.width, spec.height), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REFLECT)
    if rng is None:
        return out
    if squeeze and rng.random() < squeeze:
        out = squeezed_and_back(out, int(rng.integers(0, 2)), float(rng.uniform(*SQUEEZE_FACTORS)))
    return photometric(out, rng)
