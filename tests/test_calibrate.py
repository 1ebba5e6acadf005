"""`fanscan calibrate` and set profiles: layout labels, profile files, bad input, and applying a profile."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import TileClassifier
from fanscan.vision.profile import SetProfile, load_profile, profiled_probabilities

from fanscan.calibration.profile_file import save_profile
from fanscan.calibration.sources import LAYOUT, layout_labels, tiles_from_yolo
from fanscan.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples"


def layout_quads(skip: tuple[int, int] | None = None) -> tuple[list[np.ndarray], list[str]]:
    """Quads of tiles laid out as LAYOUT (slightly tilted rows, uneven gaps) and the tile each one is."""
    quads, truth = [], []
    rng = np.random.default_rng(3)
    for r, row in enumerate(LAYOUT):
        x = 20.0
        for i, tile in enumerate(row):
            x += 40 + rng.uniform(2, 12)
            if skip == (r, i):
                continue
            y = 30 + r * 80 + 0.03 * x
            quads.append(np.array([[x, y], [x + 40, y], [x + 40, y + 56], [x, y + 56]], np.float32))
            truth.append(tile)
    order = rng.permutation(len(quads))
    return [quads[i] for i in order], [truth[i] for i in order]


def test_layout_labels_follow_positions():
    quads, truth = layout_quads()
    assert layout_labels(quads, "photo.jpg") == truth


def test_layout_with_a_missing_tile_is_one_line_saying_what_was_found():
    quads, _ = layout_quads(skip=(2, 4))
    with pytest.raises(FanscanError) as error:
        layout_labels(quads, "photo.jpg")
    message = str(error.value)
    assert "\n" not in message and "found 41 tiles in 5 rows (9, 9, 8, 7, 8)" in message


def make_profile(classifier: TileClassifier, sha: str | None = None, scale: float = 0.0) -> SetProfile:
    classes = tuple(classifier.classes)
    rng = np.random.default_rng(0)
    return SetProfile("test", "here", "2026-11-30", sha or classifier.sha256, classes,
                      (rng.normal(0, 1, (len(classes), 160)) * scale).astype(np.float32),
                      np.zeros(len(classes), np.float32), 0.5, {"k": 1})


def test_profile_file_round_trip(tmp_path):
    classifier = TileClassifier()
    profile = make_profile(classifier, scale=0.1)
    path = save_profile(profile, tmp_path / "set.npz")
    loaded = load_profile(path)
    assert loaded.name == "test" and loaded.base_model_sha256 == classifier.sha256
    assert np.array_equal(loaded.delta_weight, profile.delta_weight) and loaded.leave_one_out_accuracy == 0.5
    assert [p.name for p in tmp_path.iterdir()] == ["set.npz"]  # no temp file left behind


@pytest.mark.parametrize("content", [b"not a zip", b"PK\x03\x04broken", b""])
def test_corrupt_profile_is_one_line(tmp_path, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(FanscanError) as error:
        TileClassifier(profile=path)
    assert "bad.npz" in str(error.value) and "\n" not in str(error.value)


def test_profile_of_another_model_is_refused(tmp_path):
    classifier = TileClassifier()
    path = save_profile(make_profile(classifier, sha="0" * 64), tmp_path / "other.npz")
    with pytest.raises(FanscanError, match="another classifier"):
        TileClassifier(profile=path)


def test_profiled_probabilities_keep_the_shipped_back_none_verdict():
    rng = np.random.default_rng(1)
    classes = ("1m", "2m", "3m", "back", "none")
    logits, turned = rng.normal(0, 2, (6, 5)), rng.normal(0, 2, (6, 5))
    emb, turned_emb = rng.normal(0, 1, (6, 4)), rng.normal(0, 1, (6, 4))
    weight, bias = rng.normal(0, 1, (5, 4)), rng.normal(0, 1, 5)
    probs = profiled_probabilities(logits, emb, turned, turned_emb, weight, bias, classes)
    shipped = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(probs[:, 3:], shipped[:, 3:], rtol=1e-5)
    corrected = ((logits + emb @ weight.T + bias) + (turned + turned_emb @ weight.T + bias)) / 2
    tiles = np.exp(corrected[:, :3]) / np.exp(corrected[:, :3]).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(probs[:, :3], tiles * (1 - shipped[:, 3:].sum(axis=1, keepdims=True)), rtol=1e-5)


def small_yolo(tmp_path: Path, photos: int = 2) -> Path:
    folder = tmp_path / "mine"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    shutil.copy(SAMPLES / "data.yaml", folder / "data.yaml")
    for image in sorted((SAMPLES / "images").iterdir())[:photos]:
        shutil.copy(image, folder / "images" / image.name)
        shutil.copy(SAMPLES / "labels" / f"{image.stem}.txt", folder / "labels" / f"{image.stem}.txt")
    return folder


def test_calibrate_writes_a_profile_the_photo_command_takes(tmp_path, capsys):
    folder = small_yolo(tmp_path)
    labels = sum(len([line for line in f.read_text().splitlines() if line.strip()])
                 for f in (folder / "labels").iterdir())
    out = tmp_path / "mine.npz"
    assert main(["calibrate", str(folder), "--out", str(out), "--views", "2", "--no-loo", "--name", "my set"]) == 0
    profile = load_profile(out)
    assert profile.name == "my set" and profile.details["tiles"] == labels
    assert main(["photo", str(SAMPLES / "images" / "hand_001.jpg"), "--json", "--self-drawn",
                 "--profile", str(out)]) == 0
    assert '"ok": true' in capsys.readouterr().out


def test_folder_without_labels_writes_nothing(tmp_path, capsys):
    folder = small_yolo(tmp_path)
    for label in (folder / "labels").iterdir():
        label.unlink()
    out = tmp_path / "p.npz"
    assert main(["calibrate", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no labelled tile boxes" in err and err.count("\n") == 1 and not out.exists()


def test_wrong_class_name_is_one_line(tmp_path):
    folder = small_yolo(tmp_path, photos=1)
    text = (folder / "data.yaml").read_text()
    (folder / "data.yaml").write_text(text.replace("sc1", "dragon9"))
    with pytest.raises(FanscanError, match="dragon9"):
        tiles_from_yolo(folder)


def test_photo_of_the_wrong_layout_is_refused(tmp_path, capsys):
    out = tmp_path / "p.npz"
    assert main(["calibrate", str(SAMPLES / "images" / "hand_001.jpg"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "found 14 tiles in 1 rows" in err and "42 tiles in 5 rows" in err and not out.exists()


def test_laid_out_photo_labels_each_tile_by_where_it_lies(tmp_path):
    """42 clean tile pictures (cut from the sample photos, any kinds) pasted in the five rows: the detector finds
    them and each gets the label of the place it lies in."""
    import cv2
    from fanscan.vision.detect import default_detector
    from fanscan.vision.yolo_data import iter_split

    from fanscan.calibration.sources import tiles_from_layout_photo

    cuts = []
    for item in iter_split(SAMPLES):
        image = cv2.imread(str(item.image_path))
        height, width = image.shape[:2]
        for box in item.boxes:
            x0, y0, x1, y1 = (round(v) for v in box.to_pixels(width, height))
            cuts.append(image[max(0, y0):y1, max(0, x0):x1])
    tile_h, gap, margin = 90, 24, 50
    pictures = {}
    for tile in (t for row in LAYOUT for t in row):
        cut = cuts[(len(pictures) * 5) % len(cuts)]
        pictures[tile] = cv2.resize(cut, (round(cut.shape[1] * tile_h / cut.shape[0]), tile_h))
    # The rows fill the photo's width, as in a real calibration photo (the detector looks at a 384-px view).
    width = max(sum(pictures[t].shape[1] + gap for t in row) for row in LAYOUT) + 2 * margin
    canvas = np.full((len(LAYOUT) * (tile_h + 40) + 2 * margin, width, 3), (60, 110, 40), np.uint8)
    boxes = {}
    for r, row in enumerate(LAYOUT):
        x, y = margin, margin + r * (tile_h + 40)
        for tile in row:
            canvas[y:y + tile_h, x:x + pictures[tile].shape[1]] = pictures[tile]
            boxes[tile] = (x, y, x + pictures[tile].shape[1], y + tile_h)
            x += pictures[tile].shape[1] + gap
    photo = tmp_path / "layout.png"
    cv2.imwrite(str(photo), canvas)
    tiles = tiles_from_layout_photo(photo, default_detector(), TileClassifier())
    assert sorted(t.tile for t in tiles) == sorted(boxes)
    for tile in tiles:
        x0, y0, x1, y1 = boxes[tile.tile]
        assert x0 <= tile.centre[0] <= x1 and y0 <= tile.centre[1] <= y1, tile.tile


def test_cross_validation_folds_are_photos_else_kth_tiles_else_tiles():
    from fanscan.calibration.fit import MAX_FOLDS, folds
    from fanscan.calibration.sources import CalibrationTile

    def tiles(pairs: list[tuple[str, str]]) -> list[CalibrationTile]:
        return [CalibrationTile(np.zeros((4, 4, 3), np.uint8), np.zeros((4, 2), np.float32), t, p) for t, p in pairs]

    def as_lists(result):
        fold_list, unit = result
        return sorted(sorted(f.tolist()) for f in fold_list), unit

    # Both kinds in several photos: a fold is a photo.
    mixed = tiles([("1m", "a"), ("1m", "b"), ("2m", "a"), ("2m", "c"), ("1m", "c")])
    assert as_lists(folds(mixed)) == ([[0, 2], [1], [3, 4]], "photo")
    # One photo per kind (four tiles of it): leaving a photo out would leave its kind unseen, so fold k holds the
    # k-th tile of every kind.
    per_kind = tiles([("1m", "p1")] * 3 + [("2m", "p2")] * 3)
    assert as_lists(folds(per_kind)) == ([[0, 3], [1, 4], [2, 5]], "k-th tile of every kind")
    # One tile a kind: nothing to cross-validate.
    assert folds(tiles([("1m", "x"), ("2m", "x"), ("3m", "x")]))[1] == "tile"
    many = folds(tiles([("1m", f"p{i:03d}") for i in range(MAX_FOLDS + 8)]))[0]
    assert len(many) == MAX_FOLDS and sorted(i for f in many for i in f.tolist()) == list(range(MAX_FOLDS + 8))
