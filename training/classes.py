"""The classifier's classes, in model output order. Written into the ONNX metadata; inference reads them from there."""

from __future__ import annotations

from fanscan.vision.classify import BACK, NONE

SUIT_TILES = [f"{n}{suit}" for suit in "mps" for n in range(1, 10)]
HONOUR_TILES = ["E", "S", "W", "N", "C", "F", "P"]
FLOWER_TILES = ["a", "b", "c", "d", "e", "f", "g", "h"]  # plum orchid bamboo chrysanthemum, spring..winter
CLASSES: list[str] = [*SUIT_TILES, *HONOUR_TILES, *FLOWER_TILES, BACK, NONE]
CLASS_INDEX: dict[str, int] = {name: i for i, name in enumerate(CLASSES)}
