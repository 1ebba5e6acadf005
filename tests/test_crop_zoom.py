"""A set profile's crop zoom: the crop helper, the profile file field, the classifier reading through it, and the
fit's choice of a zoom from the set's own held-out views."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import TileClassifier
from fanscan.vision.crops import zoom_crop
from fanscan.vision.profile import SetProfile, load_profile
from test_profile_fit import CLASSES, KINDS, calibration, shipped_logits

from fanscan.calibration.fit import FitSettings, fit_zooms
from fanscan.calibration.profile_file import save_profile


def framed_crop(border: int) -> np.ndarray:
    """An 80 x 64 crop: white inside, a black frame `border` pixels wide (a loose box's margin)."""
    crop = np.zeros((80, 64, 3), np.uint8)
    crop[border:80 - border, border:64 - border] = 255
    return crop


def test_zoom_crop_leaves_only_the_centre():
    crop = framed_crop(8)  # the white inside is 48 of 64 wide, 64 of 80 tall: zoom 80/64 = 1.25 fills it vertically
    zoomed = zoom_crop(crop, 1.4)  # 64/1.4 = 45.7 wide and 80/1.4 = 57 tall: inside the white on both axes
    assert zoomed.shape == crop.shape
    assert zoomed.min() >= 250  # no frame left anywhere
    plain = zoom_crop(crop, 1.0)
    assert plain is crop
    slight = zoom_crop(crop, 1.1)  # 58 x 73: the frame still shows at the edges, thinner
    assert slight[:, 0].max() == 0 and 0 < int((slight[40] == 0).all(axis=1).sum()) < 16


@pytest.mark.parametrize("zoom", [0.9, float("nan"), float("inf")])
def test_zoom_crop_refuses_a_zoom_below_one_or_not_finite(zoom):
    with pytest.raises(FanscanError, match="crop zoom"):
        zoom_crop(framed_crop(4), zoom)


def make_profile(classifier: TileClassifier, zoom: float = 1.0) -> SetProfile:
    rng = np.random.default_rng(3)
    classes = tuple(classifier.classes)
    size = classifier.logits_and_embeddings([framed_crop(4)])[1].shape[1]
    return SetProfile("zoomed", "test", "2026-12-06", classifier.sha256, classes,
                      (rng.normal(0, 1, (len(classes), size)) * 0.05).astype(np.float32),
                      np.zeros(len(classes), np.float32), crop_zoom=zoom)


def rewritten_meta(path, out, change) -> None:
    """`out`: the profile file `path` with `change` applied to its JSON meta, its arrays as they were."""
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    change(meta)
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(out, **arrays)


def test_profile_file_keeps_its_crop_zoom_and_old_files_read_one(tmp_path):
    classifier = TileClassifier()
    path = save_profile(make_profile(classifier, 1.15), tmp_path / "set.npz")
    assert load_profile(path).crop_zoom == 1.15
    rewritten_meta(path, tmp_path / "old.npz", lambda meta: meta.pop("crop_zoom"))  # an older profile's meta
    assert load_profile(tmp_path / "old.npz").crop_zoom == 1.0


@pytest.mark.parametrize("zoom", [5.0, 0.5, "1.1", True, None])
def test_damaged_crop_zoom_is_one_line(tmp_path, zoom):
    classifier = TileClassifier()
    path = save_profile(make_profile(classifier), tmp_path / "set.npz")
    rewritten_meta(path, tmp_path / "bad.npz", lambda meta: meta.update(crop_zoom=zoom))
    with pytest.raises(FanscanError) as error:
        load_profile(tmp_path / "bad.npz")
    assert "crop_zoom" in str(error.value) and "\n" not in str(error.value)


def test_a_zoomed_profile_reads_each_crop_zoomed():
    rng = np.random.default_rng(8)
    crops = [rng.integers(0, 255, (80, 64, 3), dtype=np.uint8) for _ in range(3)]
    unzoomed = TileClassifier()
    unzoomed.use_profile(make_profile(unzoomed, 1.0))
    zoomed = TileClassifier()
    zoomed.use_profile(make_profile(zoomed, 1.22))
    expected = unzoomed.probabilities([zoom_crop(c, 1.22) for c in crops])
    assert np.allclose(zoomed.probabilities(crops), expected, atol=1e-5)
    assert not np.allclose(unzoomed.probabilities(crops), expected, atol=1e-3)


def test_the_zoom_whose_held_out_views_read_clearly_better_is_chosen():
    """Two embeddings of the same 8 tiles: at one zoom the views carry much more noise (a loose box's margin), at the
    other little. The fit takes the clean one, whichever zoom it is; with both alike it keeps the smaller zoom."""
    centres = np.random.default_rng(5).normal(0, 1.0, (len(KINDS), 24))
    settings = FitSettings(steps=60, cv_steps=40)
    clean, tiles = calibration(centres, centres, 1, views=24, rng=np.random.default_rng(1), tile_spread=0.1)
    extra = np.random.default_rng(2)

    def at(zoom: float, noisy: bool):
        if not noisy:
            return dataclasses.replace(clean, crop_zoom=zoom)
        emb = clean.embeddings + extra.normal(0, 1.6, clean.embeddings.shape).astype(np.float32)
        turned = clean.turned_embeddings + extra.normal(0, 1.6, clean.turned_embeddings.shape).astype(np.float32)
        return dataclasses.replace(clean, embeddings=emb, logits=shipped_logits(emb, centres),
                                   turned_embeddings=turned, turned_logits=shipped_logits(turned, centres),
                                   crop_zoom=zoom)

    assert fit_zooms([at(1.0, True), at(1.15, False)], tiles, CLASSES, settings)["crop_zoom"] == 1.15
    assert fit_zooms([at(1.0, False), at(1.15, True)], tiles, CLASSES, settings)["crop_zoom"] == 1.0
    assert fit_zooms([at(1.0, False), at(1.15, False)], tiles, CLASSES, settings)["crop_zoom"] == 1.0


def test_a_profiles_history_keeps_its_entries_crop_zoom_and_refuses_a_mix(tmp_path):
    from fanscan.calibration.learn import Entry, join, load_entry_data, save_entry_data

    centres = np.random.default_rng(5).normal(0, 1.0, (len(KINDS), 24))
    data, _ = calibration(centres, centres, 1, views=4, rng=np.random.default_rng(1), tile_spread=0.1)
    profile = tmp_path / "set.npz"
    (tmp_path / "set.learn").mkdir()
    first, second = Entry(1, "calibrate", "a", "t", list(KINDS)), Entry(2, "photo", "b", "t", list(KINDS))
    save_entry_data(profile, first, dataclasses.replace(data, crop_zoom=1.15))
    save_entry_data(profile, second, data)
    stored = [load_entry_data(profile, e) for e in (first, second)]
    assert [s.crop_zoom for s in stored] == [1.15, 1.0]
    assert join([stored[0], stored[0]]).crop_zoom == 1.15
    with pytest.raises(FanscanError) as error:
        join(stored)
    assert "crop zooms (1, 1.15)" in str(error.value) and "\n" not in str(error.value)
