"""The shipped ONNX models and their cards: package data of `fanscan.models`, found through `importlib.resources`.

Installs as `fanscan.models`, not as a top-level `models`: the design's top-level folders (`scoring/`, `vision/`,
`models/`, `training/`) are sub-packages of the one import name `fanscan` (pyproject.toml,
`[tool.setuptools.package-dir]`), so that no generic `models` lands in site-packages. Import it as
`fanscan.models` (an editor or a grep for `fanscan.models` finds this folder).

A regular (non-editable) install carries the model files here; nothing is downloaded at run time.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

CLASSIFIER = "tile_classifier.onnx"
# What a set profile learns on (`fanscan calibrate`, `--learn`) and reads with: another classifier file, whose
# embedding learns another maker's set from one photo a tile better than CLASSIFIER's (tile_classifier.md).
PROFILE_CLASSIFIER = "tile_classifier_profiles.onnx"
DETECTOR = "tile_detector.onnx"
# Reads the photos the scale pass calls close-ups (vision.scale.read_close_up); see tile_detector.md.
CLOSE_UP_DETECTOR = "tile_detector_close_up.onnx"


def model_path(name: str) -> Path:
    """The file path of a shipped model (`CLASSIFIER`, `PROFILE_CLASSIFIER`, `DETECTOR`, `CLOSE_UP_DETECTOR`);
    onnxruntime needs a real file, and the package is always installed unzipped (setuptools' default for a project
    with package data)."""
    return Path(str(resources.files(__name__) / name))
