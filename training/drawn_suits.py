"""Dots and bamboo faces drawn from their layouts (SVG bodies), in many styles: what varies between makers.

The artwork sets give five drawings of each suit tile; a set never seen arranges the same counts in the same
layouts with other colours, ring styles and stick shapes. Drawing the layouts with random styles teaches the count
and arrangement (2 dots vs 4 dots, 6 sticks vs 9 sticks) rather than one artist's strokes. The one-dot and the
one-bamboo (usually a bird) are left to the artwork. Used by `faces.glyph_variant_faces` (candidate recipe).
"""

from __future__ import annotations

import numpy as np

# Face box 150 x 200 (faces.FACE_W x FACE_H); positions are (x, y) centres.
_COL2, _COL3 = (48, 102), (36, 75, 114)
_DOTS: dict[int, list[tuple[float, float]]] = {
    2: [(75, 55), (75, 145)],
    3: [(38, 42), (75, 100), (112, 158)],
    4: [(x, y) for y in (55, 145) for x in _COL2],
    5: [(x, y) for y in (45, 155) for x in (40, 110)] + [(75, 100)],
    6: [(x, y) for y in (40, 110, 165) for x in _COL2],
    7: [(36, 30), (75, 55), (114, 80)] + [(x, y) for y in (125, 170) for x in _COL2],
    8: [(x, y) for y in (28, 76, 124, 172) for x in _COL2],
    9: [(x, y) for y in (40, 100, 160) for x in _COL3],
}
# Bamboo sticks: (x, y, tilt in degrees).
_STICKS: dict[int, list[tuple[float, float, float]]] = {
    2: [(75, 55, 0), (75, 145, 0)],
    3: [(75, 55, 0), (45, 145, 0), (105, 145, 0)],
    4: [(x, y, 0) for y in (55, 145) for x in (50, 100)],
    5: [(x, y, 0) for y in (55, 145) for x in (35, 115)] + [(75, 100, 0)],
    6: [(x, y, 0) for y in (55, 145) for x in _COL3],
    7: [(75, 35, 0)] + [(x, y, 0) for y in (105, 165) for x in _COL3],
    8: [(30, 55, 0), (60, 55, 25), (90, 55, -25), (120, 55, 0), (30, 145, 0), (60, 145, -25), (90, 145, 25),
        (120, 145, 0)],
    9: [(x, y, 0) for y in (38, 100, 162) for x in _COL3],
}
_INKS = ("#1a3aa0", "#107020", "#b01010", "#101010", "#0a6a6a")


def _dot(x: float, y: float, r: float, style: int, colours: list[str]) -> str:
    a, b = colours[0], colours[1]
    if style == 0:  # rings
        return (f'<circle cx="{x}" cy="{y}" r="{r}" fill="none" stroke="{a}" stroke-width="{r * 0.22:.1f}"/>'
                f'<circle cx="{x}" cy="{y}" r="{r * 0.45:.1f}" fill="{b}"/>')
    if style == 1:  # solid with a light centre
        return (f'<circle cx="{x}" cy="{y}" r="{r}" fill="{a}"/>'
                f'<circle cx="{x}" cy="{y}" r="{r * 0.35:.1f}" fill="#f4f0e0"/>')
    # petals: a ring of small circles around a centre
    petals = "".join(f'<circle cx="{x + 0.62 * r * np.cos(t):.1f}" cy="{y + 0.62 * r * np.sin(t):.1f}" '
                     f'r="{r * 0.3:.1f}" fill="{a}"/>' for t in np.linspace(0, 2 * np.pi, 8, endpoint=False))
    return petals + f'<circle cx="{x}" cy="{y}" r="{r * 0.3:.1f}" fill="{b}"/>'


def _stick(x: float, y: float, tilt: float, width: float, length: float, colour: str, nodes: int) -> str:
    half_w, half_l = width / 2, length / 2
    body = (f'<rect x="{-half_w:.1f}" y="{-half_l:.1f}" width="{width:.1f}" height="{length:.1f}" '
            f'rx="{half_w * 0.6:.1f}" fill="{colour}"/>')
    joints = "".join(f'<rect x="{-half_w * 1.2:.1f}" y="{-half_l + length * k / (nodes + 1) - 1.5:.1f}" '
                     f'width="{width * 1.2:.1f}" height="3" fill="#f4f0e0"/>' for k in range(1, nodes + 1))
    spine = f'<line x1="0" y1="{-half_l + 3:.1f}" x2="0" y2="{half_l - 3:.1f}" stroke="#f4f0e0" stroke-width="1.5"/>'
    return f'<g transform="translate({x} {y}) rotate({tilt})">{body}{joints}{spine}</g>'


def dots_body(count: int, rng: np.random.Generator) -> str:
    """SVG body of the `count`-dots face in a random style."""
    places = _DOTS[count]
    r = {2: 34, 3: 26, 4: 30, 5: 26, 6: 23, 7: 20, 8: 20, 9: 18}[count] * rng.uniform(0.85, 1.05)
    style = int(rng.integers(3))
    colours = [str(c) for c in rng.choice(_INKS, 3, replace=False)]
    parts = []
    for i, (x, y) in enumerate(places):
        # Sets often colour groups apart (the top of 6 and 7 dots, the middle of 5): swap colours by group.
        swap = (count in (6, 7) and i < (2 if count == 6 else 3)) or (count == 5 and i == 4)
        ink = [colours[2], colours[0]] if swap and rng.random() < 0.8 else colours[:2]
        parts.append(_dot(x, y, r, style, ink))
    return "".join(parts)


def bamboo_body(count: int, rng: np.random.Generator) -> str:
    """SVG body of the `count`-bamboo face in a random style."""
    places = _STICKS[count]
    width = (14 if count <= 5 else 11) * rng.uniform(0.8, 1.2)
    length = (70 if count <= 6 else 52) * rng.uniform(0.85, 1.05)
    if count == 8:
        length *= 1.3
    green, accent = str(rng.choice((*_INKS[:2], "#2a8a3a"))), str(rng.choice(("#b01010", "#1a3aa0", "#107020")))
    nodes = int(rng.integers(1, 3))
    parts = []
    for i, (x, y, tilt) in enumerate(places):
        # The centre stick of 5, the top one of 7 and of 9's middle column are often red.
        red = (count == 5 and i == 4) or (count == 7 and i == 0) or (count == 9 and i % 3 == 1 and rng.random() < 0.5)
        parts.append(_stick(x, y, tilt, width, length, accent if red else green, nodes))
    return "".join(parts)


def suit_bodies(variants: int, seed: int) -> dict[str, list[str]]:
    """`variants` SVG bodies of each of 2-9 dots and 2-9 bamboo, keyed by tile id."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[str]] = {}
    for count in range(2, 10):
        out[f"{count}p"] = [dots_body(count, rng) for _ in range(variants)]
        out[f"{count}s"] = [bamboo_body(count, rng) for _ in range(variants)]
    return out
