"""Which tiles of a table photo are the hand, and which lie on the table (discards) and are set aside.

A photo taken from the player's seat shows the hand nearest the camera: the largest tiles, in the longest row
(standing on a rack or laid flat), with the claimed melds in that row or in a row just before or behind it, and the
winning tile perhaps set apart. Discards lie further away (smaller), scattered or in short rows. So:

1. the anchor is the longest row (at least ANCHOR_MIN_TILES tiles) among the rows whose tiles are nearly as large as
   the largest row's (NEAR_CAMERA_SIZE); ties go to the row nearest the bottom of the photo;
2. along the anchor, the hand is the run of tiles around its longest group that has no gap wider than MAX_HAND_GAP
   tile widths (melds and a winning tile set apart are closer than that; a discard beside the rack is not);
3. a row joins the hand when its tiles are about the anchor's size (within SIZE_RATIO), it lies within
   MAX_ROW_DISTANCE tile heights behind the hand's rows or MAX_FRONT_DISTANCE in front of them (nearer the camera,
   where a winning tile or melds are put forward), and along the row within the hand's span;
4. a tile in the hand's rows that is much smaller than the hand's (less than MIN_TILE_SIZE of it) is a discard seen
   further away that happens to line up.

Everything else is set aside: shown as a table tile, never silently added to the hand. The split is called
ambiguous when the hand so found is short of 13 tiles while tiles were set aside, or when another row nearly as long
and as large as the anchor was set aside. A tile the user put in or out of the hand (`forced`) stays there.

Sizes are the long side of a tile's extent (the same whether it stands or lies sideways). The thresholds were
chosen on the development half of the composed table scenes of benchmarks/eval_hand_apart.py.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from fanscan.vision.rows import Layout, Point, TilePlacement, place_tiles


@dataclass(frozen=True)
class HandApartSettings:
    anchor_min_tiles: int = 3
    near_camera_size: float = 0.85
    max_hand_gap: float = 2.5
    size_ratio: float = 1.3
    max_row_distance: float = 1.0  # behind the hand (further from the camera), in tile heights
    max_front_distance: float = 2.5  # in front of it (nearer the camera: a winning tile or melds put forward)
    min_tile_size: float = 0.7
    # Another row at least this share of the anchor's length (and near the camera) makes the choice ambiguous.
    rival_length: float = 0.75


DEFAULT_SETTINGS = HandApartSettings()
# A hand shows at least 13 tiles (a ready hand); fewer in the hand while tiles were set aside is suspicious.
HAND_MIN_TILES = 13


@dataclass(frozen=True)
class HandApart:
    """Observed indices in the hand and set aside (both sorted), and whether the split is unsure."""

    hand: tuple[int, ...]
    set_aside: tuple[int, ...]
    ambiguous: bool = False


@dataclass(frozen=True)
class _RowStats:
    tiles: tuple[int, ...]
    size: float  # median long side
    n0: float  # median top, across the row
    n1: float  # median bottom
    u0: float
    u1: float


def _size(p: TilePlacement) -> float:
    return max(p.u1 - p.u0, p.n1 - p.n0)


def _row_stats(tiles: Sequence[int], placed: Sequence[TilePlacement]) -> _RowStats:
    ps = [placed[i] for i in tiles]
    return _RowStats(tuple(tiles), statistics.median(_size(p) for p in ps), statistics.median(p.n0 for p in ps),
                     statistics.median(p.n1 for p in ps), min(p.u0 for p in ps), max(p.u1 for p in ps))


def _run_around_longest_group(row: Sequence[int], placed: Sequence[TilePlacement], width: float,
                              max_gap: float) -> list[int]:
    """The tiles of `row` (left to right) linked to its longest gap-free stretch by gaps of at most `max_gap`
    tile widths."""
    runs: list[list[int]] = [[row[0]]]
    for a, b in itertools.pairwise(row):
        if (placed[b].u0 - placed[a].u1) / width > max_gap:
            runs.append([])
        runs[-1].append(b)
    # Several runs: the hand is the longest (ties: the one holding the largest tiles).
    return max(runs, key=lambda run: (len(run), statistics.median(_size(placed[i]) for i in run)))


def split_hand(layout: Layout, quads: Sequence[Sequence[Point]], forced: Sequence[bool | None] | None = None,
               settings: HandApartSettings = DEFAULT_SETTINGS) -> HandApart:
    """The hand and the set-aside tiles of a photo whose tiles (`quads`) were laid out in `layout` (see the module
    docstring). `forced[i]`: True = set aside, False = in the hand, None = decided here."""
    n_tiles = len(quads)
    forced = list(forced) if forced is not None else [None] * n_tiles
    rows = [row.tiles for row in layout.rows if row.tiles]
    placed = place_tiles(quads, math.radians(layout.angle_deg))
    stats = [_row_stats(row, placed) for row in rows]
    candidates = [k for k, s in enumerate(stats) if len(s.tiles) >= settings.anchor_min_tiles]
    in_hand: set[int] = set(range(n_tiles))
    ambiguous = False
    if candidates:
        biggest = max(stats[k].size for k in candidates)
        near = [k for k in candidates if stats[k].size >= settings.near_camera_size * biggest]
        anchor = max(near, key=lambda k: (len(stats[k].tiles), stats[k].n1))
        anchor_stats = stats[anchor]
        width = statistics.median(min(placed[i].u1 - placed[i].u0, placed[i].n1 - placed[i].n0)
                                  for i in anchor_stats.tiles) or 1.0
        height = anchor_stats.size or 1.0
        run = _run_around_longest_group(anchor_stats.tiles, placed, width, settings.max_hand_gap)
        in_hand = set(run)
        span = (min(placed[i].u0 for i in run) - settings.max_hand_gap * width,
                max(placed[i].u1 for i in run) + settings.max_hand_gap * width)
        band = (statistics.median(placed[i].n0 for i in run), statistics.median(placed[i].n1 for i in run))
        joined = {anchor}
        grew = True
        while grew:
            grew = False
            for k, s in enumerate(stats):
                if k in joined:
                    continue
                ratio = s.size / height
                behind, front = (band[0] - s.n1) / height, (s.n0 - band[1]) / height
                along = s.u1 >= span[0] and s.u0 <= span[1]
                if 1 / settings.size_ratio <= ratio <= settings.size_ratio and behind <= settings.max_row_distance \
                        and front <= settings.max_front_distance and along:
                    joined.add(k)
                    in_hand.update(i for i in s.tiles if span[0] <= placed[i].u_center <= span[1])
                    band = (min(band[0], s.n0), max(band[1], s.n1))
                    grew = True
        in_hand = {i for i in in_hand if _size(placed[i]) >= settings.min_tile_size * height}
        rivals = [k for k in near if k not in joined
                  and len(stats[k].tiles) >= settings.rival_length * len(anchor_stats.tiles)]
        ambiguous = bool(rivals)
    for i, force in enumerate(forced):
        if force is True:
            in_hand.discard(i)
        elif force is False:
            in_hand.add(i)
    set_aside = tuple(i for i in range(n_tiles) if i not in in_hand)
    if set_aside and len(in_hand) < HAND_MIN_TILES and all(f is None for f in forced):
        ambiguous = True
    return HandApart(tuple(sorted(in_hand)), set_aside, ambiguous and bool(set_aside))
