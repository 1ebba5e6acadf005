"""Fit a set profile (numpy only): a correction of the classifier's last layer, from the shipped head to a free one.

1. Every calibration tile gives its plain crop and `views` augmented views (`calibration.views`); the classifier
   gives each its shipped logits and its embedding (the head's input).
2. Softmax regression over the 42 tile kinds on those crops, fitted as a correction (dW, db) added to the shipped
   logits, with an L2 penalty on the correction (ridge toward the shipped head, full-batch Adam from zero). A tile
   kind the shipped head already reads right gives little gradient, so under a strong penalty its row barely moves;
   with no penalty the fit is a free logistic head on the embedding (started from the shipped one). The softmax
   runs over the "moved" kinds only: those of the calibration crops and those the shipped head read their plain
   crops as (`moved_classes`). `back`, `none` and every other kind are not fitted, and at inference their
   probability stays the shipped head's (`vision.profile`): nothing says how this set draws them, and a free head
   fitted on one hand's 7 kinds would otherwise read every other tile as one of those 7.
3. How far to move is chosen from the calibration tiles' own evidence, by cross-validation among the candidates
   "no correction" (the shipped head), `FitSettings.penalties` from strong to none. With one tile a kind, the held-out
   crops are views: each tile's augmented views are dealt into `view_folds` folds, and a fit on the plain crops and
   the other folds reads the held-out fold of every tile. With several tiles a kind, whole tiles are held out (the
   photos, else the k-th tile of every kind, at most `MAX_FOLDS` folds), and their plain crops and views are read.
   Each candidate's figure is the mean over tiles of the share of its held-out crops read right; the shipped head's
   own figure is the bar. Held-out views of a tile agree with a fit on its other views whether or not the fit will
   read the set's other tiles (42 crops of many sets, composited, read 0.94 there with the free head and their
   other photos 0.83), so with one tile a kind how badly the shipped head reads the tiles themselves (plain crop
   and its turn) bounds how far the fit may go (`REACH`): a set it reads almost right (at most 10 % of the tiles
   wrong) gets at most a light correction, one it reads badly (over 25 % wrong) may go to the free head.
   The winner is the candidate nearest the shipped head whose figure is within one standard
   error (of its paired difference over tiles) of the best: a set the model reads right keeps the shipped head, or
   a light correction where a few kinds need it; a set it reads badly moves as far as its held-out views say
   (another maker's set read 0.73 by the shipped head wants the free end).

4. How close in the set's crops are read (`CROP_ZOOMS`, `vision.crops.zoom_crop`): another maker's boxes can sit
   looser around the face than the classifier's training labels. With cross-validation the views are embedded at
   each zoom (the same views, zoomed after they are drawn) and steps 2-3 run at each; the zoom is chosen by the rule
   of step 3 over each zoom's chosen candidate's held-out reading per tile, from the classifier's own crop (zoom 1)
   up. The profile stores the zoom, and every crop it reads is zoomed so (`vision.profile`).

5. Anchors (`calibration.anchors`), where a file of them matches the classifier: labelled tiles of its training
   split, read at every crop zoom, that every fit also reads (the anchors of the moved kinds, weighing
   `ANCHOR_WEIGHT` times the set's own crops in all). A fit may then move freely where it keeps the familiar looks
   right, so `REACH` does not apply; the crop zoom is read off the shipped head (`zoom_by_shipped_head`) and the
   cross-validation runs at that zoom only. No anchors file ships (session 35, issue 18): on the sets measured it
   reads riichi-table-leomiura's other scenes better and the familiar sets worse than the rules above
   (models/tile_classifier.md, "Anchors").

6. Prototype pull (`PROTOTYPE_PULL`, `pull_applies`): with one tile a kind, where the shipped head misreads a
   calibration tile and the fit moves, each calibrated kind's row also gains a nearest-class-mean term, added to
   the fitted correction rather than replacing the row as imprinting did (below) (session 37:
   riichi-table-leomiura 0.981 -> 0.995 at one photo a tile, the familiar sessions as they were, the composited
   construction of many sets 0.975 -> 0.950; models/tile_classifier.md, "Prototype pull").

Why not replace head rows by class means (imprinting, the first version): on held-out photos of other sets one
calibration crop a kind pulled the row to that set's look and read other sets' flowers 0.40 instead of 0.77; the
fit keeps what the shipped head knows unless the set's own crops show it wrong
(`benchmarks/results/calibration_curve.json`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace

import numpy as np

from fanscan.calibration.anchors import classifier_anchors
from fanscan.calibration.sources import CalibrationTile
from fanscan.calibration.views import tile_views
from fanscan.scoring.errors import FanscanError
from fanscan.vision.crops import zoom_crop
from fanscan.vision.profile import gate_indices, profiled_probabilities

MAX_FOLDS = 5
# With one tile a kind: (share of the calibration tiles the shipped head misreads, weakest penalty allowed up to that
# share); above the last share any candidate may win (see the module doc; shares chosen on the constructions of
# benchmarks/calibration_curve.py and the two shared sets, never on a test split).
REACH = ((0.10, 0.1), (0.25, 0.03))
# What REACH holds back (before crop zooms): on riichi-table-leomiura a free head reads 0.962 at one photo a tile,
# REACH's 0.1 reads 0.938; on the development construction the free head reads 0.825 (92 East tiles taken for green
# dragons), 0.1 reads 0.937. Signals tried for telling a stranger's one set from that mix of familiar sessions (session
# 12, benchmarks/calibration_curve.py's sets): the shipped head's confidence on the calibration tiles and their views
# (the construction's composited crops look *less* familiar than riichi's: views read 0.73 vs 0.89-0.94); the spread of
# the tiles' embeddings in the directions the head ignores (riichi 3.03-3.11, construction 3.33-3.38, but its recoloured
# copy, also a mix, 3.10-3.13, and hk-crops 3.54: no margin to set a bar on). Fits tried: one transform of the embedding
# shared by all kinds (full or per-feature: riichi 0.941-0.960, construction 0.894-0.929); the classifier's own
# embeddings of 7,723 training-session tiles as labelled anchors in fits under penalty 0.1 (session 12's note on issue
# 18): a free head then reads the construction 0.935 instead of 0.825, but through REACH and the cross-validation the
# curves moved within noise (riichi 0.938 / 0.952-0.955 / 0.966-0.967 for 1 / 2 / 4 photos, construction 0.9366 / 0.9384
# / 0.9416, hk 0.986 / 0.973 / 0.973), the rendered artwork set lost 0.002-0.004 at 2 and 4 photos and building took
# 2-3x longer there: not shipped.
# One familiar set at a time (session 17, `calibration_curve.py --parts sessions`: six development sessions, each
# calibrated on half its photos, read on the other half): pooled 0.944 without a profile, 0.949 / 0.952 / 0.953 with
# 1 / 2 / 4 photos a tile; one session lower at one photo a tile (0.939 against 0.943, 2 of 477 boxes). With REACH off
# (one photo a tile) three of the six read lower (0.865 / 0.920 / 0.961 against 0.876 / 0.943 / 0.968), pooled 0.940:
# the guard holds on real single sets too, not only on the composited mix.
# A richer embedding for the profile (session 18; the same weights and logits, the ONNX file's `embedding` output
# widened, `calibration_curve.py --classifier FILE --photos 1`, shipped -> variant): the last stage's mean plus a 2x2
# grid of it (800 features): riichi 0.938 -> 0.945, artwork 0.980 -> 0.994, recoloured artwork 0.978 -> 0.992, hk
# 0.986 as it was, sessions 0.949 -> 0.950, but the development construction 0.937 -> 0.925 and its recoloured copy
# 0.852 -> 0.843; the mean of stage 4 added (224): riichi 0.940, construction 0.933, sessions 0.949. A familiar mix
# reads worse with either: not shipped. Free heads (REACH off) on riichi: 0.957 (shipped), 0.962, 0.957.
# How much closer in than the classifier's own crop a profile may read its set (`vision.crops.zoom_crop`): another
# maker's boxes can sit looser around the face than the training labels (riichi-table-leomiura's boxes take in the
# tiles' sides: the shipped head reads its labelled boxes 0.912 as cut, 0.939 / 0.953 zoomed 1.08 / 1.15, while the
# development split reads 0.932 -> 0.916 at 1.08). The set's own held-out views choose (`choose_zoom`).
CROP_ZOOMS = (1.0, 1.08, 1.15, 1.22)
# How much the anchors (`calibration.anchors`) weigh in a fit, all together, against the set's own crops (1).
ANCHOR_WEIGHT = 1.0
ZOOM_VIEWS = 16  # with anchors: augmented views a tile the zoom is chosen on (`zoom_by_shipped_head`)
# With anchors, how clearly a closer zoom must read better before a set's crops are read so (`zoom_by_shipped_head`):
# taking the best zoom outright read riichi-table-leomiura's other scenes 0.995 at one photo a tile, but one familiar
# session (hand_01x) 0.911 (zoom 1: 0.958); one standard error kept that mistake, two do not (riichi 0.991 with the
# zoom chosen on every view, 0.986-0.988 on 16: models/tile_classifier.md, "Anchors").
ZOOM_ERRORS = 2.0
WORKERS = os.cpu_count() or 1  # threads for cross-validation folds
MAX_CROPS = 4096  # views per tile shrink so that a big calibration set still fits in seconds


# With one tile a kind, where the shipped head misreads at least one calibration tile and the fit moves at all: each
# calibrated kind's row also gains this much of its mean view embedding (unit length, over the views' mean norm),
# a nearest-class-mean pull toward how this set draws the kind (`pull_toward_prototypes`). See models/tile_classifier.md
# ("Prototype pull", session 37) for what chose it and what it costs.
PROTOTYPE_PULL = 16.0


@dataclass(frozen=True)
class FitSettings:
    views: int = 48  # augmented views per calibration tile (plus its plain crop)
    steps: int = 300  # Adam steps of the profile's own fit
    learning_rate: float = 0.05
    # L2 strengths the cross-validation tries, from near the shipped head to a free head (0: no penalty)
    penalties: tuple[float, ...] = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 0.0)
    default_penalty: float = 0.05  # --no-loo: no cross-validation
    prototype_pull: float = PROTOTYPE_PULL  # 0: off (`pull_toward_prototypes`)
    view_folds: int = 3  # one tile a kind: folds of each tile's views
    cv_views: int = 12  # several tiles a kind: views per tile in each cross-validation fit and test
    cv_steps: int = 100  # steps of each cross-validation fit (warm-started from the next stronger penalty's)
    batch: int = 2048  # crops per Adam step at most (a random subset beyond that: the cost of a step stays bounded)
    seed: int = 0


@dataclass
class Embedded:
    """Per crop: shipped logits, embedding, class index, tile number; plus each tile's plain crop turned 180 degrees.
    `weights`: per crop, how much it counts in the fit (None: all alike; a tile the user fixed counts more)."""

    logits: np.ndarray
    embeddings: np.ndarray
    labels: np.ndarray
    tile_index: np.ndarray
    plain: np.ndarray  # index of each tile's plain crop in the arrays above
    turned_logits: np.ndarray
    turned_embeddings: np.ndarray
    weights: np.ndarray | None = None
    crop_zoom: float = 1.0  # every crop was read zoomed this much (`vision.crops.zoom_crop`)
    # per crop: does the shipped reader (the classifier that reads without a profile) read it as its label, at the
    # classifier's own crop? None where it was not asked (`embed_zooms`' `reader`; entries stored before)
    reader_right: np.ndarray | None = None
    # the classifier's anchors read at `crop_zoom`: (logits, embeddings, labels); None without (`calibration.anchors`)
    anchors: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def view_number(self) -> np.ndarray:
        """Per crop: 0 for a tile's plain crop, 1.. for its views."""
        return np.arange(len(self.labels)) - self.plain[self.tile_index]


