"""The one table from dataset class names to the project's tile ids (GB-Mahjong notation).

Tile ids: `1m..9m` characters, `1p..9p` dots, `1s..9s` bamboo, `E S W N` winds, `C F P` red / green / white dragon,
`a b c d` flowers plum, orchid, bamboo, chrysanthemum, `e f g h` seasons spring, summer, autumn, winter.

Traps this table exists to contain:
- the Chinese Mahjong Detection v4 flowers `bf1..bf4` are numbered as printed on HK tiles: plum, orchid,
  *chrysanthemum*, *bamboo* — the project (and Unicode) order is plum, orchid, bamboo, chrysanthemum;
- riichi `5z` is the *white* dragon (P), `6z` green (F), `7z` red (C).
"""

from __future__ import annotations

from fanscan.scoring.errors import FanscanError

_SUITS = {"sc": "m", "sd": "p", "sb": "s"}

CHINESE_MAHJONG_V4: dict[str, str] = {
    **{f"{prefix}{n}": f"{n}{suit}" for prefix, suit in _SUITS.items() for n in range(1, 10)},
    "hwe": "E", "hws": "S", "hww": "W", "hwn": "N",
    "hdr": "C", "hdg": "F", "hdw": "P",
    "bf1": "a", "bf2": "b", "bf3": "d", "bf4": "c",
    "bs1": "e", "bs2": "f", "bs3": "g", "bs4": "h",
}

RIICHI_HONOURS: dict[str, str] = {
    "1z": "E", "2z": "S", "3z": "W", "4z": "N", "5z": "P", "6z": "F", "7z": "C",
}

# Every dataset naming this project reads; a new dataset is one more table here.
DATASET_TABLES: dict[str, dict[str, str]] = {
    "chinese-mahjong-v4": CHINESE_MAHJONG_V4,
}


def tile_id_for(class_name: str, table: dict[str, str] = CHINESE_MAHJONG_V4) -> str:
    """The project tile id of a dataset class name, or a FanscanError naming the unknown class."""
    try:
        return table[class_name]
    except KeyError:
        raise FanscanError(f"unknown dataset class name {class_name!r}") from None


def guess_table(class_names: list[str]) -> dict[str, str]:
    """The table that knows every one of `class_names` (tile ids map to themselves)."""
    for table in DATASET_TABLES.values():
        if all(name in table for name in class_names):
            return table
    identity = {tile: tile for tile in CHINESE_MAHJONG_V4.values()}
    if all(name in identity for name in class_names):
        return identity
    unknown = sorted({n for n in class_names if n not in CHINESE_MAHJONG_V4 and n not in identity})
    raise FanscanError(f"no class-name table knows {', '.join(unknown[:5])}")
