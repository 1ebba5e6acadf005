"""Fit a set profile (numpy only): a correction of the classifier's last layer, regularised toward the shipped head.

1. Every calibration tile gives its plain crop and `views` augmented views (`calibration.views`); the classifier
   gives each its shipped logits and its embedding (the head's input).
2. Softmax regression over the 42 tile kinds on those crops, fitted as a correction (dW, db) added to the shipped
   logits, with an L2 penalty on the correction (ridge toward the shipped head, full-batch Adam from zero). A tile
   kind the shipped head already reads right gives almost no gradient, so its row barely moves; only what the set
   shows the head getting wrong is corrected. `back` and `none` are not fitted (the shipped head keeps deciding
   them, see `vision.profile`).
3. The penalty's strength is chosen by cross-validation among `FitSettings.penalties` and "no correction" (the
   shipped head): each fold of calibration tiles is left out in turn, a fit on the others reads its plain crops,
   and the strength with the most left-out tiles read right wins (ties: the higher likelihood of the true kinds).
   A set like those the model knows thus keeps the shipped head or a light correction; a set it reads badly gets a
   strong one. Folds are the photos; when that would leave most tiles' kinds unseen (e.g. one photo per kind), the
   k-th tile of every kind forms fold k; with one tile a kind nothing can be cross-validated and the strength is
   `default_penalty` (chosen on the constructions of `benchmarks/calibration_curve.py`, not on a test split).
   At most `MAX_FOLDS` folds (more photos are dealt into that many).

Why not replace head rows by class means (imprinting, the first version): on held-out photos of other sets one
calibration crop a kind pulled the row to that set's look and read other sets' flowers 0.40 instead of 0.77; the
ridge fit keeps what the shipped head knows and the cross-validation picks how far to move
(`benchmarks/results/calibration_curve.json`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from fanscan.calibration.sources import CalibrationTile
from fanscan.calibration.views import tile_views
from fanscan.scoring.errors import FanscanError
from fanscan.vision.profile import gate_indices, profiled_probabilities

MAX_FOLDS = 5
MAX_CROPS = 4096  # views per tile shrink so that a big calibration set still fits in seconds


@dataclass(frozen=True)
class FitSettings:
    views: int = 48  # augmented views per calibration tile (plus its plain crop)
    steps: int = 200  # Adam steps of the profile's own fit
    learning_rate: float = 0.05
    penalties: tuple[float, ...] = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003)  # L2 strengths the cross-validation tries
    default_penalty: float = 0.05  # with one calibration tile a kind (nothing to cross-validate)
    cv_views: int = 12  # views per tile in each cross-validation fit (a cheaper fit than the profile's own)
    cv_steps: int = 120  # steps of each cross-validation fit
    batch: int = 2048  # crops per Adam step at most (a random subset beyond that: the cost of a step stays bounded)
    seed: int = 0


@dataclass
class Embedded:
    """Per crop: shipped logits, embedding, class index, tile number; plus each tile's plain crop turned 180 degrees."""

    logits: np.ndarray
    embeddings: np.ndarray
    labels: np.ndarray
    tile_index: np.ndarray
    plain: np.ndarray  # index of each tile's plain crop in the arrays above
    turned_logits: np.ndarray
    turned_embeddings: np.ndarray


