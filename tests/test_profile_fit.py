"""The set profile's fit on synthetic embeddings with a known answer: it must help where the set is shifted away
from what the shipped head knows, and not hurt where it is not.

A synthetic "classifier": tile kinds with known embedding centres; the shipped head is the nearest-centre rule for
those centres (so it is right for an unshifted set). A shifted set draws each kind's embeddings around centres moved
halfway toward another kind's (another maker's 6m drawn like the model's 9m). The expectations come from the
construction, not from the fit: the shipped head's accuracy and the best possible accuracy (the nearest-centre rule
with the set's true centres) on the same test draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from fanscan.vision.profile import profiled_probabilities

from fanscan.calibration.fit import Embedded, FitSettings, fit_embedded
from fanscan.calibration.sources import CalibrationTile

KINDS = tuple(f"{n}m" for n in range(1, 9))
CLASSES = (*KINDS, "back", "none")
SIZE = 24
NOISE = 0.55


def shipped_logits(embeddings: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Nearest-centre logits for the tile kinds; back/none far below (every crop here is a tile)."""
    tiles = 4.0 * (embeddings @ centres.T - 0.5 * (centres**2).sum(axis=1))
    return np.hstack([tiles, np.full((len(embeddings), 2), -50.0)]).astype(np.float32)


def draw(centres: np.ndarray, labels: np.ndarray, rng: np.random.Generator, noise: float = NOISE) -> np.ndarray:
    return (centres[labels] + rng.normal(0, noise, (len(labels), SIZE))).astype(np.float32)


def calibration(set_centres: np.ndarray, shipped: np.ndarray, photos: int, views: int, rng: np.random.Generator,
                tile_spread: float):
    """`photos` photos of one tile of every kind, each tile with `views` noisy views (the first one its plain crop)."""
    tiles, logits, embeddings, labels, owners, plain, turned = [], [], [], [], [], [], []
    for photo in range(photos):
        for kind in range(len(KINDS)):
            number = len(tiles)
            tiles.append(CalibrationTile(np.zeros((4, 4, 3), np.uint8), np.zeros((4, 2), np.float32), KINDS[kind],
                                         f"photo-{photo}"))
            tile_centre = set_centres[kind] + rng.normal(0, tile_spread, SIZE)  # this physical tile
            views_emb = draw(tile_centre[None], np.zeros(views + 1, np.int64), rng)
            plain.append(len(labels))
            embeddings.append(views_emb)
            logits.append(shipped_logits(views_emb, shipped))
            labels.extend([kind] * (views + 1))
            owners.extend([number] * (views + 1))
            turned.append(draw(tile_centre[None], np.zeros(1, np.int64), rng)[0])
    turned_emb = np.stack(turned)
    data = Embedded(np.concatenate(logits), np.concatenate(embeddings), np.array(labels), np.array(owners),
                    np.array(plain), shipped_logits(turned_emb, shipped), turned_emb)
    return data, tiles


def accuracies(set_centres: np.ndarray, shipped: np.ndarray, photos: int, seed: int,
               tile_spread: float = 0.2) -> tuple[float, float, float]:
    """(with the profile, shipped head, best possible) on 400 test tiles of the set. `tile_spread`: how far one
    physical tile's look lies from its kind's centre (calibration and test tiles are different tiles)."""
    rng = np.random.default_rng(seed)
    data, tiles = calibration(set_centres, shipped, photos, views=16, rng=rng, tile_spread=tile_spread)
    fitted = fit_embedded(data, tiles, CLASSES, FitSettings(steps=150, cv_steps=80))
    truth = rng.integers(0, len(KINDS), 400)
    test_tiles = draw(set_centres, truth, rng, tile_spread)
    test, test_turned = draw(test_tiles, np.arange(len(truth)), rng), draw(test_tiles, np.arange(len(truth)), rng)
    probs = profiled_probabilities(shipped_logits(test, shipped), test, shipped_logits(test_turned, shipped),
                                   test_turned, *fitted["delta"], CLASSES,
                                   np.array([CLASSES.index(c) for c in fitted["moved"]]))
    with_profile = float((probs.argmax(axis=1) == truth).mean())
    without = float((shipped_logits(test, shipped).argmax(axis=1) == truth).mean())
    best = float((shipped_logits(test, set_centres).argmax(axis=1) == truth).mean())  # Bayes rule: equal spreads
    return with_profile, without, best


