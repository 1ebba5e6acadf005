"""The development split: train photos held out by source (photo session), fixed by a hash of the session's name.

Every choice about the models (threshold, checkpoint, training stage, augmentation, grouping setting) is made on the
development split; the `test/` split is only reported on (benchmarks/TEST-LOG.md). The detector, the classifier and
the grouping step all use this one module, so that no photo of a session used for choices was trained on.

A Roboflow export names a photo `<source>_<ext>.rf.<hash>.<ext>`; the three augmented copies of one source share
`<source>`. Sources from one photo session must stay on one side too, so they are grouped by what the names tell
(`session_of`, examples from chinese-mahjong-v4/train):

- phone photos `IMG_20231214_093008_jpg` → `IMG_20231214` (one day's session: 35 sources on 2023-12-14);
- Facebook downloads `393110004_344603414944107_6632561834507103769_n_jpg` → `fb_39311` (the first number is the
  photo's id; the photos of one post are numbered together: 9 sources share 39311xxxx);
- numbered series `hand_042_jpg`, `bamboo_family_002_jpg`, `discards_003_jpg` → `hand_04x`, `bamboo_family_00x`,
  `discards_00x` (blocks of ten consecutive numbers: a series was photographed in order);
- anything else (Roboflow's random names, `2aGXQnBH5SHRuF2LqyrkpYxAIOY3vY_jpg`) → the source itself.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

# Share of sessions held out for development (by hash, so the photo share varies a little with session sizes).
DEV_FRACTION = 0.15
# Hashed before the session name. Of the five salts tried ("", "dev:", "fanscan-dev:", "dev-v1:", "split:"), this one
# was chosen by the split's make-up alone, before any model was measured on it: 234 dev photos (17 %), no session
# over 30 photos, four phone sessions and two `hand_*` blocks (with no salt, one 105-photo session was 45 % of dev).
SALT = "dev:"
DEV, TRAIN = "dev", "train"
SPLITS = (DEV, TRAIN)

_PHONE = re.compile(r"^(IMG|PXL|VID)_(\d{8})_\d+")
_FACEBOOK = re.compile(r"^(\d{5})\d*_\d+_\d+_n_")
_SERIES = re.compile(r"^([A-Za-z]+(?:_[A-Za-z]+)*)_(\d+)_(?:jpe?g|png|webp)$", re.IGNORECASE)

T = TypeVar("T")


def source_of(file_name: str | Path) -> str:
    """The upstream source photo of an augmented copy: the part of the file name before `.rf.`."""
    name = Path(file_name).name
    return name.split(".rf.")[0] if ".rf." in name else Path(name).stem


def session_of(file_name: str | Path) -> str:
    """The photo session a file belongs to (see the module docstring): copies and sessions share it."""
    source = source_of(file_name)
    if phone := _PHONE.match(source):
        return f"{phone.group(1)}_{phone.group(2)}"
    if facebook := _FACEBOOK.match(source):
        return f"fb_{facebook.group(1)}"
    if series := _SERIES.match(source):
        number = series.group(2)
        return f"{series.group(1)}_{number[:-1]}x"
    return source


def is_dev_session(session: str, fraction: float = DEV_FRACTION) -> bool:
    """A fixed, seed-free choice: the SHA-1 of SALT + session read as a number in [0, 1) falls below `fraction`."""
    digest = hashlib.sha1((SALT + session).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < fraction


def split_of(file_name: str | Path, fraction: float = DEV_FRACTION) -> str:
    """`dev` or `train` for a photo of the train folder."""
    return DEV if is_dev_session(session_of(file_name), fraction) else TRAIN


def select(items: Iterable[T], split: str, name_of=lambda item: item, fraction: float = DEV_FRACTION) -> list[T]:
    """The items of one split (`dev` or `train`); `name_of` gives an item's file name."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: {' or '.join(SPLITS)}")
    return [item for item in items if split_of(name_of(item), fraction) == split]
