"""Fit a set profile (numpy only): the classifier's last layer adapted to the calibration tiles' embeddings.

1. Every calibration tile gives its plain crop and `views` augmented views (`calibration.views`); the classifier
   gives each its shipped logits and its embedding (the head's input).
2. Imprinting: the head row of each tile kind in the calibration set is blended with the mean embedding of its
   views, rescaled to the norm of the shipped row (the shipped row is recovered from logits and embeddings by least
   squares: the head is linear, so this is exact up to rounding).
3. Softmax regression over the 42 tile kinds, started from the imprinted head: Adam on random batches of
   crops, L2 toward the
   imprinted head. `back` and `none` are not fitted (the shipped head keeps deciding them, see `vision.profile`).

Leave-one-out: with tiles from several photos, each photo in turn is left out, the profile is fitted on the others
and tested on the left-out photo's plain crops; with tiles from a single photo, each tile in turn. A left-out tile
whose kind has no other calibration tile is read by a fit that never saw its kind (a floor), so the figure is also
given over the left-out tiles whose kind the fit saw. More than `MAX_FOLDS` photos or tiles are dealt into `MAX_FOLDS`
folds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from fanscan.calibration.sources import CalibrationTile
from fanscan.calibration.views import tile_views
from fanscan.scoring.errors import FanscanError
from fanscan.vision.profile import gate_indices, profiled_probabilities

MAX_FOLDS = 42
MAX_CROPS = 4096  # views per tile shrink so that a big calibration set still fits in seconds


@dataclass(frozen=True)
class FitSettings:
    views: int = 48  # augmented views per calibration tile (plus its plain crop)
    steps: int = 300
    learning_rate: float = 0.01
    l2: float = 1e-3  # toward the imprinted head
    blend: float = 0.5  # share of the imprinted class mean in a head row (the rest: the shipped row)
    loo_views: int = 12  # views per tile in each leave-one-out fit (a cheaper fit than the profile's own)
    loo_steps: int = 100  # steps of each leave-one-out fit
    batch: int = 512  # crops per Adam step (a random subset: the cost of a step does not grow with the data)
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


def shipped_head(logits: np.ndarray, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The shipped head (W0, b0) from its own inputs and outputs: logits = embeddings @ W0.T + b0."""
    design = np.hstack([embeddings, np.ones((len(embeddings), 1))]).astype(np.float64)
    gram = design.T @ design
    # Normal equations (161 x 161) instead of a least-squares solve on all crops: 20x faster; the tiny ridge only
    # settles embedding channels that are zero on every crop (their weight then does not matter here).
    solution = np.linalg.solve(gram + 1e-6 * np.eye(len(gram)), design.T @ logits.astype(np.float64))
    return solution[:-1].T, solution[-1]


