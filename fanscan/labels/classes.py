"""The classes of every dataset fanscan writes: the 42 tile kinds, as fanscan's tile ids, in notation order.

34 tiles (1m..9m, 1p..9p, 1s..9s, E S W N, C F P) and 8 flowers and seasons (a..h). This is the classifier's class
list without its two extra classes: `none` (not a tile) has no box to draw, and `back` (a face-down tile) is not a
class either: the project's training data (Chinese Mahjong Detection v4) has no such class, and every reader of
datasets here (calibrate, train, the evaluation scripts) takes the 42 names. A face-down tile is left out of a dataset,
with a line in the report.

Labels are read by name: a tile id, the readable name of `fanscan label config` ("3p · 3 Dots · 三饼"), the
English name, or a class name of a dataset table in `fanscan.vision.dataset_classes` (`sc1`, `hdr`, ...).
"""

from __future__ import annotations

from fanscan.scoring.tiles import ALL_TILE_IDS, CHINESE_NAMES, ENGLISH_NAMES
from fanscan.vision.dataset_classes import DATASET_TABLES

CLASS_NAMES: tuple[str, ...] = ALL_TILE_IDS
CLASS_INDEX: dict[str, int] = {name: i for i, name in enumerate(CLASS_NAMES)}
BACK = "back"  # the classifier's face-down reading; not a dataset class
NONE = "none"  # the classifier's "not a tile" reading


def readable_name(tile: str) -> str:
    """What a labeller sees on the label button: '3p · 3 Dots · 三饼'."""
    return f"{tile} · {ENGLISH_NAMES[tile]} · {CHINESE_NAMES[tile]}"


def _aliases() -> dict[str, str]:
    aliases: dict[str, str] = {}
    for table in DATASET_TABLES.values():
        aliases.update({name.lower(): tile for name, tile in table.items()})
    for tile in CLASS_NAMES:
        aliases[ENGLISH_NAMES[tile].lower()] = tile
        aliases[CHINESE_NAMES[tile]] = tile
        aliases[readable_name(tile).lower()] = tile
    aliases.update({tile: tile for tile in CLASS_NAMES})  # tile ids are case-sensitive: 'c' (bamboo) is not 'C'
    return aliases


_ALIASES = _aliases()


def tile_for_label(name: str) -> str | None:
    """The tile id a label name stands for, or None when no table knows it."""
    name = str(name).strip()
    return _ALIASES.get(name) or _ALIASES.get(name.lower())
