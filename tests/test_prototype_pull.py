"""The prototype pull of a one-tile-a-kind profile (`calibration.fit.pull_toward_prototypes`, `pull_applies`): what it
adds to each row is computed here from the definition (a cosine with the kind's mean unit embedding, scaled by the
pull over the crops' mean norm), and when it applies is checked against each of its conditions."""

from __future__ import annotations

import numpy as np
import pytest

from fanscan.calibration.fit import Embedded, pull_applies, pull_toward_prototypes

CLASSES = ("1m", "2m", "3m", "back", "none")


def embedded(embeddings: np.ndarray, labels: list[int]) -> Embedded:
    n = len(labels)
    return Embedded(np.zeros((n, len(CLASSES)), np.float32), embeddings.astype(np.float32), np.array(labels),
                    np.arange(n), np.arange(n), np.zeros((n, len(CLASSES)), np.float32),
                    embeddings.astype(np.float32))


def test_each_calibrated_row_gains_the_pull_times_the_cosine_with_its_kinds_mean_direction():
    rng = np.random.default_rng(3)
    embeddings = rng.normal(0, 1, (6, 8)) + 2.0
    labels = [0, 0, 0, 2, 2, 2]  # 1m and 3m calibrated, 2m not
    data = embedded(embeddings, labels)
    weight, bias = rng.normal(0, 1, (len(CLASSES), 8)), rng.normal(0, 1, len(CLASSES))
    pulled_weight, pulled_bias = pull_toward_prototypes(data, (weight, bias), CLASSES, 16.0)
    probe = rng.normal(0, 1, 8)
    norms = np.linalg.norm(embeddings, axis=1)
    for kind in (0, 2):
        members = embeddings[np.array(labels) == kind]
        direction = (members / np.linalg.norm(members, axis=1, keepdims=True)).mean(axis=0)
        direction /= np.linalg.norm(direction)
        expected = 16.0 * float(probe @ direction) / norms.mean()
        assert probe @ (pulled_weight[kind] - weight[kind]) == pytest.approx(expected, rel=1e-5)
    # a crop along the mean direction, of the mean norm, gains exactly the pull on its kind's logit
    members = embeddings[:3] / norms[:3, None]
    along = members.mean(axis=0) / np.linalg.norm(members.mean(axis=0)) * norms.mean()
    assert along @ (pulled_weight[0] - weight[0]) == pytest.approx(16.0, rel=1e-5)
    # the uncalibrated kind, back and none keep their rows; the bias is untouched
    for kind in (1, 3, 4):
        np.testing.assert_array_equal(pulled_weight[kind], weight[kind])
    np.testing.assert_array_equal(pulled_bias, bias)
    assert weight is not pulled_weight  # the delta given is not changed in place


def test_the_pull_applies_only_to_a_moving_one_tile_a_kind_fit_whose_shipped_head_misreads_a_tile():
    data = embedded(np.ones((2, 4)), [0, 1])
    misread = {"left_out": "views of every tile (3 folds)", "shipped_reads_calibration_tiles": 0.97}
    assert pull_applies(misread, 0.1, data)
    assert pull_applies(misread | {"shipped_reads_calibration_tiles": 0.0}, 0.1, data)  # all misread
    assert not pull_applies(misread | {"shipped_reads_calibration_tiles": 1.0}, 0.1, data)  # all read right
    assert not pull_applies(misread, None, data)  # the shipped head chosen: the fit does not move
    assert not pull_applies(None, 0.05, data)  # no cross-validation (--no-loo)
    assert not pull_applies(misread | {"left_out": "photo (5 folds)"}, 0.1, data)  # several tiles a kind
    assert not pull_applies(misread | {"shipped_reads_calibration_tiles": None}, 0.1, data)
    anchored = Embedded(**{**data.__dict__, "anchors": (np.zeros((1, 5)), np.zeros((1, 4)), np.zeros(1))})
    assert not pull_applies(misread, 0.1, anchored)
