"""Set profiles are built on their own classifier file (`models/tile_classifier_profiles.onnx`) and read with the file
they were built for; the shipped reading without a profile stays `models/tile_classifier.onnx`."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import DEFAULT_MODEL, PROFILE_MODEL, TileClassifier, learning_classifier, model_for_profile
from fanscan.vision.profile import SetProfile, load_profile

from fanscan.calibration.profile_file import save_profile
from fanscan.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples"
CLASSES = tuple(TileClassifier().classes)  # both files share the class list (checked when a profile is applied)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def zero_profile(sha: str, name: str = "zero") -> SetProfile:
    """A profile that corrects nothing, tied to the classifier file of sha256 `sha`."""
    return SetProfile(name, "test", "2026-12-07", sha, tuple(CLASSES), np.zeros((len(CLASSES), 160), np.float32),
                      np.zeros(len(CLASSES), np.float32))


def test_the_two_shipped_classifier_files_differ():
    # Installed from models/ as package data (an independent hash of the repository's own files).
    assert PROFILE_MODEL.read_bytes() == (ROOT / "models" / "tile_classifier_profiles.onnx").read_bytes()
    assert DEFAULT_MODEL.read_bytes() == (ROOT / "models" / "tile_classifier.onnx").read_bytes()
    assert sha256_of(PROFILE_MODEL) != sha256_of(DEFAULT_MODEL)


@pytest.mark.parametrize("file_name", ["tile_classifier_profiles.onnx", "tile_classifier.onnx"])
def test_a_profile_reads_with_the_file_it_was_built_for(tmp_path, file_name):
    built_on = ROOT / "models" / file_name
    path = save_profile(zero_profile(sha256_of(built_on)), tmp_path / "set.npz")
    assert model_for_profile(load_profile(path)).name == file_name
    classifier = TileClassifier(profile=path)
    assert classifier.path.name == file_name and classifier.profile is not None
    # A zero correction reads as that file's own head does, each crop and its 180-degree turn averaged: the tile
    # kinds' probabilities (renormalised) follow the mean of the two logits straight from onnxruntime.
    crop = np.random.default_rng(1).integers(0, 255, (80, 64, 3), np.uint8)
    session = ort.InferenceSession(str(built_on), providers=["CPUExecutionProvider"])
    blobs = [((c[..., :3].astype(np.float32) / 255 - 0.5) / 0.25).transpose(2, 0, 1)[None]
             for c in (crop, crop[::-1, ::-1].copy())]
    logits = [session.run(["logits"], {session.get_inputs()[0].name: b})[0][0] for b in blobs]
    tiles = [i for i, c in enumerate(CLASSES) if c not in ("back", "none")]
    mean = (logits[0] + logits[1])[tiles] / 2
    expected = np.exp(mean - mean.max())
    expected /= expected.sum()
    got = classifier.probabilities(crop[None])[0][tiles]
    assert np.allclose(got / got.sum(), expected, atol=1e-4)


def test_a_profile_for_another_classifier_is_refused_in_one_line(tmp_path):
    path = save_profile(zero_profile("0" * 64), tmp_path / "other.npz")
    assert model_for_profile(load_profile(path)) == PROFILE_MODEL
    with pytest.raises(FanscanError) as error:
        TileClassifier(profile=path)
    assert "built for another classifier" in str(error.value) and "\n" not in str(error.value)


def test_learning_starts_on_the_profiles_file_and_goes_on_with_the_profiles_own(tmp_path):
    assert learning_classifier(tmp_path / "new.npz").path.name == "tile_classifier_profiles.onnx"
    older = save_profile(zero_profile(sha256_of(ROOT / "models" / "tile_classifier.onnx")), tmp_path / "older.npz")
    assert learning_classifier(older).path.name == "tile_classifier.onnx"


def test_calibrate_builds_on_the_profiles_file_and_photo_reads_with_it(tmp_path, capsys):
    folder = tmp_path / "mine"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    shutil.copy(SAMPLES / "data.yaml", folder / "data.yaml")
    shutil.copy(SAMPLES / "images" / "hand_001.jpg", folder / "images")
    shutil.copy(SAMPLES / "labels" / "hand_001.txt", folder / "labels")
    out = tmp_path / "mine.npz"
    assert main(["calibrate", str(folder), "--out", str(out), "--views", "2", "--no-loo", "--quiet"]) == 0
    profile = load_profile(out)
    assert profile.base_model_sha256 == sha256_of(ROOT / "models" / "tile_classifier_profiles.onnx")
    assert profile.details["base_model"] == "tile_classifier_profiles.onnx"
    capsys.readouterr()
    assert main(["photo", str(SAMPLES / "images" / "hand_001.jpg"), "--json", "--self-drawn",
                 "--profile", str(out)]) == 0
    assert '"ok": true' in capsys.readouterr().out


def test_without_the_profile_is_the_shipped_readers_figure_on_the_held_out_views():
    """With profiles on another file, the closing line's "without" is what the shipped reader makes of the same
    held-out views (one tile a kind: every view is held out once), not the head the profile corrects."""
    from fanscan.calibration.fit import FitSettings, fit_profile, read_without_profile
    from fanscan.calibration.sources import tiles_from_yolo
    from fanscan.calibration.views import tile_views

    tiles, seen = [], set()
    for tile in tiles_from_yolo(SAMPLES):
        if tile.tile not in seen:  # one tile a kind
            tiles.append(tile)
            seen.add(tile.tile)
        if len(tiles) == 8:
            break
    base, reader = TileClassifier(PROFILE_MODEL), TileClassifier(DEFAULT_MODEL)
    settings = FitSettings(views=6, steps=20, cv_steps=10, penalties=(1.0, 0.1), seed=4)
    loo = fit_profile(base, tiles, settings, crop_zooms=(1.0,), reader=reader)["leave_one_out"]
    assert loo["left_out"].startswith("views")
    # The same views, drawn again from the same seed in the same order, read by the shipped reader alone
    rng = np.random.default_rng(settings.seed)
    shares = []
    for tile in tiles:
        views = tile_views(tile, base.crop_spec, settings.views, rng)[1:]
        read = [reader.classes[i] for i in reader.probabilities(views).argmax(axis=1)]
        shares.append(np.mean([r == tile.tile for r in read]))
    assert loo["accuracy_shipped_reader"] == pytest.approx(float(np.mean(shares)), abs=1e-4)
    assert read_without_profile(loo) == loo["accuracy_shipped_reader"]
    no_reader = fit_profile(base, tiles, settings, crop_zooms=(1.0,))["leave_one_out"]
    assert no_reader["accuracy_shipped_reader"] is None
    assert read_without_profile(no_reader) == no_reader["accuracy_without_profile"]


def test_model_sha256_is_hashed_again_when_the_file_changes(tmp_path):
    """The cached hash follows the file: the same bytes give hashlib's digest, and a file rewritten in place (a new
    size and modification time) gives the new bytes' digest, not the cached one."""
    import hashlib
    import os

    from fanscan.vision.classify import model_sha256

    path = tmp_path / "model.onnx"
    path.write_bytes(b"first bytes")
    assert model_sha256(path) == hashlib.sha256(b"first bytes").hexdigest()
    path.write_bytes(b"the second, longer bytes")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert model_sha256(path) == hashlib.sha256(b"the second, longer bytes").hexdigest()


def test_a_new_profile_learns_with_one_profiles_classifier_a_process(tmp_path):
    """Until a new profile's file exists, every confirmed photo learns with the same profiles' classifier, loaded
    once and never given a profile; once the file exists, it is read with that file's own classifier."""
    first = learning_classifier(tmp_path / "new.npz")
    again = learning_classifier(tmp_path / "another.npz")
    assert first is again
    assert first.profile is None and first.path.name == "tile_classifier_profiles.onnx"
