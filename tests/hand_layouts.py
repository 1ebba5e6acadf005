"""Synthetic tile geometries for the grouping tests: tiles laid out in rows like a photo would show them."""

from __future__ import annotations

import math

from fanscan.vision.group import SIDEWAYS, UPRIGHT, ObservedTile

TILE_W, TILE_H = 30.0, 40.0


def sure(tile: str) -> tuple[tuple[str, float], ...]:
    """A near-certain classifier answer."""
    return ((tile, 0.999), ("none", 0.001))


def lay_row(specs, y: float = 100.0, x: float = 20.0, gap: float = 2.0, angle_deg: float = 0.0, scale: float = 1.0,
            flat: float = 1.0) -> list[ObservedTile]:
    """One row, left to right. Each spec is a tile id (near-certain), a candidates tuple, or a dict with keys
    `tile`/`candidates`, `sideways` (lies across the row, bottom-aligned) and `gap_before` (pixels). `scale`: the
    tiles' size against TILE_W x TILE_H (further from the camera: smaller); `flat`: their height's share (a tile
    lying flat on the table looks shorter)."""
    tiles = []
    cos_a, sin_a = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    for spec in specs:
        if isinstance(spec, str):
            spec = {"tile": spec}
        elif isinstance(spec, tuple):
            spec = {"candidates": spec}
        candidates = spec.get("candidates") or sure(spec["tile"])
        sideways = spec.get("sideways", False)
        x += spec.get("gap_before", 0.0)
        tile_w, tile_h = TILE_W * scale, TILE_H * scale * flat
        w, h = (tile_h, tile_w) if sideways else (tile_w, tile_h)
        corners = [(x, y + tile_h - h), (x + w, y + tile_h - h), (x + w, y + tile_h), (x, y + tile_h)]
        quad = tuple((px * cos_a - py * sin_a, px * sin_a + py * cos_a) for px, py in corners)
        tiles.append(ObservedTile(quad, SIDEWAYS if sideways else UPRIGHT, tuple(candidates)))
        x += w + gap
    return tiles


def tiles_of(text: str) -> list[str]:
    """'123m55pE' -> ['1m', '2m', '3m', '5p', '5p', 'E'] (plain runs only, no melds)."""
    out, digits = [], ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        elif ch in "mps":
            out.extend(d + ch for d in digits)
            digits = ""
        else:
            out.append(ch)
    if digits:
        raise ValueError(f"{text!r}: numbers {digits} have no suit letter")
    return out
