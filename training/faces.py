"""Tile face artwork as RGBA images, one list of styles per class, rasterised once into a cache folder.

Sources (see models/tile_classifier.md for licences): the public-domain Unicode sprite (`uni.svg` colour, `unib.svg`
black line, all 42 faces), FluffyStuff's CC0 riichi faces (34 faces + `Back`), gleitz's MIT PNGs (42 faces on their
own ivory body), the Mahjong Tiles block of Symbola and Noto Sans Symbols2, and faces composed from CJK fonts
(AR PL UKai / UMing, Noto Serif/Sans CJK): numerals over 萬, winds, 中 發, framed or blank white dragon, and
flowers / seasons as their name character with a corner number — the HK layout whose small number is what
separates, say, plum (1) from chrysanthemum (3).

SVGs are rasterised with `rsvg-convert` (Debian librsvg2-bin; fonts via fontconfig). Without it only the PNG faces
are available (`have_rsvg()` says which).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

FACE_W, FACE_H = 150, 200


@dataclass(frozen=True)
class Face:
    """One face image: RGBA uint8 (BGR + alpha); `full_tile` when the picture already includes the tile body."""

    style: str
    tile: str
    rgba: np.ndarray
    full_tile: bool = False


def have_rsvg() -> bool:
    return shutil.which("rsvg-convert") is not None


def _rasterise(svg_text: str, out_png: Path, width: int = FACE_W, height: int = FACE_H) -> np.ndarray | None:
    """SVG text -> BGRA image (cached as a PNG)."""
    if not out_png.exists():
        out_png.parent.mkdir(parents=True, exist_ok=True)
        svg_path = out_png.with_suffix(".svg")
        svg_path.write_text(svg_text, encoding="utf-8")
        result = subprocess.run(
            ["rsvg-convert", "-w", str(width), "-h", str(height), "-o", str(out_png), str(svg_path)],
            capture_output=True, check=False,
        )
        svg_path.unlink(missing_ok=True)
        if result.returncode != 0:
            return None
    image = cv2.imread(str(out_png), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        return None
    return image


def _has_ink(rgba: np.ndarray | None) -> bool:
    return rgba is not None and int((rgba[..., 3] > 40).sum()) > 30


_SPRITE_IDS = {
    **{f"t_do{n}": f"{n}p" for n in range(1, 10)},
    **{f"t_ch{n}": f"{n}m" for n in range(1, 10)},
    **{f"t_ba{n}": f"{n}s" for n in range(1, 10)},
    "t_wi_east": "E", "t_wi_south": "S", "t_wi_west": "W", "t_wi_north": "N",
    "t_dr_red": "C", "t_dr_green": "F", "t_dr_white": "P",
    "t_fl_plum": "a", "t_fl_orchid": "b", "t_fl_bamboo": "c", "t_fl_chrysanthemum": "d",
    "t_se_spring": "e", "t_se_summer": "f", "t_se_fall": "g", "t_se_winter": "h",
}


def _sprite_faces(svg_path: Path, style: str, cache: Path) -> list[Face]:
    text = svg_path.read_text(encoding="utf-8")
    faces = []
    for match in re.finditer(r'<use xlink:href="#(t_[a-z_0-9]+)"([^>]*)/>', text):
        tile = _SPRITE_IDS.get(match.group(1))
        if tile is None:
            continue
        attrs = match.group(2)
        x = float(m.group(1)) if (m := re.search(r'\bx="([-0-9.]+)"', attrs)) else 0.0
        y = float(m.group(1)) if (m := re.search(r'\by="([-0-9.]+)"', attrs)) else 0.0
        cell = re.sub(r'viewBox="0 0 675 800"', f'viewBox="{x} {y} 75 100"', text, count=1)
        rgba = _rasterise(cell, cache / style / f"{tile}.png")
        if _has_ink(rgba):
            faces.append(Face(style, tile, rgba))
    return faces


_FLUFFY = {
    **{f"Man{n}": f"{n}m" for n in range(1, 10)}, **{f"Pin{n}": f"{n}p" for n in range(1, 10)},
    **{f"Sou{n}": f"{n}s" for n in range(1, 10)}, "Man5-Dora": "5m", "Pin5-Dora": "5p", "Sou5-Dora": "5s",
    "Ton": "E", "Nan": "S", "Shaa": "W", "Pei": "N", "Chun": "C", "Hatsu": "F",
}


def _fluffy_faces(folder: Path, cache: Path) -> tuple[list[Face], list[Face]]:
    """Regular faces (Black ones are white ink for dark tiles: not what tables use) and the two Back designs."""
    faces, backs = [], []
    for stem, tile in _FLUFFY.items():
        path = folder / "Regular" / f"{stem}.svg"
        if path.exists():
            rgba = _rasterise(path.read_text(encoding="utf-8"), cache / "fluffy" / f"{stem}.png")
            if _has_ink(rgba):
                faces.append(Face("fluffy", tile, rgba))
    for variant in ("Regular", "Black"):
        path = folder / variant / "Back.svg"
        if path.exists():
            rgba = _rasterise(path.read_text(encoding="utf-8"), cache / "fluffy" / f"Back-{variant}.png")
            if _has_ink(rgba):
                backs.append(Face("fluffy", "back", rgba, full_tile=True))
    return faces, backs


_GLEITZ = {
    **{f"ball_{n}": f"{n}p" for n in range(1, 10)}, **{f"bamboo_{n}": f"{n}s" for n in range(1, 10)},
    **{f"character_{n}": f"{n}m" for n in range(1, 10)},
    "dragon_red": "C", "dragon_green": "F", "dragon_white": "P",
    "wind_east": "E", "wind_south": "S", "wind_west": "W", "wind_north": "N",
    "flower_plum": "a", "flower_orchid": "b", "flower_bamboo": "c", "flower_chrysanthemum": "d",
    "season_spring": "e", "season_summer": "f", "season_fall": "g", "season_winter": "h",
}


def _gleitz_faces(folder: Path) -> list[Face]:
    faces = []
    for stem, tile in _GLEITZ.items():
        image = cv2.imread(str(folder / f"{stem}.png"), cv2.IMREAD_COLOR)
        if image is None:
            continue
        image = cv2.resize(image, (FACE_W, FACE_H), interpolation=cv2.INTER_CUBIC)
        rgba = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
        faces.append(Face("gleitz", tile, rgba, full_tile=True))
    return faces


# Mahjong Tiles block order: E S W N, red green white dragon, 1-9m, 1-9s, 1-9p, plum orchid bamboo chrysanthemum,
# spring summer autumn winter.
_BLOCK = ["E", "S", "W", "N", "C", "F", "P", *[f"{n}m" for n in range(1, 10)], *[f"{n}s" for n in range(1, 10)],
          *[f"{n}p" for n in range(1, 10)], "a", "b", "c", "d", "e", "f", "g", "h"]


def _svg(body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{FACE_W}" height="{FACE_H}" '
            f'viewBox="0 0 {FACE_W} {FACE_H}">{body}</svg>')


def _text(x: float, y: float, size: float, text: str, font: str, colour: str, anchor: str = "middle") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" font-family="{font}" fill="{colour}" '
            f'text-anchor="{anchor}" dominant-baseline="central">{text}</text>')


BLOCK_FONTS = ("Symbola", "Noto Sans Symbols2")


def block_faces(cache: Path, fonts: tuple[str, ...] = BLOCK_FONTS) -> list[Face]:
    """The Unicode Mahjong Tiles glyphs; their drawn tile outline is cut off so the face sits on our body."""
    faces = []
    for font in fonts:
        style = "font-" + font.split()[0].lower() + ("2" if "2" in font else "")
        for offset, tile in enumerate(_BLOCK):
            glyph = f"&#x{0x1F000 + offset:X};"
            rgba = _rasterise(_svg(_text(75, 100, 190, glyph, font, "#000")), cache / style / f"{tile}.png")
            if not _has_ink(rgba):
                continue
            ys, xs = np.nonzero(rgba[..., 3] > 40)
            x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
            mx, my = int((x1 - x0) * 0.1), int((y1 - y0) * 0.08)
            inner = rgba[y0 + my:y1 - my, x0 + mx:x1 - mx]
            if inner.size and _has_ink(inner):
                faces.append(Face(style, tile, cv2.resize(inner, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)))
    return faces


_CJK_FONTS = ("AR PL UKai TW", "AR PL UMing TW", "Noto Serif CJK TC", "Noto Sans CJK TC")
_NUMERALS = "一二三四五六七八九"
_WINDS = {"E": ("東", "E"), "S": ("南", "S"), "W": ("西", "W"), "N": ("北", "N")}
_FLOWER_NAMES = {"a": ("梅", 1), "b": ("蘭", 2), "c": ("竹", 4), "d": ("菊", 3),
                 "e": ("春", 1), "f": ("夏", 2), "g": ("秋", 3), "h": ("冬", 4)}


def _composed_faces(cache: Path) -> list[Face]:
    """HK-style faces from CJK fonts: what the corner indices and characters of real sets look like."""
    faces = []
    for f_index, font in enumerate(_CJK_FONTS):
        style = f"cjk{f_index}"
        variants: dict[str, list[str]] = {}
        for n in range(1, 10):
            main = _text(75, 58, 78, _NUMERALS[n - 1], font, "#1a1a80") + _text(75, 140, 92, "萬", font, "#b01010")
            corner = _text(18, 20, 30, str(n), "DejaVu Sans", "#b01010")
            variants[f"{n}m"] = [main, main + corner]
        for tile, (char, letter) in _WINDS.items():
            main = _text(75, 100, 120, char, font, "#1a1a80" if f_index % 2 else "#101010")
            variants[tile] = [main, main + _text(20, 20, 28, letter, "DejaVu Sans", "#1a1a80")]
        variants["C"] = [_text(75, 100, 130, "中", font, "#c01010")]
        variants["F"] = [_text(75, 100, 120, "發", font, "#107020")]
        frame = '<rect x="22" y="28" width="106" height="144" rx="6" fill="none" stroke="#1a3aa0" stroke-width="9"/>'
        inner = '<rect x="38" y="46" width="74" height="108" rx="4" fill="none" stroke="#1a3aa0" stroke-width="4"/>'
        variants["P"] = [frame, frame + inner]
        for tile, (char, number) in _FLOWER_NAMES.items():
            colour = "#107020" if tile in "abcd" else "#b01010"
            big = _text(75, 105, 96, char, font, colour)
            digit = _text(22, 24, 34, str(number), "DejaVu Sans", "#1a1a80")
            small = _text(128, 30, 30, char, font, "#b01010")
            variants[tile] = [big + digit, big + digit + small, _text(75, 120, 70, char, font, colour) + digit]
        for tile, bodies in variants.items():
            for v, body in enumerate(bodies):
                rgba = _rasterise(_svg(body), cache / style / f"{tile}_{v}.png")
                if _has_ink(rgba):
                    faces.append(Face(style, tile, rgba))
    return faces


def _picture_flowers(pictures: list[Face], cache: Path) -> list[Face]:
    """HK-style flowers and seasons: another style's picture, shrunk, with the corner number and name character.

    The picture usually belongs to the same tile, sometimes to another flower or season: on a set never seen the
    picture is new, and only the number and the character still say which tile it is.
    """
    faces = []
    rng = np.random.default_rng(7)
    flowers = [f for f in pictures if f.tile in _FLOWER_NAMES and not f.full_tile]
    if not flowers:
        return faces
    for f_index, font in enumerate(_CJK_FONTS):
        for tile, (char, number) in _FLOWER_NAMES.items():
            own = [f for f in flowers if f.tile == tile]
            for variant in range(3):
                source = own[rng.integers(len(own))] if (own and variant < 2) else flowers[rng.integers(len(flowers))]
                text = (_text(22, 24, 34, str(number), "DejaVu Sans", "#1a1a80")
                        + _text(124, 30, 34, char, font, "#b01010" if tile in "efgh" else "#107020"))
                cache_name = f"cjkpic{f_index}"
                label = _rasterise(_svg(text), cache / cache_name / f"{tile}_{variant}.png")
                if label is None:
                    continue
                canvas = label.astype(np.float32)
                art = cv2.resize(source.rgba, (112, 150), interpolation=cv2.INTER_AREA).astype(np.float32)
                y0, x0 = 46, 19
                region = canvas[y0:y0 + 150, x0:x0 + 112]
                a = art[..., 3:4] / 255.0
                region[..., :3] = region[..., :3] * (1 - a) + art[..., :3] * a
                region[..., 3:] = np.maximum(region[..., 3:], art[..., 3:])
                faces.append(Face(f"cjkpic{f_index}", tile, canvas.astype(np.uint8)))
    return faces


# Candidate recipe (`glyph_variant_faces`): more CJK fonts for training, and fonts kept out of every training run so
# that renders of them measure how the classifier reads a set it has never seen (benchmarks/eval_heldout_fonts.py).
VARIANT_FONTS = ("LXGW WenKai", "cwTeXKai", "cwTeXMing", "cwTeXFangSong", "KouzanBrushFont", "Klee One")
HELD_OUT_FONTS = ("WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "IPAexMincho", "IPAexGothic", "cwTeXYen", "SetoFont")
# Tiles the development split and new sessions confuse most (7m/6m -> 9m, 2m -> 3m, 2p -> 4p, 6s -> 9s): more
# glyph variants drawn for them.
CONFUSABLE = ("2m", "3m", "6m", "7m", "9m", "2p", "4p", "6s", "9s")
_CHINESE_DIGITS = "一二三四"


def _glyph(x: float, y: float, size: float, text: str, font: str, colour: str, weight: str = "normal",
           squeeze: float = 1.0) -> str:
    """Text centred on (x, y), optionally bold and narrowed / widened by `squeeze` (sets draw glyphs tall or wide)."""
    return (f'<g transform="translate({x:.1f} {y:.1f}) scale({squeeze:.2f} 1)"><text x="0" y="0" '
            f'font-size="{size:.1f}" font-family="{font}" font-weight="{weight}" fill="{colour}" '
            f'text-anchor="middle" dominant-baseline="central">{text}</text></g>')


def _man_body(n: int, font: str, rng: np.random.Generator) -> str:
    """A character tile with a random layout: numeral over 萬 (sometimes 万), sizes, weight, colours, corner digit."""
    weight = "bold" if rng.random() < 0.4 else "normal"
    squeeze = float(rng.uniform(0.8, 1.25))
    numeral_colour = str(rng.choice(["#1a1a80", "#101010", "#b01010", "#0b5a1a"]))
    man_colour = str(rng.choice(["#b01010", "#c02020", "#101010"]))
    numeral_size, man_size = rng.uniform(60, 96), rng.uniform(70, 100)
    numeral_y, man_y = rng.uniform(46, 66), rng.uniform(130, 150)
    body = (_glyph(75, numeral_y, numeral_size, _NUMERALS[n - 1], font, numeral_colour, weight, squeeze)
            + _glyph(75, man_y, man_size, "萬" if rng.random() < 0.85 else "万", font, man_colour, weight, squeeze))
    if rng.random() < 0.4:
        x = 18 if rng.random() < 0.6 else 132
        body += _text(x, 20, rng.uniform(24, 34), str(n), "DejaVu Sans", man_colour)
    return body


def _flower_body(tile: str, font: str, rng: np.random.Generator) -> str:
    """A flower or season as characters and numbers: one big name character alone, with a number in any corner
    (Arabic or Chinese), or a big number over the character."""
    char, number = _FLOWER_NAMES[tile]
    colour = str(rng.choice(["#107020", "#b01010", "#1a3aa0", "#101010"]))
    weight = "bold" if rng.random() < 0.3 else "normal"
    kind = int(rng.integers(4))
    if kind == 0:  # one big character
        return _glyph(75, 100, rng.uniform(105, 135), char, font, colour, weight, float(rng.uniform(0.85, 1.1)))
    if kind == 3:  # a big number over the character
        return (_glyph(75, 62, rng.uniform(70, 95), str(number), "DejaVu Serif", colour, weight)
                + _glyph(75, 150, rng.uniform(55, 75), char, font, colour, weight))
    big = _glyph(75, rng.uniform(95, 115), rng.uniform(80, 110), char, font, colour, weight)
    x, y = (22, 24) if rng.random() < 0.5 else (128, 24) if rng.random() < 0.5 else (22, 176)
    digit = str(number) if kind == 1 else _CHINESE_DIGITS[number - 1]
    return big + _text(x, y, rng.uniform(26, 40), digit, "DejaVu Sans" if kind == 1 else font, "#1a1a80")


def glyph_variant_faces(cache: Path, fonts: tuple[str, ...], style: str, seed: int,
                        drawn_suits: bool = True) -> list[Face]:
    """Character tiles, winds, red and green dragons, flowers and seasons in random layouts from each of `fonts`
    (more variants of the `CONFUSABLE` tiles), and, with `drawn_suits`, dots and bamboo drawn from their layouts
    (`drawn_suits`). Cached under `cache/style*`; the same seed gives the same faces."""
    from fanscan.training.drawn_suits import suit_bodies

    rng = np.random.default_rng(seed)
    bodies: list[tuple[str, str, str]] = []  # (folder, tile, svg body)
    for f_index, font in enumerate(fonts):
        folder = f"{style}{f_index}"
        for n in range(1, 10):
            count = 5 if f"{n}m" in CONFUSABLE else 3
            bodies += [(folder, f"{n}m", _man_body(n, font, rng)) for _ in range(count)]
        for tile, (char, letter) in _WINDS.items():
            for _ in range(2):
                main = _glyph(75, 100, rng.uniform(95, 125), char, font, str(rng.choice(["#1a1a80", "#101010"])),
                              "bold" if rng.random() < 0.4 else "normal", float(rng.uniform(0.85, 1.15)))
                bodies.append((folder, tile, main + (_text(20, 20, 28, letter, "DejaVu Sans", "#1a1a80")
                                                     if rng.random() < 0.5 else "")))
        bodies.append((folder, "C", _glyph(75, 100, rng.uniform(110, 135), "中", font, "#c01010",
                                           "bold" if rng.random() < 0.4 else "normal")))
        bodies.append((folder, "F", _glyph(75, 100, rng.uniform(100, 125), "發", font, "#107020",
                                           "bold" if rng.random() < 0.4 else "normal")))
        for tile in _FLOWER_NAMES:
            bodies += [(folder, tile, _flower_body(tile, font, rng)) for _ in range(4)]
    if drawn_suits:
        for tile, svgs in suit_bodies(6, seed + 1).items():
            count = len(svgs) if tile in CONFUSABLE else 4
            bodies += [(f"{style}-drawn", tile, body) for body in svgs[:count]]
    faces = []
    numbering: dict[tuple[str, str], int] = {}
    for folder, tile, body in bodies:
        v = numbering[(folder, tile)] = numbering.get((folder, tile), -1) + 1
        rgba = _rasterise(_svg(body), cache / folder / f"{tile}_{v}.png")
        if _has_ink(rgba):
            faces.append(Face(folder, tile, rgba))
    return faces


def build_faces(artwork: Path, cache: Path, glyph_variants: bool = False) -> tuple[dict[str, list[Face]], list[Face]]:
    """All faces by tile id, and the back designs. Rasterised SVGs are cached under `cache`. `glyph_variants` adds
    the candidate recipe's faces (`glyph_variant_faces` over the shipped fonts and `VARIANT_FONTS`)."""
    artwork, cache = Path(artwork), Path(cache)
    faces: list[Face] = []
    backs: list[Face] = []
    if (artwork / "gleitz-mit").is_dir():
        faces += _gleitz_faces(artwork / "gleitz-mit")
    if have_rsvg():
        for name, style in (("uni.svg", "uni"), ("unib.svg", "unib")):
            path = artwork / "unicode-color-pd" / name
            if path.exists():
                faces += _sprite_faces(path, style, cache)
        if (artwork / "fluffystuff-cc0").is_dir():
            fluffy, backs = _fluffy_faces(artwork / "fluffystuff-cc0", cache)
            faces += fluffy
        faces += block_faces(cache)
        faces += _composed_faces(cache)
        pictures = [f for f in faces if f.style in ("uni", "unib", "font-symbola", "font-noto2")]
        faces += _picture_flowers(pictures, cache)
        if glyph_variants:
            faces += glyph_variant_faces(cache, _CJK_FONTS + VARIANT_FONTS, "variant", seed=11)
    by_tile: dict[str, list[Face]] = {}
    for face in faces:
        by_tile.setdefault(face.tile, []).append(face)
    return by_tile, backs