@pytest.fixture(scope="module")
def centres() -> np.ndarray:
    return np.random.default_rng(5).normal(0, 1.0, (len(KINDS), SIZE))


@pytest.mark.parametrize(("photos", "within_best"), [(1, 0.06), (2, 0.03)])
def test_profile_reads_a_shifted_set_near_the_best_possible(centres, photos, within_best):
    """From one tile a kind on, the held-out crops say how far to move (one tile a kind: its views)."""
    moved = centres.copy()
    for kind, toward in ((5, 7), (6, 7), (0, 2), (3, 4)):  # 6m and 7m drift toward 8m, 1m toward 3m, 4m toward 5m
        moved[kind] = 0.45 * centres[kind] + 0.55 * centres[toward]
    with_profile, without, best = accuracies(moved, centres, photos, seed=photos)
    assert without < best - 0.15  # the construction does shift the set (else this test would prove nothing)
    assert with_profile > without + 0.2 and with_profile >= best - within_best, (with_profile, without, best)


@pytest.mark.parametrize("photos", [1, 2])
def test_profile_does_not_hurt_a_set_the_shipped_head_knows(centres, photos):
    with_profile, without, best = accuracies(centres, centres, photos, seed=10 + photos)
    assert without == best  # the shipped head is the best rule for this set
    assert with_profile >= without - 0.02, (with_profile, without)


@pytest.mark.parametrize("photos", [1, 2])
def test_the_choice_follows_the_evidence(centres, photos):
    """A set the shipped head reads right keeps the shipped head (no correction at all); a set it reads badly gets a
    weak penalty or none (the free end), whatever the number of photos."""
    moved = centres.copy()
    for kind, toward in ((5, 7), (6, 7), (0, 2), (3, 4)):
        moved[kind] = 0.45 * centres[kind] + 0.55 * centres[toward]
    rng = np.random.default_rng(20 + photos)
    chosen = {}
    for name, set_centres in (("known", centres), ("shifted", moved)):
        data, tiles = calibration(set_centres, centres, photos, views=16, rng=rng, tile_spread=0.2)
        fitted = fit_embedded(data, tiles, CLASSES, FitSettings(steps=150, cv_steps=80))
        chosen[name] = fitted["penalty"], fitted["leave_one_out"]
    assert chosen["known"][0] is None, chosen["known"]
    shifted, evidence = chosen["shifted"]
    assert shifted is not None and shifted <= 0.01, evidence
    assert evidence["accuracy"] > evidence["accuracy_without_profile"] + 0.2, evidence


def test_kinds_without_calibration_crops_stay_the_shipped_heads_call(centres):
    """A profile from three kinds (one confirmed hand, say), even at the free end, must read a crop of any other kind
    exactly as the shipped head does: it knows nothing of how this set draws them."""
    moved = centres.copy()
    moved[0] = 0.45 * centres[0] + 0.55 * centres[2]
    data, tiles = calibration(moved, centres, 1, views=16, rng=np.random.default_rng(4), tile_spread=0.2)
    keep = [i for i, t in enumerate(tiles) if t.tile in ("1m", "2m", "3m")]
    from fanscan.calibration.fit import fit_delta, moved_classes, subset

    few = subset(data, keep)
    chosen = moved_classes(few, CLASSES)
    delta = fit_delta(few, np.arange(len(few.labels)), CLASSES, 0.0, FitSettings(), 150)
    assert np.abs(delta[0][0]).max() > 0  # the shifted 1m did move
    others = np.flatnonzero(~np.isin(data.tile_index, keep) & ~np.isin(data.labels, chosen))
    assert len(others) > 50
    probs = profiled_probabilities(data.logits[others], data.embeddings[others], data.logits[others],
                                   data.embeddings[others], *delta, CLASSES, chosen)
    shipped = np.exp(data.logits[others] - data.logits[others].max(axis=1, keepdims=True))
    shipped /= shipped.sum(axis=1, keepdims=True)
    assert (probs.argmax(axis=1) == shipped.argmax(axis=1)).all()
    not_moved = np.setdiff1d(np.arange(len(CLASSES)), chosen)
    np.testing.assert_allclose(probs[:, not_moved], shipped[:, not_moved], rtol=1e-4, atol=1e-6)


