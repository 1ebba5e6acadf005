"""benchmarks/calibration_sets.py: a familiar session's calibration takes tiles as a player photographs them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def calibration_sets(monkeypatch):
    # The benchmark scripts import each other as siblings (as when run as `python benchmarks/x.py`).
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import calibration_sets

    return calibration_sets


def box(photo: str, tile: str, rank: int) -> tuple:
    """(image path, box, tile, source, rank): rank 2 an upright tile of a square-on colour photo, 1 another tile of
    one, 0 a tile of a copy the dataset's augmentation rotated or turned grey."""
    return (Path(f"{photo}.jpg"), (0.0, 0.0, 40.0, 60.0), tile, photo, rank)


def test_session_calibration_takes_square_on_tiles_upright_first_and_never_a_rotated_copy(calibration_sets) -> None:
    half = [box("a", "1m", 0), box("b", "1m", 1), box("c", "1m", 2), box("d", "1m", 2),
            box("a", "E", 0), box("b", "E", 1),
            box("a", "C", 0)]
    chosen = calibration_sets.square_on_first_k(half, 1)
    kinds = {b[2]: b[3] for b in chosen}
    # 1m: an upright tile (photo c or d, the first in name order); E: its only square-on tile; C has none: left out.
    assert kinds == {"1m": "c", "E": "b"}
    two = calibration_sets.square_on_first_k(half, 2)
    assert sorted(b[3] for b in two if b[2] == "1m") == ["c", "d"]  # two photos, both upright
    assert [b[3] for b in two if b[2] == "E"] == ["b"]  # one square-on tile: one, not repeated


def test_a_grey_copy_is_told_from_a_colour_photo() -> None:
    from fanscan.training.real_data import is_grey

    rng = np.random.default_rng(0)
    colour = rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)
    grey = np.repeat(colour[:, :, :1], 3, axis=2)
    assert is_grey(grey)
    assert not is_grey(colour)
    pale = grey.copy()
    pale[..., 2] = np.clip(pale[..., 2].astype(int) + 12, 0, 255)  # a faint warm cast is still colour
    assert not is_grey(pale)


def test_a_profile_is_read_through_the_classifier_file_it_was_fitted_on(calibration_sets, tmp_path) -> None:
    # `calibration_curve.py --classifier FILE`: a profile fitted on FILE's embedding must be read by FILE, not by
    # the shipped model (whose sha256 the profile would not match, or whose embedding it was not fitted on).
    from fanscan.vision.classify import TileClassifier

    copy = tmp_path / "other_classifier.onnx"
    copy.write_bytes((ROOT / "models" / "tile_classifier.onnx").read_bytes())
    other = TileClassifier(copy)
    size = other.logits_and_embeddings([np.zeros((80, 64, 3), np.uint8)])[1].shape[1]
    fitted = {"delta": (np.zeros((len(other.classes), size)), np.zeros(len(other.classes))), "moved": None}
    profiled = calibration_sets.profile_of(other, fitted, "copy")
    assert profiled.path == copy
    assert profiled.profile is not None


def yolo_folder(folder: Path, names: str, photos: dict[str, tuple[bytes, list[str]]]) -> Path:
    """A YOLO folder: data.yaml with `names`, and per photo its image bytes and label lines."""
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    (folder / "data.yaml").write_text(f"names: {names}\n", encoding="utf-8")
    for name, (image, lines) in photos.items():
        (folder / "images" / f"{name}.jpg").write_bytes(image)
        (folder / "labels" / f"{name}.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return folder


def test_one_photo_each_takes_the_first_single_tile_photo_of_every_kind(monkeypatch, tmp_path) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from calibration_one_photo_each import one_photo_each

    photos = {"a": ["0 0.5 0.5 0.4 0.6"], "b": ["0 0.5 0.5 0.4 0.6"], "c": ["1 0.2 0.5 0.2 0.6", "0 0.7 0.5 0.2 0.6"],
              "d": ["1 0.5 0.5 0.4 0.6"], "e": []}
    unread = {name: (b"not read", lines) for name, lines in photos.items()}
    source = yolo_folder(tmp_path / "set", "['1m', '2m']", unread)
    out = tmp_path / "one-each"
    # "a" is the first 1m; "b" is a second 1m, "c" holds two tiles, "e" none: only "d" adds a kind
    assert one_photo_each(source, out) == ["a.jpg", "d.jpg"]
    assert sorted(p.name for p in (out / "images").iterdir()) == ["a.jpg", "d.jpg"]
    assert sorted(p.name for p in (out / "labels").iterdir()) == ["a.txt", "d.txt"]
    assert (out / "data.yaml").is_file()


def test_copy_photos_makes_a_yolo_folder_of_the_photos_named(monkeypatch, tmp_path) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from calibration_one_photo_each import copy_photos

    source = yolo_folder(tmp_path / "set", "['1m']",
                         {name: (name.encode(), [f"0 0.5 0.5 0.{ord(name) - 96} 0.5"]) for name in ("a", "b", "c")})
    out = tmp_path / "others"
    copy_photos(source, ["a.jpg", "c.jpg"], out)
    assert sorted(p.name for p in (out / "images").iterdir()) == ["a.jpg", "c.jpg"]
    assert (out / "images" / "c.jpg").read_bytes() == b"c"
    assert (out / "labels" / "c.txt").read_text(encoding="utf-8") == "0 0.5 0.5 0.3 0.5\n"
    assert not (out / "labels" / "b.txt").exists() and (out / "data.yaml").is_file()
