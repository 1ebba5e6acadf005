"""Profile anchors (`fanscan.calibration.anchors`): the file, its checks, and what anchors do to a fit.

The fit's behaviour is checked on synthetic embeddings with a known answer (as tests/test_profile_fit.py does): a
stranger's tile kind A drawn like the model's kind B plus a mark of its own, in a hand without a B. A free fit on
that hand alone learns "B's look is A" and then reads the familiar B as A; with B's anchors it must keep B and learn
A by its mark. Truth comes from the construction, not from the fit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import DEFAULT_MODEL, PROFILE_MODEL, TileClassifier
from fanscan.vision.profile import profiled_probabilities
from fanscan.vision.splits import TRAIN as TRAIN_SPLIT
from fanscan.vision.splits import split_of

from fanscan.calibration import anchors as anchors_module
from fanscan.calibration.anchors import Anchors, classifier_anchors, read_anchors, save_anchors
from fanscan.calibration.fit import (
    ANCHOR_WEIGHT,
    CROP_ZOOMS,
    Embedded,
    FitSettings,
    anchor_block,
    fit_delta,
    moved_classes,
    zoom_by_shipped_head,
)
from fanscan.calibration.sources import tiles_from_yolo

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT.parent / "shared" / "data" / "chinese-mahjong-v4" / "train"
SAMPLES = ROOT / "datasets" / "samples"
KINDS = tuple(f"{n}p" for n in range(1, 9))
CLASSES = (*KINDS, "back", "none")
SIZE = 24
MARK = 3.0  # length of the stranger A's own mark (the noise is 0.4 a feature)


def shipped_logits(embeddings: np.ndarray, centres: np.ndarray) -> np.ndarray:
    tiles = 1.0 * (embeddings @ centres.T - 0.5 * (centres**2).sum(axis=1))
    return np.hstack([tiles, np.full((len(embeddings), 2), -50.0)]).astype(np.float32)


def small_anchors(rng: np.random.Generator, zooms=(1.0, 1.1)) -> Anchors:
    labels = np.repeat(np.arange(len(KINDS)), 3)
    return Anchors("0" * 64, CLASSES, zooms, labels, rng.normal(0, 1, (len(zooms), len(labels), len(CLASSES))),
                   rng.normal(0, 1, (len(zooms), len(labels), SIZE)))


def test_anchors_file_round_trip(tmp_path):
    anchors = small_anchors(np.random.default_rng(0))
    save_anchors(tmp_path / "a.npz", anchors)
    read = read_anchors(tmp_path / "a.npz")
    assert read.classes == CLASSES and read.zooms == (1.0, 1.1)
    assert np.array_equal(read.labels, anchors.labels)
    logits, embeddings, _ = read.at_zoom(1.1)
    assert np.allclose(logits, anchors.logits[1], atol=1e-2) and np.allclose(embeddings, anchors.embeddings[1],
                                                                              atol=1e-2)
    assert read.at_zoom(1.3) is None


@pytest.mark.parametrize("damage", ["bytes", "nan", "labels", "shape", "format"])
def test_a_damaged_anchors_file_is_one_line_error(tmp_path, damage):
    path = tmp_path / "a.npz"
    anchors = small_anchors(np.random.default_rng(1))
    if damage == "bytes":
        path.write_bytes(b"PK\x03\x04 not really a zip file")
    else:
        meta = {"format": "fanscan-profile-anchors", "version": 1, "classifier_sha256": "0" * 64,
                "classes": list(CLASSES), "zooms": [1.0, 1.1]}
        logits, labels, embeddings = anchors.logits.copy(), anchors.labels.copy(), anchors.embeddings.copy()
        if damage == "nan":
            embeddings[0, 3, 2] = np.nan
        elif damage == "labels":
            labels[0] = len(CLASSES) + 5
        elif damage == "shape":
            logits = logits[:, :-1]
        else:
            meta["format"] = "something else"
        np.savez(path, meta=np.array(json.dumps(meta)), labels=labels, logits=logits, embeddings=embeddings)
    with pytest.raises(FanscanError) as error:
        read_anchors(path)
    message = str(error.value)
    assert "\n" not in message and str(path) in message


@pytest.fixture(scope="module")
def built_anchors(tmp_path_factory):
    """Anchors built as `python -m fanscan.training.build_profile_anchors` builds them, two a tile kind."""
    if not TRAIN.is_dir():
        pytest.skip("needs ../shared/data/chinese-mahjong-v4")
    from fanscan.training.build_profile_anchors import build

    path = tmp_path_factory.mktemp("anchors") / "anchors.npz"
    save_anchors(path, build(TRAIN, PROFILE_MODEL, per_kind=2))
    return path


def test_anchors_come_from_the_training_split_and_belong_to_their_classifier(built_anchors, monkeypatch):
    monkeypatch.setattr(anchors_module, "anchors_path", lambda: built_anchors)
    profile_classifier = TileClassifier(PROFILE_MODEL)
    anchors = classifier_anchors(profile_classifier)
    assert anchors is not None and anchors.classifier_sha256 == profile_classifier.sha256
    assert anchors.zooms == tuple(CROP_ZOOMS)
    tiles = [i for i, c in enumerate(anchors.classes) if c not in ("back", "none")]
    assert set(np.unique(anchors.labels)) == set(tiles)
    assert np.bincount(anchors.labels).max() <= 2
    assert anchors.photos and all(split_of(photo) == TRAIN_SPLIT for photo in anchors.photos)
    # labelled tiles of the training split: the classifier trained on them reads them as labelled
    assert (anchors.logits[0].astype(np.float32).argmax(axis=1) == anchors.labels).mean() > 0.9
    if TileClassifier(DEFAULT_MODEL).sha256 != profile_classifier.sha256:
        assert classifier_anchors(TileClassifier(DEFAULT_MODEL)) is None


def test_a_fit_with_anchors_chooses_its_zoom_by_the_shipped_head(built_anchors, monkeypatch):
    from fanscan.calibration.fit import fit_profile

    tiles = [t for t in tiles_from_yolo(SAMPLES)][:12]
    settings = FitSettings(views=6, steps=20, cv_steps=10)
    classifier = TileClassifier(PROFILE_MODEL)
    monkeypatch.setattr(anchors_module, "anchors_path", lambda: built_anchors)
    anchored = fit_profile(classifier, tiles, settings)
    assert anchored["leave_one_out"]["anchors"] > 0
    assert set(anchored["leave_one_out"]["crop_zoom_candidates"]) == {f"{z:g}" for z in CROP_ZOOMS}
    assert "crop_zoom_rule" in anchored["leave_one_out"]
    assert anchored["data"].anchors is not None
    monkeypatch.setattr(anchors_module, "anchors_path", lambda: built_anchors.with_name("missing.npz"))
    plain = fit_profile(classifier, tiles, settings)
    assert plain["leave_one_out"]["anchors"] == 0 and "crop_zoom_rule" not in plain["leave_one_out"]


def test_anchors_of_another_classifier_are_not_used(tmp_path, monkeypatch):
    path = tmp_path / "anchors.npz"
    save_anchors(path, small_anchors(np.random.default_rng(2)))  # sha "000...": no classifier's
    monkeypatch.setattr(anchors_module, "anchors_path", lambda: path)
    assert classifier_anchors(TileClassifier(PROFILE_MODEL)) is None


def test_anchor_block_weighs_every_moved_kind_alike():
    rng = np.random.default_rng(3)
    labels = np.array([0] * 10 + [1] * 2 + [2] * 5)
    data = Embedded(np.zeros((1, len(CLASSES))), np.zeros((1, SIZE)), np.zeros(1, np.int64), np.zeros(1, np.int64),
                    np.zeros(1, np.int64), np.zeros((1, len(CLASSES))), np.zeros((1, SIZE)),
                    anchors=(rng.normal(0, 1, (len(labels), len(CLASSES))), rng.normal(0, 1, (len(labels), SIZE)),
                             labels))
    embeddings, logits, places, weights = anchor_block(data, np.array([0, 1]))
    assert len(embeddings) == 12 and logits.shape == (12, 2)  # kind 2 is not moved: its anchors stay out
    assert set(places[:10]) == {0} and set(places[10:]) == {1}
    assert weights[:10].sum() == pytest.approx(ANCHOR_WEIGHT / 2)
    assert weights[10:].sum() == pytest.approx(ANCHOR_WEIGHT / 2)


def stranger_case(seed: int):
    """(calibration data with and without anchors, familiar B draws, stranger A draws, the shipped centres)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 1, (len(KINDS), SIZE)) * 1.6
    mark = rng.normal(0, 1, SIZE)
    mark *= MARK / np.linalg.norm(mark)
    a, b = 0, 1
    stranger = centres.copy()
    stranger[a] = centres[b] + mark  # the stranger's A looks like the model's B, with a mark of its own
    hand = [k for k in range(len(KINDS)) if k != b]  # a hand without a B
    views = 24
    embeddings, labels, owners, plain = [], [], [], []
    for number, kind in enumerate(hand):
        drawn = stranger[kind] + rng.normal(0, 0.4, (views + 1, SIZE))
        plain.append(len(labels))
        embeddings.append(drawn)
        labels.extend([kind] * (views + 1))
        owners.extend([number] * (views + 1))
    emb = np.concatenate(embeddings).astype(np.float32)
    turned = emb[plain]
    anchor_labels = np.repeat(np.arange(len(KINDS)), 30)
    anchor_emb = (centres[anchor_labels] + rng.normal(0, 0.4, (len(anchor_labels), SIZE))).astype(np.float32)
    common = (shipped_logits(emb, centres), emb, np.array(labels), np.array(owners), np.array(plain),
              shipped_logits(turned, centres), turned)
    without = Embedded(*common)
    anchored = Embedded(*common, anchors=(shipped_logits(anchor_emb, centres), anchor_emb, anchor_labels))
    familiar_b = (centres[b] + rng.normal(0, 0.4, (200, SIZE))).astype(np.float32)
    stranger_a = (stranger[a] + rng.normal(0, 0.4, (200, SIZE))).astype(np.float32)
    return without, anchored, familiar_b, stranger_a, centres