Progress = Callable[[str, int, int], None]  # (stage, done, total)


def subset(data: Embedded, tile_numbers: list[int]) -> Embedded:
    """The crops of `data` that belong to `tile_numbers`, the tiles renumbered 0.. in that order."""
    rows = np.concatenate([np.flatnonzero(data.tile_index == t) for t in tile_numbers])
    renumber = {t: i for i, t in enumerate(tile_numbers)}
    starts = np.cumsum([0] + [int((data.tile_index == t).sum()) for t in tile_numbers])[:-1]
    return Embedded(data.logits[rows], data.embeddings[rows], data.labels[rows],
                    np.array([renumber[t] for t in data.tile_index[rows]], np.int64), starts.astype(np.int64),
                    data.turned_logits[tile_numbers], data.turned_embeddings[tile_numbers],
                    None if data.weights is None else data.weights[rows], data.crop_zoom,
                    None if data.reader_right is None else data.reader_right[rows], data.anchors)


def with_anchors(data: Embedded, classifier) -> Embedded:
    """`data` with `classifier`'s anchors read at its crop zoom (`calibration.anchors`), where it has them."""
    anchors = classifier_anchors(classifier)
    return replace(data, anchors=None if anchors is None else anchors.at_zoom(data.crop_zoom))


def embed(classifier, tiles: Sequence[CalibrationTile], settings: FitSettings,
          progress: Progress | None = None, crop_zoom: float = 1.0, reader=None) -> Embedded:
    """Views of every tile through the classifier, each zoomed `crop_zoom` (`embed_zooms`)."""
    return embed_zooms(classifier, tiles, settings, (crop_zoom,), progress, reader)[0]


