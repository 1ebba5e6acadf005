"""The development split: photo sessions from file names, a fixed hash, copies and sessions on one side."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from fanscan.vision import splits

TRAIN = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "chinese-mahjong-v4" / "train" / "images"


@pytest.mark.parametrize(("name", "session"), [
    ("IMG_20231214_093008_jpg.rf.0123.jpg", "IMG_20231214"),
    ("393110004_344603414944107_6632561834507103769_n_jpg.rf.08f8.jpg", "fb_39311"),
    ("hand_042_jpg.rf.11587f.jpg", "hand_04x"),
    ("hand_049_jpg.rf.ffff.jpg", "hand_04x"),
    ("hand_050_jpg.rf.ffff.jpg", "hand_05x"),
    ("one_bamboo_flowers_003_jpg.rf.aa.jpg", "one_bamboo_flowers_00x"),
    ("2aGXQnBH5SHRuF2LqyrkpYxAIOY3vY_jpg.rf.2843.jpg", "2aGXQnBH5SHRuF2LqyrkpYxAIOY3vY_jpg"),
])
def test_session_from_file_name(name: str, session: str) -> None:
    assert splits.session_of(name) == session


def test_split_is_the_salted_sha1_of_the_session() -> None:
    # Computed here from the documented rule, not through the module's own hash.
    for session in ("IMG_20231030", "hand_04x", "fb_37004", "IMG_20231214"):
        value = int.from_bytes(hashlib.sha1(f"dev:{session}".encode()).digest()[:4], "big") / 2**32
        assert splits.is_dev_session(session) == (value < 0.15)
    assert splits.split_of("IMG_20231030_230410_jpg.rf.0245.jpg") == splits.DEV  # 0.077 by the rule above
    assert splits.split_of("hand_041_jpg.rf.1158.jpg") == splits.TRAIN  # 0.91


def test_select_rejects_an_unknown_split() -> None:
    with pytest.raises(ValueError, match="unknown split"):
        splits.select(["a.jpg"], "test")


@pytest.mark.skipif(not TRAIN.is_dir(), reason="needs ../shared/data")
def test_copies_and_sessions_never_straddle_the_split() -> None:
    names = sorted(p.name for p in TRAIN.iterdir())
    side_of_source: dict[str, set[str]] = {}
    side_of_day: dict[str, set[str]] = {}
    for name in names:
        side = splits.split_of(name)
        side_of_source.setdefault(name.split(".rf.")[0], set()).add(side)
        if name.startswith("IMG_"):
            side_of_day.setdefault(name[4:12], set()).add(side)
    assert all(len(sides) == 1 for sides in side_of_source.values())
    assert all(len(sides) == 1 for sides in side_of_day.values())
    dev = splits.select(names, splits.DEV)
    assert 0.10 * len(names) < len(dev) < 0.25 * len(names)
