"""Matching predicted boxes to labelled boxes at an IoU threshold (detection recall and precision)."""

from __future__ import annotations

import numpy as np


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in `a` (N, 4) with every box in `b` (M, 4); boxes are (x0, y0, x1, y1)."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    ix0 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy0 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix1 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def match(predicted: np.ndarray, labelled: np.ndarray, iou: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching: predictions in the given order (best score first) each take the unmatched
    labelled box they overlap most, if that IoU reaches `iou`. Returns (prediction index, label index) pairs."""
    if len(predicted) == 0 or len(labelled) == 0:
        return []
    ious = iou_matrix(predicted, labelled)
    taken = np.zeros(len(labelled), bool)
    pairs = []
    for p in range(len(predicted)):
        row = np.where(taken, -1.0, ious[p])
        best = int(np.argmax(row))
        if row[best] >= iou:
            taken[best] = True
            pairs.append((p, best))
    return pairs


def match_counts(predicted: np.ndarray, labelled: np.ndarray, iou: float = 0.5) -> np.ndarray:
    """(true positives, predictions, labelled boxes) for one image."""
    return np.array([len(match(predicted, labelled, iou)), len(predicted), len(labelled)], np.float64)