def read_share(data: Embedded, delta, emb: np.ndarray, centres: np.ndarray, kind: int) -> float:
    moved = moved_classes(data, CLASSES)
    logits = shipped_logits(emb, centres)
    probs = profiled_probabilities(logits, emb, logits, emb, delta[0], delta[1], CLASSES, moved)
    return float((probs.argmax(axis=1) == kind).mean())


@pytest.mark.parametrize("seed", [0, 1])
def test_anchors_let_a_free_fit_learn_a_stranger_without_forgetting_the_familiar_look(seed):
    without, anchored, familiar_b, stranger_a, centres = stranger_case(seed)
    settings = FitSettings(steps=300)
    assert read_share(without, (np.zeros((len(CLASSES), SIZE)), np.zeros(len(CLASSES))), stranger_a, centres,
                      0) < 0.2  # the shipped head reads the stranger's A as B
    rows = np.arange(len(without.labels))
    free = fit_delta(without, rows, CLASSES, 0.0, settings, settings.steps, anchors=None)
    held = fit_delta(anchored, rows, CLASSES, 0.0, settings, settings.steps)
    assert read_share(without, free, stranger_a, centres, 0) > 0.9
    assert read_share(without, free, familiar_b, centres, 1) < 0.2  # without anchors the familiar B is lost
    assert read_share(anchored, held, stranger_a, centres, 0) > 0.9
    assert read_share(anchored, held, familiar_b, centres, 1) > 0.9