def test_profile_from_some_sample_photos_reads_the_others_no_worse(tmp_path):
    """Real photos the shipped classifier reads well: a profile built (with its cross-validation) on 6 of the
    sample photos must read the labelled tiles of 6 others at most one point below the shipped classifier."""
    import shutil
    from pathlib import Path

    import cv2
    from fanscan.vision.classify import TileClassifier
    from fanscan.vision.crops import crop_box
    from fanscan.vision.dataset_classes import guess_table
    from fanscan.vision.profile import SetProfile
    from fanscan.vision.yolo_data import iter_split, read_class_names

    from fanscan.calibration.fit import fit_profile
    from fanscan.calibration.sources import tiles_from_yolo

    samples = Path(__file__).resolve().parents[1] / "datasets" / "samples"
    images = sorted((samples / "images").iterdir())[:12]
    calibration = tmp_path / "calibration"
    (calibration / "images").mkdir(parents=True)
    (calibration / "labels").mkdir()
    shutil.copy(samples / "data.yaml", calibration / "data.yaml")
    for image in images[::2]:
        shutil.copy(image, calibration / "images" / image.name)
        shutil.copy(samples / "labels" / f"{image.stem}.txt", calibration / "labels" / f"{image.stem}.txt")
    shipped = TileClassifier()
    settings = FitSettings(views=4, cv_views=4, steps=100, cv_steps=60)
    fitted = fit_profile(shipped, tiles_from_yolo(calibration), settings)
    profiled = TileClassifier(profile=SetProfile("half", "samples", "", shipped.sha256, tuple(shipped.classes),
                                                 *fitted["delta"]))
    names = read_class_names(samples / "data.yaml")
    table = guess_table(names)
    test_names = {image.name for image in images[1::2]}
    crops, truth = [], []
    for item in iter_split(samples):
        if item.image_path.name not in test_names:
            continue
        image = cv2.imread(str(item.image_path))
        for box in item.boxes:
            crops.append(crop_box(image, box.to_pixels(image.shape[1], image.shape[0]), shipped.crop_spec))
            truth.append(table[names[box.class_index]])
    assert len(truth) > 60

    def accuracy(classifier: TileClassifier) -> float:
        return float(np.mean([classifier.classes[i] == t
                              for i, t in zip(classifier.probabilities(crops).argmax(axis=1), truth, strict=True)]))

    assert accuracy(profiled) >= accuracy(shipped) - 0.01


def test_calibrating_on_photos_the_model_reads_right_keeps_the_shipped_head():
    """Issue: on the sample photos, a set the model knows, calibrate chose the strongest correction it had (every
    candidate read the held-out photos right, and the tie went to the highest likelihood, the weakest penalty)."""
    from pathlib import Path

    from fanscan.vision.classify import TileClassifier

    from fanscan.calibration.fit import fit_profile
    from fanscan.calibration.sources import tiles_from_yolo
    from fanscan.calibration.views import plain_crop

    shipped = TileClassifier()
    tiles = tiles_from_yolo(Path(__file__).resolve().parents[1] / "datasets" / "samples")
    read = [r[0][0] for r in shipped.classify([plain_crop(t, shipped.crop_spec) for t in tiles], k=1)]
    assert np.mean([r == t.tile for r, t in zip(read, tiles, strict=True)]) > 0.97  # the model knows this set
    fitted = fit_profile(shipped, tiles, FitSettings(views=4, cv_views=4, steps=60, cv_steps=40))
    assert fitted["leave_one_out"]["left_out"].startswith("photo")
    assert fitted["penalty"] is None, fitted["leave_one_out"]