def embed(classifier, tiles: Sequence[CalibrationTile], settings: FitSettings,
          progress: Callable[[str], None] | None = None) -> Embedded:
    """Views of every tile through the classifier (in batches, to bound memory)."""
    index = {name: i for i, name in enumerate(classifier.classes)}
    unknown = sorted({t.tile for t in tiles if t.tile not in index})
    if unknown:
        raise FanscanError(f"calibration labels the classifier does not know: {', '.join(unknown)}")
    rng = np.random.default_rng(settings.seed)
    spec = classifier.crop_spec
    views = min(settings.views, max(4, MAX_CROPS // max(len(tiles), 1) - 1))
    logits, embeddings, labels, owners, plain, turned = [], [], [], [], [], []
    offset = 0
    for number, tile in enumerate(tiles):
        crops = tile_views(tile, spec, views, rng)
        batch_logits, batch_embeddings = classifier.logits_and_embeddings([*crops, crops[0][::-1, ::-1].copy()])
        logits.append(batch_logits[:-1])
        embeddings.append(batch_embeddings[:-1])
        turned.append((batch_logits[-1], batch_embeddings[-1]))
        labels.extend([index[tile.tile]] * len(crops))
        owners.extend([number] * len(crops))
        plain.append(offset)
        offset += len(crops)
        if progress is not None and (number + 1) % 42 == 0:
            progress(f"{number + 1}/{len(tiles)} tiles embedded")
    return Embedded(np.concatenate(logits), np.concatenate(embeddings), np.array(labels, np.int64),
                    np.array(owners, np.int64), np.array(plain, np.int64), np.stack([t[0] for t in turned]),
                    np.stack([t[1] for t in turned]))


def zero_delta(classes: Sequence[str], size: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((len(classes), size)), np.zeros(len(classes))


def fit_delta(data: Embedded, rows: np.ndarray, classes: tuple[str, ...], penalty: float, settings: FitSettings,
              steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(dW, db) over all classes (zero rows for back/none) fitted on the crops `rows`: mean cross-entropy of the
    corrected tile logits + penalty / 2 * (|dW|^2 + |db|^2), Adam from zero (see the module doc)."""
    tiles, _ = gate_indices(classes)
    position = np.full(len(classes), -1, np.int64)
    position[tiles] = np.arange(len(tiles))
    emb, base = data.embeddings[rows], data.logits[rows][:, tiles]
    onehot = np.eye(len(tiles), dtype=np.float32)[position[data.labels[rows]]]
    params = [np.zeros((len(tiles), emb.shape[1]), np.float32), np.zeros(len(tiles), np.float32)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(settings.seed)
    for step in range(1, steps + 1):
        pick = rng.choice(len(emb), settings.batch, replace=False) if len(emb) > settings.batch else slice(None)
        delta_w, delta_b = params
        z = base[pick] + emb[pick] @ delta_w.T + delta_b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        error = (p - onehot[pick]) / len(z)
        grads = [error.T @ emb[pick] + penalty * delta_w, error.sum(axis=0) + penalty * delta_b]
        for param, grad, m, v in zip(params, grads, moments, squares, strict=True):
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            param -= settings.learning_rate * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + eps)
    full_w, full_b = zero_delta(classes, emb.shape[1])
    full_w[tiles], full_b[tiles] = params
    return full_w, full_b


def read_plain(data: Embedded, tile_numbers: np.ndarray, delta: tuple[np.ndarray, np.ndarray],
               classes: tuple[str, ...]) -> np.ndarray:
    """Probabilities of the plain crop of each of `tile_numbers` with the profile (as `TileClassifier` reads)."""
    rows = data.plain[tile_numbers]
    return profiled_probabilities(data.logits[rows], data.embeddings[rows], data.turned_logits[tile_numbers],
                                  data.turned_embeddings[tile_numbers], delta[0], delta[1], classes)


def fold_keys(tiles: Sequence[CalibrationTile]) -> tuple[list[int], str]:
    """Fold key of each tile and what a fold is (see the module doc); keys of one tile a kind: every tile alone."""
    photos = sorted({t.photo for t in tiles})
    by_photo = [photos.index(t.photo) for t in tiles]
    kinds_in: dict[str, set[int]] = {}
    for tile, key in zip(tiles, by_photo, strict=True):
        kinds_in.setdefault(tile.tile, set()).add(key)
    if sum(len(kinds_in[t.tile]) > 1 for t in tiles) * 2 >= len(tiles):
        return by_photo, "photo"
    seen: dict[str, int] = {}
    nth = []
    for tile in tiles:
        nth.append(seen.get(tile.tile, 0))
        seen[tile.tile] = nth[-1] + 1
    if sum(seen[t.tile] > 1 for t in tiles) * 2 >= len(tiles):
        return nth, "k-th tile of every kind"
    return list(range(len(tiles))), "tile"


def folds(tiles: Sequence[CalibrationTile]) -> tuple[list[np.ndarray], str]:
    """Tile numbers of each cross-validation fold, at most `MAX_FOLDS` (see the module doc), and what a fold is."""
    keys, unit = fold_keys(tiles)
    if len(set(keys)) > MAX_FOLDS:
        keys = [k % MAX_FOLDS for k in keys]
    return [np.flatnonzero(np.array(keys) == k) for k in sorted(set(keys))], unit


def cross_validate(data: Embedded, tiles: Sequence[CalibrationTile], classes: tuple[str, ...],
                   settings: FitSettings) -> dict:
    """Choose the penalty (see the module doc); the chosen strength's figures on the left-out tiles, the shipped
    head's (no profile) on the same tiles, and every candidate's. The choice is made on these same folds, so the
    figure with the profile is a little optimistic."""
    fold_list, unit = folds(tiles)
    if unit == "tile":
        return {"penalty": settings.default_penalty, "chosen_by": "default (one calibration tile a kind: nothing to "
                "cross-validate)", "accuracy": None, "accuracy_without_profile": None, "tested": 0,
                "left_out": unit, "folds": 0}
    candidates: list[float | None] = [None, *settings.penalties]  # None: no correction at all
    right = np.zeros(len(candidates))
    likelihood = np.zeros(len(candidates))
    shipped_right = total = 0
    view_number = np.arange(len(data.labels)) - data.plain[data.tile_index]  # 0 = the plain crop
    zero = zero_delta(classes, data.embeddings.shape[1])
    for held_out in fold_list:
        rows = np.flatnonzero(~np.isin(data.tile_index, held_out) & (view_number <= settings.cv_views))
        truth = data.labels[data.plain[held_out]]
        shipped_right += int((data.logits[data.plain[held_out]].argmax(axis=1) == truth).sum())
        total += len(held_out)
        for number, penalty in enumerate(candidates):
            delta = zero if penalty is None else fit_delta(data, rows, classes, penalty, settings, settings.cv_steps)
            probs = read_plain(data, held_out, delta, classes)
            right[number] += int((probs.argmax(axis=1) == truth).sum())
            likelihood[number] += float(np.log(probs[np.arange(len(truth)), truth] + 1e-9).sum())
    best = max(range(len(candidates)), key=lambda i: (right[i], likelihood[i]))
    return {"penalty": candidates[best], "chosen_by": f"cross-validation by {unit} ({len(fold_list)} folds)",
            "accuracy": round(float(right[best]) / total, 4),
            "accuracy_without_profile": round(shipped_right / total, 4),
            "tested": total, "left_out": unit, "folds": len(fold_list),
            "candidates": {str(c): {"accuracy": round(float(r) / total, 4),
                                    "log_likelihood": round(float(ll) / total, 4)}
                           for c, r, ll in zip(candidates, right, likelihood, strict=True)}}


def fit_profile(classifier, tiles: Sequence[CalibrationTile], settings: FitSettings = FitSettings(),
                progress: Callable[[str], None] | None = None, with_loo: bool = True) -> dict:
    """Everything a profile stores but its name and source (see `fit_embedded`)."""
    if not tiles:
        raise FanscanError("no calibration tiles")
    data = embed(classifier, tiles, settings, progress)
    return fit_embedded(data, tiles, tuple(classifier.classes), settings, with_loo)


def fit_embedded(data: Embedded, tiles: Sequence[CalibrationTile], classes: tuple[str, ...], settings: FitSettings,
                 with_loo: bool = True) -> dict:
    """(dW, db), the cross-validation (None without it: then the default penalty), the penalty, counts, settings."""
    loo = cross_validate(data, tiles, classes, settings) if with_loo else None
    penalty = loo["penalty"] if loo else settings.default_penalty
    delta = zero_delta(classes, data.embeddings.shape[1]) if penalty is None else \
        fit_delta(data, np.arange(len(data.labels)), classes, penalty, settings, settings.steps)
    counts: dict[str, int] = {}
    for tile in tiles:
        counts[tile.tile] = counts.get(tile.tile, 0) + 1
    return {"delta": delta, "leave_one_out": loo, "penalty": penalty, "tile_counts": counts,
            "photos": len({t.photo for t in tiles}), "settings": asdict(settings), "crops_embedded": len(data.labels)}