def embed_zooms(classifier, tiles: Sequence[CalibrationTile], settings: FitSettings, crop_zooms: Sequence[float],
                progress: Progress | None = None, reader=None) -> list[Embedded]:
    """Views of every tile through the classifier at each of `crop_zooms` (`vision.crops.zoom_crop`): one
    `Embedded` a zoom, of the same views (drawn once, then zoomed), a tile at a time to bound memory; `progress`
    after each tile. `reader`: the classifier that reads without a profile (when it is another file than the one
    profiles are built on), asked about the same views at its own crop (`Embedded.reader_right`), so that "without
    the profile" is what the player gets without one."""
    index = {name: i for i, name in enumerate(classifier.classes)}
    unknown = sorted({t.tile for t in tiles if t.tile not in index})
    if unknown:
        raise FanscanError(f"calibration labels the classifier does not know: {', '.join(unknown)}")
    rng = np.random.default_rng(settings.seed)
    spec = classifier.crop_spec
    views = min(settings.views, max(4, MAX_CROPS // max(len(tiles), 1) - 1))
    read = [([], [], []) for _ in crop_zooms]  # per zoom: logits, embeddings, (turned logits, turned embedding)
    labels, owners, plain, reader_right = [], [], [], []
    offset = 0
    for number, tile in enumerate(tiles):
        drawn = tile_views(tile, spec, views, rng)
        if reader is not None:
            reader_right.append(reader.probabilities(drawn).argmax(axis=1) == index[tile.tile])
        for zoom, (logits, embeddings, turned) in zip(crop_zooms, read, strict=True):
            crops = [zoom_crop(crop, zoom) for crop in drawn]
            batch_logits, batch_embeddings = classifier.logits_and_embeddings([*crops, crops[0][::-1, ::-1].copy()])
            logits.append(batch_logits[:-1])
            embeddings.append(batch_embeddings[:-1])
            turned.append((batch_logits[-1], batch_embeddings[-1]))
        labels.extend([index[tile.tile]] * len(drawn))
        owners.extend([number] * len(drawn))
        plain.append(offset)
        offset += len(drawn)
        if progress is not None:
            progress("embedding views", number + 1, len(tiles))
    anchors = classifier_anchors(classifier)
    return [Embedded(np.concatenate(logits), np.concatenate(embeddings), np.array(labels, np.int64),
                     np.array(owners, np.int64), np.array(plain, np.int64), np.stack([t[0] for t in turned]),
                     np.stack([t[1] for t in turned]), crop_zoom=zoom,
                     reader_right=np.concatenate(reader_right) if reader is not None else None,
                     anchors=None if anchors is None else anchors.at_zoom(zoom))
            for zoom, (logits, embeddings, turned) in zip(crop_zooms, read, strict=True)]


def moved_classes(data: Embedded, classes: tuple[str, ...]) -> np.ndarray:
    """Indices of the kinds a profile from `data` re-reads (see the module doc)."""
    tiles, _ = gate_indices(classes)
    read_as = tiles[data.logits[data.plain][:, tiles].argmax(axis=1)]
    return np.union1d(np.intersect1d(np.unique(data.labels), tiles), read_as).astype(np.int64)


def zero_delta(classes: Sequence[str], size: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((len(classes), size)), np.zeros(len(classes))


AnchorBlock = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # embeddings, base logits, position, weight


def anchor_block(data: Embedded, tiles: np.ndarray) -> AnchorBlock | None:
    """The anchors of the moved kinds `tiles`, ready for `fit_delta`: embeddings, logits of the moved kinds, each
    anchor's position among them, and its weight (every moved kind's anchors together weigh alike, and all of them
    `ANCHOR_WEIGHT` times the set's own crops). None without anchors, or none of those kinds."""
    if data.anchors is None:
        return None
    logits, embeddings, labels = data.anchors
    keep = np.flatnonzero(np.isin(labels, tiles))
    if not len(keep):
        return None
    position = np.full(int(max(labels.max(), tiles.max())) + 1, -1, np.int64)
    position[tiles] = np.arange(len(tiles))
    kinds, counts = np.unique(labels[keep], return_counts=True)
    per_anchor = 1.0 / (len(kinds) * counts[np.searchsorted(kinds, labels[keep])])
    return (embeddings[keep], logits[keep][:, tiles], position[labels[keep]],
            (ANCHOR_WEIGHT * per_anchor).astype(np.float32))


def fit_delta(data: Embedded, rows: np.ndarray, classes: tuple[str, ...], penalty: float, settings: FitSettings,
              steps: int, start: tuple[np.ndarray, np.ndarray] | None = None,
              moved: np.ndarray | None = None,
              anchors: AnchorBlock | bool | None = True) -> tuple[np.ndarray, np.ndarray]:
    """(dW, db) over all classes (zero rows but for the `moved` kinds, by default those of `data`) fitted on the
    crops `rows` and the anchors of the moved kinds (`anchor_block`; True: built here from `data`): weighted mean
    cross-entropy of the corrected logits of the moved kinds + penalty / 2 * (|dW|^2 + |db|^2), Adam from `start`
    (zero by default; see the module doc)."""
    tiles = moved_classes(data, classes) if moved is None else moved
    position = np.full(len(classes), -1, np.int64)
    position[tiles] = np.arange(len(tiles))
    emb, base = data.embeddings[rows], data.logits[rows][:, tiles]
    places = position[data.labels[rows]]
    weight = np.ones(len(rows), np.float32) if data.weights is None else data.weights[rows].astype(np.float32)
    weight = weight / weight.sum()
    block = anchor_block(data, tiles) if anchors is True else anchors or None
    if block is not None:  # the set's crops weigh 1 in all, the anchors ANCHOR_WEIGHT
        emb, base = np.concatenate([emb, block[0]]), np.concatenate([base, block[1]])
        places, weight = np.concatenate([places, block[2]]), np.concatenate([weight, block[3]])
    onehot = np.eye(len(tiles), dtype=np.float32)[places]
    if start is None:
        params = [np.zeros((len(tiles), emb.shape[1]), np.float32), np.zeros(len(tiles), np.float32)]
    else:
        params = [start[0][tiles].astype(np.float32), start[1][tiles].astype(np.float32)]
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
        w = weight[pick]
        error = (p - onehot[pick]) * (w / w.sum())[:, None]
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


def read_rows(data: Embedded, rows: np.ndarray, delta: tuple[np.ndarray, np.ndarray], classes: tuple[str, ...],
              moved: np.ndarray | None) -> np.ndarray:
    """Probabilities of the crops `rows` with the profile, each read as it is (a view is already turned or not)."""
    logits, emb = data.logits[rows], data.embeddings[rows]
    return profiled_probabilities(logits, emb, logits, emb, delta[0], delta[1], classes, moved)


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


VIEWS_HELD_OUT = "views of every tile"  # what `held_out_splits` holds out with one tile a kind


def only_views_held_out(left_out: str, data: Embedded) -> bool:
    """Whether a fit's held-out crops are views of its own tiles (one tile a kind: `held_out_splits`) and no anchors
    keep the familiar looks: then the held-out figure cannot say how the set's other tiles will read, and the
    shipped head's reading of the tiles themselves bounds the fit (`REACH`) or lets it pull (`pull_applies`)."""
    return left_out.startswith(VIEWS_HELD_OUT) and data.anchors is None


def held_out_splits(data: Embedded, tiles: Sequence[CalibrationTile],
                    settings: FitSettings) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """(training rows, held-out rows) of each fold (see the module doc), and what is held out."""
    fold_list, unit = folds(tiles)
    view_number = data.view_number
    if unit == "tile":  # one tile a kind: hold out views of every tile
        count = max(2, settings.view_folds)
        fold_of = np.where(view_number >= 1, (view_number - 1) % count, -1)
        if view_number.max() < count:
            return [], VIEWS_HELD_OUT
        return [(np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f)) for f in range(count)], \
            f"{VIEWS_HELD_OUT} ({count} folds)"
    few = view_number <= settings.cv_views
    splits = [(np.flatnonzero(~np.isin(data.tile_index, held) & few),
               np.flatnonzero(np.isin(data.tile_index, held) & few)) for held in fold_list]
    return splits, f"{unit} ({len(fold_list)} folds)"


def weakest_allowed(misread_share: float) -> float:
    """The weakest penalty a fit from one tile a kind may choose when the shipped head misreads this share of the
    tiles (`REACH`)."""
    return next((penalty for share, penalty in REACH if misread_share <= share), 0.0)


def reads_as_labelled(data: Embedded, tile_numbers: np.ndarray, delta: tuple[np.ndarray, np.ndarray],
                      classes: tuple[str, ...], moved: np.ndarray | None) -> np.ndarray:
    """Per tile: does the profile `delta` read its plain crop (and its 180-degree turn, as `TileClassifier` reads)
    as its label?"""
    rows = data.plain[tile_numbers]
    probs = profiled_probabilities(data.logits[rows], data.embeddings[rows], data.turned_logits[tile_numbers],
                                   data.turned_embeddings[tile_numbers], delta[0], delta[1], classes, moved)
    return probs.argmax(axis=1) == data.labels[rows]


def choose(per_tile: np.ndarray, likelihood: np.ndarray, errors: float = 1.0) -> int:
    """Index of the chosen candidate (row 0 the shipped head, then from strong to no penalty): the first whose mean
    over tiles is within `errors` standard errors of the best's, the error of their paired difference over tiles."""
    means = per_tile.mean(axis=1)
    best = max(range(len(means)), key=lambda i: (round(float(means[i]), 9), likelihood[i]))
    tiles = per_tile.shape[1]
    for i in range(len(means)):
        diff = per_tile[best] - per_tile[i]
        error = errors * float(diff.std(ddof=1) / np.sqrt(tiles)) if tiles > 1 else 0.0
        if means[i] >= means[best] - error:
            return i
    return best


def cross_validate(data: Embedded, tiles: Sequence[CalibrationTile], classes: tuple[str, ...],
                   settings: FitSettings, progress: Progress | None = None, workers: int = 1) -> dict:
    """Choose how far to move (see the module doc); the chosen candidate's figure on the held-out crops, the shipped
    head's (no profile) on the same crops, and every candidate's. The choice is made on these same folds, so the
    figure with the profile is a little optimistic. `workers`: folds fitted at once (threads: the fits are numpy,
    which lets go of the GIL in its array work)."""
    splits, left_out = held_out_splits(data, tiles, settings)
    if not splits:
        return {"penalty": settings.default_penalty, "chosen_by": "default (too few views to hold any out)",
                "accuracy": None, "accuracy_without_profile": None, "accuracy_shipped_reader": None, "tested": 0,
                "left_out": left_out, "folds": 0}
    shipped_plain = float(reads_as_labelled(data, np.arange(len(data.plain)), zero_delta(
        classes, data.embeddings.shape[1]), classes, None).mean())
    # with anchors a fit keeps the familiar looks by itself; REACH is the guard for fits without
    weakest = weakest_allowed(1.0 - shipped_plain) if only_views_held_out(left_out, data) else 0.0
    # None: the shipped head; then from strong to no penalty
    candidates: list[float | None] = [None, *[p for p in sorted(settings.penalties, reverse=True) if p >= weakest]]
    right = np.zeros((len(candidates), len(tiles)))
    counted = np.zeros(len(tiles))
    likelihood = np.zeros(len(candidates))
    zero = zero_delta(classes, data.embeddings.shape[1])
    moved = moved_classes(data, classes)
    block = anchor_block(data, moved)  # once: every fold and candidate fits with the same anchors

    def run_fold(split: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        train, test = split
        truth = data.labels[test]
        owner = data.tile_index[test]
        fold_right = np.zeros((len(candidates), len(tiles)))
        fold_likelihood = np.zeros(len(candidates))
        delta = zero
        for number, penalty in enumerate(candidates):
            if penalty is not None:  # warm start: each weaker penalty goes on from the stronger one's fit
                delta = fit_delta(data, train, classes, penalty, settings, settings.cv_steps,
                                  None if number == 1 else delta, moved, block)
            probs = read_rows(data, test, delta, classes, moved)
            fold_right[number] = np.bincount(owner, weights=probs.argmax(axis=1) == truth, minlength=len(tiles))
            fold_likelihood[number] = float(np.log(probs[np.arange(len(truth)), truth] + 1e-9).sum())
        return fold_right, fold_likelihood, np.bincount(owner, minlength=len(tiles))

    with ThreadPoolExecutor(max(1, min(workers, len(splits)))) as pool:
        for fold, (fold_right, fold_likelihood, fold_counted) in enumerate(pool.map(run_fold, splits)):
            right += fold_right
            likelihood += fold_likelihood
            counted += fold_counted
            if progress is not None:
                progress("cross-validation", fold + 1, len(splits))
    tested = counted > 0
    per_tile = right[:, tested] / counted[tested]
    chosen = choose(per_tile, likelihood)
    means = per_tile.mean(axis=1)
    reader = None
    if data.reader_right is not None:  # the shipped reader on the same held-out crops (it is fitted on none)
        held = np.concatenate([test for _, test in splits])
        reader_per_tile = np.bincount(data.tile_index[held], weights=data.reader_right[held],
                                      minlength=len(tiles))[tested] / counted[tested]
        reader = round(float(reader_per_tile.mean()), 4)
    return {"penalty": candidates[chosen], "per_tile": per_tile[chosen], "log_likelihood": float(likelihood[chosen]),
            "per_tile_shipped": per_tile[0], "anchors": len(block[0]) if block is not None else 0,
            "chosen_by": f"held-out {left_out}",
            "accuracy": round(float(means[chosen]), 4), "accuracy_without_profile": round(float(means[0]), 4),
            "accuracy_shipped_reader": reader,
            "tested": int(tested.sum()), "crops_tested": int(counted.sum()), "left_out": left_out,
            "folds": len(splits), "rule": "nearest the shipped head within one standard error of the best",
            "shipped_reads_calibration_tiles": round(shipped_plain, 4), "weakest_penalty_allowed": weakest,
            "candidates": {describe_candidate(c): {"accuracy": round(float(a), 4),
                                                   "log_likelihood": round(float(ll) / counted.sum(), 4)}
                           for c, a, ll in zip(candidates, means, likelihood, strict=True)}}


def read_without_profile(loo: dict) -> float | None:
    """How the held-out crops read without the profile: by the shipped reader where the fit asked it (profiles are
    built on another classifier file: `accuracy_shipped_reader`), else by the head the profile corrects."""
    reader = loo.get("accuracy_shipped_reader")
    return reader if reader is not None else loo.get("accuracy_without_profile")


def describe_candidate(penalty: float | None) -> str:
    return "shipped head" if penalty is None else "free head" if penalty == 0 else f"penalty {penalty:g}"


def fit_profile(classifier, tiles: Sequence[CalibrationTile], settings: FitSettings = FitSettings(),
                progress: Progress | None = None, with_loo: bool = True,
                crop_zooms: Sequence[float] = CROP_ZOOMS, reader=None) -> dict:
    """Everything a profile stores but its name and source (see `fit_embedded`), the chosen crop zoom and the
    embedded crops (`data`). With cross-validation, the views are embedded at each of `crop_zooms` and the zoom is
    chosen as the penalty is (`fit_zooms`); without it, at the first zoom. `reader`: the classifier that reads
    without a profile, when it is another file (its figure on the held-out crops: `accuracy_shipped_reader`)."""
    if not tiles:
        raise FanscanError("no calibration tiles")
    zooms = tuple(crop_zooms) if with_loo else tuple(crop_zooms)[:1]
    classes = tuple(classifier.classes)
    if len(zooms) > 1 and classifier_anchors(classifier) is not None:
        # the zoom from the shipped head's reading of a few views at each, then every view at that zoom only
        looks = embed_zooms(classifier, tiles, replace(settings, views=ZOOM_VIEWS), zooms, progress)
        chosen, readings = zoom_by_shipped_head(looks)
        data = embed(classifier, tiles, settings, progress, zooms[chosen], reader)
        return fit_anchored(data, tiles, classes, settings, progress, zooms, readings)
    embedded = embed_zooms(classifier, tiles, settings, zooms, progress, reader if with_loo else None)
    return fit_zooms(embedded, tiles, classes, settings, with_loo, progress)


def fit_zooms(embedded: Sequence[Embedded], tiles: Sequence[CalibrationTile], classes: tuple[str, ...],
              settings: FitSettings, with_loo: bool = True, progress: Progress | None = None) -> dict:
    """`fit_embedded` on the crops embedded at the chosen zoom (`choose_zoom`, from each zoom's cross-validation),
    with that zoom (`crop_zoom`) and those crops (`data`)."""
    if not with_loo:
        return fit_embedded(embedded[0], tiles, classes, settings, False, progress) | {
            "data": embedded[0], "crop_zoom": embedded[0].crop_zoom}
    if len(embedded) > 1 and embedded[0].anchors is not None:
        chosen, readings = zoom_by_shipped_head(embedded)
        return fit_anchored(embedded[chosen], tiles, classes, settings, progress, [d.crop_zoom for d in embedded],
                            readings)
    results = []
    # one zoom a core: the fits are numpy, which lets go of the GIL in its array work
    with ThreadPoolExecutor(min(len(embedded), os.cpu_count() or 1)) as pool:
        futures = [pool.submit(cross_validate, data, tiles, classes, settings) for data in embedded]
        for done, future in enumerate(futures):
            results.append(future.result())
            if progress is not None:
                progress("cross-validation", done + 1, len(futures))
    tried = list(zip(embedded, results, strict=True))
    data, loo = tried[choose_zoom(tried)]
    fitted = fit_embedded(data, tiles, classes, settings, True, progress, loo=loo)
    loo = fitted["leave_one_out"]
    if len(tried) > 1:
        loo["crop_zoom_candidates"] = {f"{d.crop_zoom:g}": {"accuracy": t["accuracy"], "penalty": t["penalty"]}
                                       for d, t in tried}
        # "without the profile" is the shipped head on the classifier's own crop: the first zoom's views (the same
        # views as every zoom's, from one seed, before zooming)
        loo["accuracy_without_profile_at_crop_zoom"] = loo["accuracy_without_profile"]
        loo["accuracy_without_profile"] = tried[0][1]["accuracy_without_profile"]
    return fitted | {"data": data, "crop_zoom": data.crop_zoom}


def shipped_head_by_zoom(embedded: Sequence[Embedded]) -> np.ndarray:
    """(zooms x tiles): the share of each tile's first `ZOOM_VIEWS` augmented views that the shipped head reads as
    its label, at each zoom (the same views, zoomed)."""
    out = []
    for data in embedded:
        views = (data.view_number >= 1) & (data.view_number <= ZOOM_VIEWS)
        right = data.logits.argmax(axis=1) == data.labels
        tiles = len(data.plain)
        out.append(np.bincount(data.tile_index[views], weights=right[views], minlength=tiles)
                   / np.maximum(np.bincount(data.tile_index[views], minlength=tiles), 1))
    return np.stack(out)


def zoom_by_shipped_head(embedded: Sequence[Embedded]) -> tuple[int, np.ndarray]:
    """With anchors: the index of the chosen zoom, and each zoom's reading per tile (`shipped_head_by_zoom`). The
    chosen zoom is the first (from the classifier's own crop) at which the shipped head reads the tiles' views within
    `ZOOM_ERRORS` standard errors of its best zoom (`choose`). A fit's own held-out views cannot choose the zoom:
    once a fit may move freely they read 0.99 at every zoom."""
    readings = shipped_head_by_zoom(embedded)
    return choose(readings, np.zeros(len(readings)), ZOOM_ERRORS), readings


def fit_anchored(data: Embedded, tiles: Sequence[CalibrationTile], classes: tuple[str, ...], settings: FitSettings,
                 progress: Progress | None, zooms: Sequence[float], readings: np.ndarray) -> dict:
    """`fit_embedded` on `data`, the crops embedded at the zoom `zoom_by_shipped_head` chose (cross-validation folds
    on every core), with that zoom, those crops and what chose the zoom (each of `zooms`' `readings`)."""
    fitted = fit_embedded(data, tiles, classes, settings, True, progress, workers=WORKERS)
    loo = fitted["leave_one_out"]
    if loo is not None:
        loo["crop_zoom_candidates"] = {f"{z:g}": {"shipped_head_reads_views": round(float(r), 4)}
                                       for z, r in zip(zooms, readings.mean(axis=1), strict=True)}
        loo["crop_zoom_rule"] = (f"the first zoom from 1 at which the shipped head reads {ZOOM_VIEWS} views of each "
                                 f"tile within {ZOOM_ERRORS:g} standard errors of its best zoom (anchored fit: "
                                 "calibration.anchors)")
    return fitted | {"data": data, "crop_zoom": data.crop_zoom}


def choose_zoom(tried: Sequence[tuple[Embedded, dict]]) -> int:
    """Index of the chosen crop zoom among (crops embedded at it, their cross-validation), zooms increasing: the rule
    of the penalty (`choose`: the first within one standard error of the best) over each zoom's chosen candidate's
    held-out reading per tile, so a set whose held-out views do not read clearly better closer in keeps the
    classifier's own crop."""
    per_tile = [loo.get("per_tile") for _, loo in tried]
    if len(tried) == 1 or any(p is None for p in per_tile):  # no figure per tile: too few views to hold any out
        return 0
    return choose(np.stack(per_tile), np.array([loo["log_likelihood"] for _, loo in tried]))


def fit_embedded(data: Embedded, tiles: Sequence[CalibrationTile], classes: tuple[str, ...], settings: FitSettings,
                 with_loo: bool = True, progress: Progress | None = None, loo: dict | None = None,
                 workers: int = 1) -> dict:
    """(dW, db), the cross-validation (None without it: then the default penalty; `loo`: already run on `data`;
    `workers`: its folds fitted at once), the penalty, counts, settings."""
    if loo is None and with_loo:
        loo = cross_validate(data, tiles, classes, settings, progress, workers)
    if loo is not None:
        loo = {k: v for k, v in loo.items() if k not in ("per_tile", "log_likelihood", "per_tile_shipped")}
    penalty = loo["penalty"] if loo else settings.default_penalty
    moved = moved_classes(data, classes)
    delta = zero_delta(classes, data.embeddings.shape[1]) if penalty is None else \
        fit_delta(data, np.arange(len(data.labels)), classes, penalty, settings, settings.steps, moved=moved)
    pull = settings.prototype_pull if pull_applies(loo, penalty, data) else 0.0
    if pull:
        delta = pull_toward_prototypes(data, delta, classes, pull)
    counts: dict[str, int] = {}
    for tile in tiles:
        counts[tile.tile] = counts.get(tile.tile, 0) + 1
    return {"delta": delta, "moved": tuple(classes[i] for i in moved), "leave_one_out": loo, "penalty": penalty,
            "prototype_pull": pull, "tile_counts": counts,
            "photos": len({t.photo for t in tiles}), "settings": asdict(settings), "crops_embedded": len(data.labels)}


def pull_applies(loo: dict | None, penalty: float | None, data: Embedded) -> bool:
    """Whether a fit gets the prototype pull (`PROTOTYPE_PULL`): one tile a kind (its views held out), no anchors, a
    fit that moves (not the shipped head), and a shipped head that misreads at least one calibration tile."""
    if loo is None or penalty is None or not only_views_held_out(loo["left_out"], data):
        return False
    shipped_reads = loo.get("shipped_reads_calibration_tiles")  # absent where too few views to hold any out
    return shipped_reads is not None and shipped_reads < 1.0


def pull_toward_prototypes(data: Embedded, delta: tuple[np.ndarray, np.ndarray], classes: tuple[str, ...],
                           pull: float) -> tuple[np.ndarray, np.ndarray]:
    """`delta` with each calibrated kind's row moved `pull` x its prototype: the mean of its crops' unit-length
    embeddings, made unit length, over the crops' mean embedding norm (so that the added logit is about `pull` x the
    cosine between a crop and the prototype). Linear in the embedding, so a profile file stores it as any delta."""
    weight = delta[0].copy()
    tiles, _ = gate_indices(classes)
    norms = np.linalg.norm(data.embeddings, axis=1, keepdims=True)
    unit = data.embeddings / np.maximum(norms, 1e-12)
    mean_norm = max(float(norms.mean()), 1e-12)
    for kind in np.intersect1d(np.unique(data.labels), tiles):
        prototype = unit[data.labels == kind].mean(axis=0)
        weight[kind] += pull * prototype / max(float(np.linalg.norm(prototype)), 1e-12) / mean_norm
    return weight, delta[1]
