"""Which tiles of a table photo are the hand, and which lie on the table (discards) and are set aside.

A photo taken from the player's seat shows the hand nearest the camera: the largest tiles, in the longest row
(standing on a rack or laid flat), with the claimed melds in that row or in a row just before or behind it, and the
winning tile perhaps set apart. Discards lie further away (smaller), scattered or in short rows. So:

1. the anchor is the longest row (at least ANCHOR_MIN_TILES tiles) among the rows whose tiles are nearly as large as
   the largest row's (NEAR_CAMERA_SIZE); ties go to the row nearest the bottom of the photo;
2. along the anchor, the hand is the run of tiles around its longest group that has no gap wider than MAX_HAND_GAP
   tile widths (melds and a winning tile set apart are closer than that; a discard beside the rack is not);
3. a row joins the hand when its tiles are about the anchor's size (within SIZE_RATIO; a row in front, nearer the
   camera, may be up to FRONT_SIZE_RATIO larger), it lies within
   MAX_ROW_DISTANCE tile heights behind the hand's rows or MAX_FRONT_DISTANCE in front of them (nearer the camera,
   where a winning tile or melds are put forward), and along the row within the hand's span;
4. a tile in the hand's rows that is much smaller than the hand's (less than MIN_TILE_SIZE of it) is a discard seen
   further away that happens to line up.

Everything else is set aside: shown as a table tile, never silently added to the hand. The split is called
ambiguous when another row nearly as long and as large as the anchor was set aside; when the hand so found would be
short of 13 tiles, nothing is set aside at all (the rows were not told apart well enough) and it is called ambiguous
too. Rows are those of `vision.rows`, unless the tiles' own commonest direction is more than MAX_TURN degrees from
theirs (a photo turned about 45 degrees): then they are found again along that direction. A tile the user put in
or out of the hand (`forced`) stays there.

Sizes are the long side of a tile's extent (the same whether it stands or lies sideways). The thresholds in
benchmarks/eval_hand_apart.py's GRID were chosen by its grid search on the development half of its composed table
scenes; FRONT_SIZE_RATIO, MAX_TURN, the fall-back below 13 tiles and the row direction were added after looking at
real photos of the development split (`vision.splits`) where hand tiles were set aside; ANCHOR_MIN_TILES and
RIVAL_LENGTH are set by hand, not searched.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from fanscan.vision.rows import Layout, Point, TilePlacement, find_rows, place_tiles, quad_center


@dataclass(frozen=True)
class HandApartSettings:
    anchor_min_tiles: int = 3
    near_camera_size: float = 0.8
    max_hand_gap: float = 2.5
    size_ratio: float = 1.1
    # A row in front of the hand may have tiles this much larger (nearer the camera, so larger: a hand in two rows).
    front_size_ratio: float = 1.6
    max_row_distance: float = 0.25  # behind the hand (further from the camera), in tile heights
    max_front_distance: float = 1.5  # in front of it (nearer the camera: a winning tile or melds put forward)
    min_tile_size: float = 0.7
    # Rows running this far (degrees) from the layout's rows are found again along the tiles' own direction.
    max_turn: float = 20.0
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


def dominant_direction(quads: Sequence[Sequence[Point]]) -> float:
    """The commonest direction (degrees, -90..90) from each tile to its nearest neighbour, at any angle: a photo
    turned 45 degrees has its rows running diagonally, which the row finder (it ignores neighbours steeper than
    45 degrees) breaks into pieces."""
    centers = [quad_center(q) for q in quads]
    angles = []
    for i, (x, y) in enumerate(centers):
        others = [(x2 - x, y2 - y) for j, (x2, y2) in enumerate(centers) if j != i]
        if others:
            dx, dy = min(others, key=lambda v: v[0] ** 2 + v[1] ** 2)
            angle = math.degrees(math.atan2(dy, dx))
            angles.append((angle + 90.0) % 180.0 - 90.0)
    if not angles:
        return 0.0
    # The 20-degree window holding most directions (on the circle of directions), then their circular mean.
    best = max(range(-90, 90, 5), key=lambda c: sum(abs((a - c + 90.0) % 180.0 - 90.0) <= 10.0 for a in angles))
    near = [(a - best + 90.0) % 180.0 - 90.0 for a in angles if abs((a - best + 90.0) % 180.0 - 90.0) <= 10.0]
    return (best + statistics.median(near) + 90.0) % 180.0 - 90.0


def split_hand(layout: Layout, quads: Sequence[Sequence[Point]], forced: Sequence[bool | None] | None = None,
               settings: HandApartSettings = DEFAULT_SETTINGS) -> HandApart:
    """The hand and the set-aside tiles of a photo whose tiles (`quads`) were laid out in `layout` (see the module
    docstring). `forced[i]`: True = set aside, False = in the hand, None = decided here."""
    n_tiles = len(quads)
    forced = list(forced) if forced is not None else [None] * n_tiles
    direction = dominant_direction(quads)
    if abs((direction - layout.angle_deg + 90.0) % 180.0 - 90.0) > settings.max_turn:
        # Rows along the tiles' own direction: the photo turned so that rows run across, then rows found again.
        turn = math.radians(-direction)
        cos_t, sin_t = math.cos(turn), math.sin(turn)
        quads = [tuple((x * cos_t - y * sin_t, x * sin_t + y * cos_t) for x, y in quad) for quad in quads]
        layout = find_rows(quads)
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
                largest = settings.front_size_ratio if front > behind else settings.size_ratio
                if 1 / settings.size_ratio <= ratio <= largest and behind <= settings.max_row_distance \
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
        # Too few tiles left for a hand: the rows were not told apart well enough to take any tile out. Nothing is
        # set aside, and the proposal says the split is unclear.
        return HandApart(tuple(range(n_tiles)), (), True)
    return HandApart(tuple(sorted(in_hand)), set_aside, ambiguous and bool(set_aside))