def fit_delta(data: Embedded, rows: np.ndarray, head: tuple[np.ndarray, np.ndarray], classes: tuple[str, ...],
              settings: FitSettings, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(dW, db) over all classes (zero rows for back/none) fitted on the crops `rows` (see the module doc)."""
    tiles, _ = gate_indices(classes)
    weight0, _ = head
    position = {int(c): i for i, c in enumerate(tiles)}
    emb, base = data.embeddings[rows], data.logits[rows][:, tiles]
    target = np.array([position[int(c)] for c in data.labels[rows]], np.int64)
    delta_w = np.zeros((len(tiles), emb.shape[1]), np.float32)
    delta_b = np.zeros(len(tiles), np.float32)
    for j in np.unique(target):
        shipped_row = weight0[tiles[j]]
        mean = emb[target == j].mean(axis=0)
        imprint = mean / max(np.linalg.norm(mean), 1e-9) * np.linalg.norm(shipped_row)
        delta_w[j] = settings.blend * (imprint - shipped_row)
    start_w = delta_w.copy()
    onehot = np.eye(len(tiles), dtype=np.float32)[target]
    params = [delta_w, delta_b]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(settings.seed)
    for step in range(1, steps + 1):
        pick = rng.choice(len(emb), settings.batch, replace=False) if len(emb) > settings.batch else slice(None)
        z = base[pick] + emb[pick] @ delta_w.T + delta_b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        error = (p - onehot[pick]) / len(z)
        grads = [error.T @ emb[pick] + settings.l2 * (delta_w - start_w), error.sum(axis=0)]
        for param, grad, m, v in zip(params, grads, moments, squares, strict=True):
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            param -= settings.learning_rate * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + eps)
    full_w = np.zeros((len(classes), emb.shape[1]))
    full_b = np.zeros(len(classes))
    full_w[tiles], full_b[tiles] = delta_w, delta_b
    return full_w, full_b


def predict_plain(data: Embedded, tile_numbers: np.ndarray, delta: tuple[np.ndarray, np.ndarray],
                  classes: tuple[str, ...]) -> np.ndarray:
    """Class index read for the plain crop of each of `tile_numbers` with the profile (as `TileClassifier` does)."""
    rows = data.plain[tile_numbers]
    probs = profiled_probabilities(data.logits[rows], data.embeddings[rows], data.turned_logits[tile_numbers],
                                   data.turned_embeddings[tile_numbers], delta[0], delta[1], classes)
    return probs.argmax(axis=1)


def folds(tiles: Sequence[CalibrationTile]) -> list[np.ndarray]:
    """Tile numbers of each leave-one-out fold (see the module doc)."""
    photos = sorted({t.photo for t in tiles})
    keys = [photos.index(t.photo) for t in tiles] if len(photos) > 1 else list(range(len(tiles)))
    count = len(set(keys))
    keys = [k % MAX_FOLDS for k in keys] if count > MAX_FOLDS else keys
    return [np.flatnonzero(np.array(keys) == k) for k in sorted(set(keys))]


def leave_one_out(data: Embedded, tiles: Sequence[CalibrationTile], head, classes: tuple[str, ...],
                  settings: FitSettings) -> dict:
    """Accuracy of the profile on plain crops it was not fitted on (see the module doc), and without any profile;
    also over only the left-out crops whose kind the fit still saw (`*_seen_kinds`): with one calibration tile a
    kind there are none, and the overall figure is a floor."""
    right = shipped_right = total = 0
    seen = seen_right = seen_shipped_right = 0
    zero = (np.zeros((len(classes), data.embeddings.shape[1])), np.zeros(len(classes)))
    view_number = np.arange(len(data.labels)) - data.plain[data.tile_index]  # 0 = the plain crop
    for held_out in folds(tiles):
        rows = np.flatnonzero(~np.isin(data.tile_index, held_out) & (view_number <= settings.loo_views))
        if not len(rows):
            continue
        delta = fit_delta(data, rows, head, classes, settings, settings.loo_steps)
        truth = data.labels[data.plain[held_out]]
        with_profile = predict_plain(data, held_out, delta, classes) == truth
        without = predict_plain(data, held_out, zero, classes) == truth
        known = np.isin(truth, data.labels[rows])
        right, shipped_right, total = right + int(with_profile.sum()), shipped_right + int(without.sum()), \
            total + len(held_out)
        seen += int(known.sum())
        seen_right += int(with_profile[known].sum())
        seen_shipped_right += int(without[known].sum())
    unit = "photo" if len({t.photo for t in tiles}) > 1 else "tile"
    return {"accuracy": round(right / total, 4) if total else None,
            "accuracy_without_profile": round(shipped_right / total, 4) if total else None,
            "tested": total, "left_out": unit, "folds": len(folds(tiles)),
            "accuracy_seen_kinds": round(seen_right / seen, 4) if seen else None,
            "accuracy_seen_kinds_without_profile": round(seen_shipped_right / seen, 4) if seen else None,
            "tested_seen_kinds": seen}


def fit_profile(classifier, tiles: Sequence[CalibrationTile], settings: FitSettings = FitSettings(),
                progress: Callable[[str], None] | None = None, with_loo: bool = True) -> dict:
    """Everything a profile stores but its name and source: (dW, db), leave-one-out figures, counts, settings."""
    if not tiles:
        raise FanscanError("no calibration tiles")
    data = embed(classifier, tiles, settings, progress)
    head = shipped_head(data.logits, data.embeddings)
    classes = tuple(classifier.classes)
    delta = fit_delta(data, np.arange(len(data.labels)), head, classes, settings, settings.steps)
    loo = leave_one_out(data, tiles, head, classes, settings) if with_loo else None
    counts: dict[str, int] = {}
    for tile in tiles:
        counts[tile.tile] = counts.get(tile.tile, 0) + 1
    return {"delta": delta, "leave_one_out": loo, "tile_counts": counts, "photos": len({t.photo for t in tiles}),
            "settings": asdict(settings), "crops_embedded": len(data.labels)}
