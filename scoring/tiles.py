"""Tile ids, integer indices, names and terminal text.

Tile ids are the GB-Mahjong strings (`1m..9m`, `1p..9p`, `1s..9s`, `E S W N`, `C F P`, flowers `a..h`).
Internally the engine works on integer indices, because counting arrays indexed by tile is what makes
decomposition and scoring fast:

    0..8   characters 1m..9m      27..30  winds E S W N
    9..17  dots 1p..9p            31..33  dragons C (red) F (green) P (white)
    18..26 bamboo 1s..9s          34..41  flowers a..h (never part of a set)
"""

from __future__ import annotations

SUITS = ("m", "p", "s")
WINDS = ("E", "S", "W", "N")
DRAGONS = ("C", "F", "P")
FLOWERS = ("a", "b", "c", "d", "e", "f", "g", "h")

#: Every tile id in notation order: characters, dots, bamboo, winds, dragons, flowers.
ALL_TILE_IDS: tuple[str, ...] = (
    tuple(f"{n}{s}" for s in SUITS for n in range(1, 10)) + WINDS + DRAGONS + FLOWERS
)
#: The 34 tile kinds that form sets (everything but flowers).
PLAYING_TILE_IDS: tuple[str, ...] = ALL_TILE_IDS[:34]

INDEX: dict[str, int] = {tile: i for i, tile in enumerate(ALL_TILE_IDS)}
N_KINDS = 34
FIRST_HONOR = 27
FIRST_DRAGON = 31
FIRST_FLOWER = 34

TERMINALS = frozenset({0, 8, 9, 17, 18, 26})
HONORS = frozenset(range(27, 34))
TERMINALS_AND_HONORS = TERMINALS | HONORS
GREEN = frozenset({INDEX[t] for t in ("2s", "3s", "4s", "6s", "8s", "F")})
# Tiles whose face looks the same upside down (Reversible Tiles): 1234589p, 245689s, white dragon.
REVERSIBLE = frozenset(
    {INDEX[f"{n}p"] for n in (1, 2, 3, 4, 5, 8, 9)} | {INDEX[f"{n}s"] for n in (2, 4, 5, 6, 8, 9)} | {INDEX["P"]}
)


def suit_of(index: int) -> int:
    """0, 1, 2 for m, p, s; 3 for honors (and flowers)."""
    return index // 9 if index < FIRST_HONOR else 3


def rank_of(index: int) -> int:
    """1..9 for numbered tiles, 0 for honors."""
    return index % 9 + 1 if index < FIRST_HONOR else 0


def is_numbered(index: int) -> bool:
    return index < FIRST_HONOR


_SUIT_EN = {"m": "Characters", "p": "Dots", "s": "Bamboo"}
_SUIT_ZH = {"m": "万", "p": "饼", "s": "条"}
_NUM_ZH = "一二三四五六七八九"
_HONOR_EN = {
    "E": "East Wind", "S": "South Wind", "W": "West Wind", "N": "North Wind",
    "C": "Red Dragon", "F": "Green Dragon", "P": "White Dragon",
    "a": "Plum", "b": "Orchid", "c": "Bamboo (flower)", "d": "Chrysanthemum",
    "e": "Spring", "f": "Summer", "g": "Autumn", "h": "Winter",
}
_HONOR_ZH = {
    "E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "发", "P": "白",
    "a": "梅", "b": "兰", "c": "竹", "d": "菊", "e": "春", "f": "夏", "g": "秋", "h": "冬",
}
# Unicode Mahjong Tiles block. Note the code point order differs from ours: bamboo (1F010) precedes dots (1F019),
# and the flowers run plum, orchid, bamboo, chrysanthemum, then the seasons.
_GLYPH_BASE = {"m": 0x1F007, "s": 0x1F010, "p": 0x1F019}
_HONOR_GLYPH = {
    "E": 0x1F000, "S": 0x1F001, "W": 0x1F002, "N": 0x1F003, "C": 0x1F004, "F": 0x1F005, "P": 0x1F006,
    "a": 0x1F022, "b": 0x1F023, "c": 0x1F024, "d": 0x1F025, "e": 0x1F026, "f": 0x1F027, "g": 0x1F028, "h": 0x1F029,
}


def _english(tile: str) -> str:
    if tile[-1] in _SUIT_EN:
        return f"{tile[0]} {_SUIT_EN[tile[-1]]}"
    return _HONOR_EN[tile]


def _chinese(tile: str) -> str:
    if tile[-1] in _SUIT_ZH:
        return _NUM_ZH[int(tile[0]) - 1] + _SUIT_ZH[tile[-1]]
    return _HONOR_ZH[tile]


def _glyph(tile: str) -> str:
    if tile[-1] in _GLYPH_BASE:
        return chr(_GLYPH_BASE[tile[-1]] + int(tile[0]) - 1)
    return chr(_HONOR_GLYPH[tile])


#: English names ("3 Dots", "Red Dragon", "Plum").
ENGLISH_NAMES: dict[str, str] = {t: _english(t) for t in ALL_TILE_IDS}
#: Chinese names ("三饼", "中", "梅").
CHINESE_NAMES: dict[str, str] = {t: _chinese(t) for t in ALL_TILE_IDS}
#: Unicode Mahjong Tiles glyphs (U+1F000 block); many terminal fonts lack them, hence ASCII_TEXT.
GLYPHS: dict[str, str] = {t: _glyph(t) for t in ALL_TILE_IDS}
#: ASCII fallback: the id itself in brackets, e.g. "[3p]".
ASCII_TEXT: dict[str, str] = {t: f"[{t}]" for t in ALL_TILE_IDS}


def tile_text(tile: str, style: str = "ascii") -> str:
    """Display text of one tile: style "ascii" ([3p]), "unicode" (glyph), "en" or "zh" (names)."""
    table = {"ascii": ASCII_TEXT, "unicode": GLYPHS, "en": ENGLISH_NAMES, "zh": CHINESE_NAMES}[style]
    return table[tile]


def tiles_text(tiles, style: str = "ascii") -> str:
    """Display text of several tiles, space separated for names, joined for glyphs and ASCII."""
    sep = " " if style in ("en", "zh") else ""
    return sep.join(tile_text(t, style) for t in tiles)