def zoomed_copies(right: list[list[int]], views: int = 20) -> list[Embedded]:
    """Tiles of kind 0 (one per column of `right`); at each zoom (row) the shipped head reads the first n of a
    tile's views right."""
    out = []
    tiles = len(right[0])
    for zoom, row in zip((1.0, 1.08, 1.15, 1.22), right, strict=True):
        logits = np.zeros((tiles * (views + 1), len(CLASSES)), np.float32)
        logits[:, 1] = 1.0
        for tile, n in enumerate(row):
            logits[tile * (views + 1): tile * (views + 1) + 1 + n, 0] = 2.0  # its plain crop and first n views
        plain = np.arange(tiles) * (views + 1)
        out.append(Embedded(logits, np.zeros((len(logits), SIZE), np.float32), np.zeros(len(logits), np.int64),
                            np.repeat(np.arange(tiles), views + 1), plain, logits[plain],
                            np.zeros((tiles, SIZE)), crop_zoom=zoom))
    return out


def test_zoom_by_shipped_head_reads_the_first_views_of_each_tile():
    chosen, readings = zoom_by_shipped_head(zoomed_copies([[4], [9], [12], [7]]))
    assert chosen == 2  # one tile: no spread to weigh a gain against
    assert readings[:, 0] == pytest.approx([4 / 16, 9 / 16, 12 / 16, 7 / 16])  # of the first 16 views
    assert zoom_by_shipped_head(zoomed_copies([[10], [16], [16], [3]]))[0] == 1  # a tie: the nearer zoom


def test_a_closer_zoom_must_read_clearly_better_on_the_tiles_to_be_chosen():
    tiles = 12
    flat = [10] * tiles
    one_tile_better = [16] + [10] * (tiles - 1)  # a gain on one tile of twelve: noise
    every_tile_better = [14] * tiles
    assert zoom_by_shipped_head(zoomed_copies([flat, flat, flat, one_tile_better]))[0] == 0
    assert zoom_by_shipped_head(zoomed_copies([flat, flat, every_tile_better, flat]))[0] == 2
