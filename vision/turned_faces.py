"""Faces in any of four orientations: a crop the classifier reads with low confidence is read turned as well.

The classifier was trained on tiles upright and upside down. A face it sees turned a quarter (a tile lying sideways
whose box came out upright-shaped, a square-ish box on a tile turned in the photo) reads poorly. Without retraining:
a crop whose best probability is under `LOW_CONFIDENCE` is also read turned 90, 180 and 270 degrees clockwise, and
the most confident reading is kept when it beats the crop as it is by `MARGIN`, with the turn recorded. Only the
uncertain crops pay for the extra reads (one batch for all of them), so a photo of clear tiles costs nothing more.

A turn whose best answer is `back` or `none` is never kept: turning does not make a tile face down, and a turned crop
of a real face can look like a gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from fanscan.vision.classify import BACK, NONE, TileClassifier

# Crops read with a best probability under this are also read turned, and a turned reading replaces the reading as
# is when its best probability is higher by at least `MARGIN`. Chosen on the development split
# (benchmarks/eval_turned_faces.py): of the settings that keep every whole hand of its hand_* photos that the
# readings as is got right, the one with the best top-1 on crops turned by known angles (0.9 / 0.1 read crops
# best but lost a whole hand).
LOW_CONFIDENCE = 0.7
MARGIN = 0.2
TURNS = (90, 180, 270)  # degrees clockwise


@dataclass(frozen=True)
class TurnedReadings:
    """Top-k (class, probability) per crop, and the turn (degrees clockwise, 0/90/180/270) it was read at."""

    readings: list[list[tuple[str, float]]]
    turns: list[int]


def turn_crop(crop: np.ndarray, degrees: int) -> np.ndarray:
    """The crop turned clockwise by a multiple of 90 degrees."""
    return np.ascontiguousarray(np.rot90(crop, -(degrees // 90) % 4))


def read_any_turn(classifier: TileClassifier, crops: np.ndarray | Sequence[np.ndarray], k: int = 3,
                  low_confidence: float = LOW_CONFIDENCE, margin: float = MARGIN) -> TurnedReadings:
    """Each crop's top-k readings, from the turn (0, 90, 180 or 270 degrees clockwise) read most confidently."""
    probs = classifier.probabilities(crops)
    low = np.flatnonzero(probs.max(axis=1) < low_confidence) if len(probs) else np.zeros(0, int)
    turned = np.zeros((len(TURNS), len(probs), len(classifier.classes)), np.float32)
    if len(low):
        read = classifier.probabilities([turn_crop(crops[i], d) for d in TURNS for i in low])
        turned[:, low] = read.reshape(len(TURNS), len(low), -1)
    probs, turns = choose_turns(probs, turned, classifier.classes, low_confidence, margin)
    k = max(1, min(k, len(classifier.classes)))
    order = np.argsort(-probs, axis=1)[:, :k]
    readings = [[(classifier.classes[c], float(row[c])) for c in idx] for row, idx in zip(probs, order, strict=True)]
    return TurnedReadings(readings, turns)


def choose_turns(as_is: np.ndarray, turned: np.ndarray, classes: Sequence[str], low_confidence: float = LOW_CONFIDENCE,
                 margin: float = MARGIN) -> tuple[np.ndarray, list[int]]:
    """The probabilities kept for each crop and its turn, from the crops' probabilities as they are (N, C) and
    turned by `TURNS` (len(TURNS), N, C): a crop under `low_confidence` takes the turn whose best answer is a face
    (not `back` or `none`) and beats every other reading, the reading as is by `margin` more."""
    kept = as_is.copy()
    turns = [0] * len(as_is)
    not_faces = [classes.index(c) for c in (BACK, NONE) if c in classes]
    for i in np.flatnonzero(as_is.max(axis=1) < low_confidence) if len(as_is) else []:
        best = float(as_is[i].max()) + margin
        for t, degrees in enumerate(TURNS):
            top = int(np.argmax(turned[t, i]))
            if top not in not_faces and float(turned[t, i, top]) > best:
                kept[i], turns[i], best = turned[t, i], degrees, float(turned[t, i, top])
    return kept, turns
