"""From tiles in a photo to a hand: rows and gaps → groups → melds, and the reading the rules allow.

Geometry (`vision.rows`) splits the tiles into rows and, at gaps, into groups. The groups then get roles:
- a group with a tile lying sideways is a claimed meld (chow / pung of 3, kong of 4; the sideways tile is the
  claimed one); a longer run of touching claimed melds is cut into 3s and 4s, one sideways tile each;
- a group of four with two face-down tiles (`back`) and two equal faces is a concealed kong; any other face-down
  tile is left out (and reported);
- flowers and seasons go apart wherever they lie, `none` readings (not a tile) are dropped;
- everything else is a standing tile; a single tile set apart at the end of a row is the winning tile, otherwise the
  last standing tile is (and the proposal says it assumed so).

Which tile is which comes from the classifier's top-k combined with the rules: joint readings are enumerated from
the most probable down (`vision.readings`), as far as SEARCH_MARGIN below the classifier's own best (in summed -log
p), and the first one that is a complete winning hand with at most four of a kind is found. It is proposed only when
it is within RULES_MARGIN of the best reading; otherwise the classifier's reading stands and the complete one is kept
as the rules' suggestion (`Grouping.suggestion`), which a person (or `--accept-overrides`) may take. A 13-tile photo
gets the same treatment with "a ready hand" for "complete".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from fanscan.scoring.hand import CHOW, KONG, PUNG, Hand, Meld
from fanscan.scoring.tiles import FLOWERS, INDEX, N_KINDS
from fanscan.vision import hand_shape
from fanscan.vision.classify import BACK, NONE
from fanscan.vision.hand_apart import HandApart, split_hand
from fanscan.vision.readings import Candidate, best_first, prune_candidates
from fanscan.vision.rows import Layout, Point, Row, find_rows

UPRIGHT, SIDEWAYS = "upright", "sideways"

# How much less probable (summed -log p) a reading may be than the classifier's own best and still be proposed
# because the rules prefer it. Chosen on the development split (`benchmarks/rules_margin_sweep.py`): at 1000:1 the
# overrides made 3 hands exact and 12 wrong (a photo that is no complete hand forced into one), at 10:1 none exact;
# so the rules do not overrule the classifier in a proposal: they suggest.
RULES_MARGIN = math.log(1.0)
# How far below the best reading the rules look for a complete (or ready) one, their suggestion: 1000:1.
SEARCH_MARGIN = math.log(1000.0)
# At most this many joint readings are checked against the rules per photo (bounded time on unfamiliar sets).
MAX_READINGS = 3000
# Runner-up readings kept as alternatives: at most MAX_ALTERNATIVES, at least 1/50 as probable as the chosen one
# (less likely ones are not worth showing), looked for among at most ALTERNATIVE_SEARCH readings after it.
MAX_ALTERNATIVES = 3
ALTERNATIVE_MARGIN = math.log(50.0)
ALTERNATIVE_SEARCH = 100
# Below this probability a tile is called uncertain.
LOW_CONFIDENCE = 0.8
# A box lying this share of its area over another box, or smaller than this share of the photo's median box, may be
# a duplicate (one tile found twice, or a piece of one): `none` (not a tile) becomes as probable as half that
# overlap (or half the missing share of a tile), so that the rules drop such a box before they re-read a clear tile
# as something else (issue 20: hand_018's 7s suggested as a flower beside a duplicate white-dragon box). A box alone
# keeps the classifier's own `none`.
DUPLICATE_OVERLAP = 0.3
PART_OF_A_TILE = 0.6
MAX_OF_A_KIND = 4

# Status of a reading, best first.
COMPLETE, READY, INCOMPLETE, INVALID = hand_shape.COMPLETE, hand_shape.READY, hand_shape.INCOMPLETE, hand_shape.INVALID
_STATUS_RANK = {COMPLETE: 0, READY: 1, INCOMPLETE: 2, INVALID: 3}


@dataclass(frozen=True)
class ObservedTile:
    """What the earlier stages know of one tile: where (quad, image pixels), how the detector says it lies (kept for
    the proposal; grouping judges it from the quads), and what it may be (classifier top-k: tile ids, `back`,
    `none`, with probabilities)."""

    quad: tuple[Point, Point, Point, Point]
    orientation: str
    candidates: tuple[tuple[str, float], ...]
    score: float = 1.0
    # Whether the user put the tile out of the hand (True: a table tile) or into it (False); None: the photo's
    # geometry decides (`vision.hand_apart`).
    set_aside: bool | None = None


@dataclass(frozen=True)
class ProposedMeld:
    """A meld seen in the photo: the scoring meld and which observed tiles (left to right) show it."""

    meld: Meld
    indices: tuple[int, ...]


@dataclass(frozen=True)
class Reading:
    """One joint reading of the photo's tiles and the hand it makes."""

    tiles: tuple[str, ...]  # one reading per observed tile: a tile id, `back` or `none`
    cost: float  # sum of -log p over the tiles
    status: str  # complete | ready | incomplete | invalid
    melds: tuple[ProposedMeld, ...]
    standing: tuple[int, ...]  # observed indices of the standing tiles, in order; the winning tile is not among them
    winning: int | None  # observed index of the winning tile
    winning_set_apart: bool  # True when the photo shows the winning tile apart, False when it was assumed
    flowers: tuple[int, ...]
    dropped: tuple[int, ...]  # read as `none` (not a tile)
    face_down: tuple[int, ...] = ()  # backs outside a concealed kong: left out of the hand
    loose_claims: tuple[tuple[int, ...], ...] = ()  # tiles lying like a claimed meld that read as no meld: standing
    problem: str = ""  # why the reading is invalid or incomplete, in words

    def hand(self) -> Hand:
        """The scoring hand of this reading (no context)."""
        return Hand(
            melds=tuple(m.meld for m in self.melds),
            standing=tuple(self.tiles[i] for i in self.standing),
            winning_tile=self.tiles[self.winning] if self.winning is not None else None,
        )

    def flower_tiles(self) -> tuple[str, ...]:
        return tuple(self.tiles[i] for i in self.flowers)

    def tile_multiset(self) -> tuple[str, ...]:
        """Every tile id the photo shows as read (faces only: no backs, no `none`), sorted."""
        return tuple(sorted((t for t in self.tiles if t not in (BACK, NONE)), key=INDEX.__getitem__))


@dataclass(frozen=True)
class Grouping:
    layout: Layout
    best: Reading | None
    alternatives: tuple[Reading, ...]
    readings_checked: int
    warnings: tuple[str, ...] = field(default=())
    lone_sideways: tuple[int, ...] = ()  # sideways tiles that belong to no 3- or 4-tile group: read as standing
    set_aside: tuple[int, ...] = ()  # tiles on the table apart from the hand (discards): in no reading's hand
    hand_ambiguous: bool = False  # which tiles are the hand is unsure (`vision.hand_apart`)
    # The most probable complete (else ready) reading when it was too improbable to propose (beyond RULES_MARGIN):
    # what the rules suggest a person check. Also the first of `alternatives`.
    suggestion: Reading | None = None


# --------------------------------------------------------------------------------------------------------------------
# Structure: which groups are claimed melds (from geometry alone).


def _claimed_partitions(group: tuple[int, ...], sideways: Sequence[bool]) -> list[list[tuple[int, ...]]]:
    """Ways to cut a group holding sideways tiles into consecutive melds of 3 or 4 tiles with exactly one sideways
    tile each (players often push their claimed melds together)."""
    results: list[list[tuple[int, ...]]] = []

    def walk(start: int, parts: list[tuple[int, ...]]) -> None:
        if start == len(group):
            results.append(list(parts))
            return
        for size in (3, 4):
            part = group[start : start + size]
            if len(part) == size and sum(sideways[i] for i in part) == 1:
                walk(start + size, [*parts, part])

    walk(0, [])
    return results


@dataclass(frozen=True)
class _Structure:
    """One way to read the photo's geometry: claimed-meld tile runs, the other groups (in order), and which single
    tile is set apart at a row's end (the winning-tile position), if any."""

    claimed: tuple[tuple[int, ...], ...]
    other_groups: tuple[tuple[int, ...], ...]
    set_apart: int | None


def _structures(layout: Layout, sideways: Sequence[bool]) -> tuple[list[_Structure], list[int]]:
    """Every way to read the geometry, and the sideways tiles that fit no claimed meld."""
    lone_sideways: list[int] = []
    claimed_options: list[list[list[tuple[int, ...]]]] = []
    plain: list[tuple[int, ...]] = []
    for row in layout.rows:
        for group in row.groups:
            if not any(sideways[i] for i in group):
                plain.append(group)
                continue
            partitions = _claimed_partitions(group, sideways)
            if partitions:
                claimed_options.append(partitions)
            else:
                lone_sideways.extend(i for i in group if sideways[i])
                plain.append(group)
    # The winning tile is set apart: a lone tile at the end of a row that also holds other standing tiles,
    # or a lone tile in a row of its own.
    set_apart = None
    for row in layout.rows:
        row_plain = [g for g in row.groups if g in plain]
        lone_at_end = row_plain and len(row_plain[-1]) == 1 and row.groups[-1] == row_plain[-1]
        if lone_at_end and (len(row_plain) > 1 or len(row.groups) == 1):
            set_apart = row_plain[-1][0]
    structures = [
        _Structure(tuple(part for parts in combo for part in parts), tuple(plain), set_apart)
        for combo in itertools.product(*claimed_options)
    ]
    return structures, lone_sideways


# --------------------------------------------------------------------------------------------------------------------
# One reading under one structure → a hand and its status.


def _meld_from_claimed(tiles: Sequence[str], sideways_pos: int) -> Meld | None:
    """The claimed meld shown by `tiles` (display order), the sideways tile at `sideways_pos`; None if no meld."""
    if any(t not in INDEX or INDEX[t] >= N_KINDS for t in tiles):
        return None
    if len(set(tiles)) == 1:
        kind = KONG if len(tiles) == 4 else PUNG
        # Who gave it: the sideways tile's side (left = left player 1, middle = opposite 2, right = right player 3).
        claim = 1 if sideways_pos == 0 else 3 if sideways_pos == len(tiles) - 1 else 2
        return Meld(kind, tiles[0], claim)
    if len(tiles) == 3:
        order = sorted(tiles, key=INDEX.__getitem__)
        low = INDEX[order[0]]
        if low < 27 and low % 9 <= 6 and [INDEX[t] for t in order] == [low, low + 1, low + 2]:
            # For a chow the index says which of its tiles was claimed.
            return Meld(CHOW, order[0], INDEX[tiles[sideways_pos]] - low + 1)
    return None


def _assemble(tiles: Sequence[str], cost: float, structure: _Structure, sideways: Sequence[bool]) -> Reading:
    melds: list[ProposedMeld] = []
    flowers: list[int] = []
    dropped: list[int] = []
    standing: list[int] = []
    face_down: list[int] = []
    loose_claims: list[tuple[int, ...]] = []

    def sort_out(i: int) -> bool:
        """Flowers and `none` leave the hand wherever they lie; True if tile i did."""
        if tiles[i] in FLOWERS:
            flowers.append(i)
            return True
        if tiles[i] == NONE:
            dropped.append(i)
            return True
        return False

    for part in structure.claimed:
        kept = [i for i in part if not sort_out(i)]
        sideways_at = [k for k, i in enumerate(kept) if sideways[i]]
        meld = _meld_from_claimed([tiles[i] for i in kept], sideways_at[0]) if len(sideways_at) == 1 else None
        if meld is None:
            loose_claims.append(part)
            standing.extend(i for i in kept if tiles[i] != BACK)
            face_down.extend(i for i in kept if tiles[i] == BACK)
        else:
            melds.append(ProposedMeld(meld, tuple(kept)))
    for group in structure.other_groups:
        kept = [i for i in group if not sort_out(i)]
        backs = [i for i in kept if tiles[i] == BACK]
        faces = [i for i in kept if tiles[i] != BACK]
        if backs and len(kept) == 4 and len(backs) == 2 and tiles[faces[0]] == tiles[faces[1]]:
            melds.append(ProposedMeld(Meld(KONG, tiles[faces[0]], None, concealed=True), tuple(kept)))
            continue
        face_down.extend(backs)
        standing.extend(faces)

    # A hand of 13 (a ready hand photographed before the win) has no winning tile; otherwise the tile set apart
    # is the winning tile, or else the last standing tile.
    winning = None
    set_apart = structure.set_apart is not None and structure.set_apart in standing
    if len(standing) + 3 * len(melds) != 13:
        if set_apart:
            winning = structure.set_apart
        elif standing:
            winning = standing[-1]
    if winning is not None:
        standing.remove(winning)
    set_apart = set_apart and winning is not None

    reading = Reading(
        tiles=tuple(tiles), cost=cost, status=INVALID, melds=tuple(melds), standing=tuple(standing),
        winning=winning, winning_set_apart=set_apart, flowers=tuple(flowers), dropped=tuple(dropped),
        face_down=tuple(face_down), loose_claims=tuple(loose_claims),
    )
    status, problem = hand_shape.status(reading.hand())
    return _with_status(reading, status, problem)


def _with_status(reading: Reading, status: str, problem: str) -> Reading:
    return replace(reading, status=status, problem=problem)


def _hand_size(reading: Reading) -> int:
    """Tiles the reading puts in the hand (melds in full, kongs as four)."""
    return len(reading.standing) + (reading.winning is not None) + sum(len(m.meld.tiles) for m in reading.melds)


# --------------------------------------------------------------------------------------------------------------------
# The search.


def _layout_and_sideways(tiles: Sequence[ObservedTile]) -> tuple[Layout, list[bool], list[tuple[Point, ...]]]:
    """Rows, which tiles lie sideways, and the quads the rows were found on. Whether a tile lies across its row is
    judged from its quad against the other tiles' shape (a box a little wider than tall is no tile lying down when
    every tile is 1.8 times taller than wide). When the boxes are too square to tell, no tile is taken as lying
    sideways: the detector's own orientation comes from the same box shape, so it would be noise too."""
    quads = [tuple(t.quad) for t in tiles]
    layout = find_rows(quads)
    sideways = list(layout.across or [False] * len(tiles))
    if sum(sideways) * 2 > len(tiles):
        # Most tiles lie sideways: the photo is turned a quarter (rows run up or down the picture). Read it turned
        # back, so that rows run across and the few tiles across the others are the claimed ones.
        quads = [tuple((y, -x) for x, y in quad) for quad in quads]
        layout = find_rows(quads)
        sideways = list(layout.across or [False] * len(tiles))
    return layout, sideways, quads


def _hand_layout(tiles: Sequence[ObservedTile]) -> tuple[Layout, Layout, list[bool], HandApart]:
    """The photo's rows; the rows and sideways tiles of the hand alone, in the photo's tile indices; and the split
    from the table. With tiles set aside the hand's rows are found again on its own tiles: gap widths and which
    tiles lie across are judged against the hand's tiles, not the smaller discards."""
    layout, sideways, quads = _layout_and_sideways(tiles)
    apart = split_hand(layout, quads, [t.set_aside for t in tiles])
    if not apart.set_aside:
        return layout, layout, sideways, apart
    hand = apart.hand
    sub_layout, sub_sideways, _ = _layout_and_sideways([tiles[i] for i in hand])
    rows = tuple(Row(tuple(tuple(hand[j] for j in group) for group in row.groups), row.gaps)
                 for row in sub_layout.rows)
    across = None
    if sub_layout.across is not None:
        across_of = dict(zip(hand, sub_layout.across, strict=True))
        across = tuple(across_of.get(i, False) for i in range(len(tiles)))
    sideways = [False] * len(tiles)
    for j, i in enumerate(hand):
        sideways[i] = sub_sideways[j]
    hand_layout = Layout(rows, sub_layout.angle_deg, sub_layout.tile_width, sub_layout.tile_height, across)
    return layout, hand_layout, sideways, apart


def _box(quad: Sequence[Point]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    return min(xs), min(ys), max(xs), max(ys)


def duplicate_evidence(tiles: Sequence[ObservedTile]) -> list[float]:
    """For each tile, how much its box looks like a duplicate, 0..1: the largest share of its area lying over another
    box, or, for a box under `PART_OF_A_TILE` of the median box's area, the share of a tile it lacks."""
    boxes = [_box(t.quad) for t in tiles]
    areas = [max((x1 - x0) * (y1 - y0), 1e-9) for x0, y0, x1, y1 in boxes]
    median = sorted(areas)[len(areas) // 2] if areas else 0.0
    evidence = []
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        over = max((max(0.0, min(x1, b[2]) - max(x0, b[0])) * max(0.0, min(y1, b[3]) - max(y0, b[1]))
                    for j, b in enumerate(boxes) if j != i), default=0.0) / areas[i]
        part = 1.0 - areas[i] / median if len(boxes) > 2 and areas[i] < PART_OF_A_TILE * median else 0.0
        evidence.append(max(over if over >= DUPLICATE_OVERLAP else 0.0, part))
    return evidence


def _with_duplicate_evidence(candidates: Sequence[tuple[str, float]], evidence: float) -> tuple[tuple[str, float], ...]:
    """The candidates with `none` at least half as probable as the duplicate evidence says (see DUPLICATE_OVERLAP)."""
    if evidence <= 0:
        return tuple(candidates)
    floor = evidence / 2
    others = [(t, p) for t, p in candidates if t != NONE]
    none = max([floor, *(p for t, p in candidates if t == NONE)])
    return tuple(sorted([*others, (NONE, none)], key=lambda c: -c[1]))


def _kind_counts(reading_tiles: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for t in reading_tiles:
        if t in INDEX:
            counts[t] = counts.get(t, 0) + 1
    return counts


def _within_four_of_a_kind(reading_tiles: tuple[str, ...], options: Sequence[Sequence[Candidate]],
                           evidence: Sequence[float]) -> tuple[tuple[str, ...], float, list[int]]:
    """The reading with every kind read at most four times: the surplus boxes of a kind (the most duplicate-like
    first, then the least probable) read as their next candidate whose kind has room, else `none`; the extra cost
    (summed -log p) and which tiles were changed."""
    tiles = list(reading_tiles)
    changed: list[int] = []
    extra = 0.0
    for kind, count in sorted(_kind_counts(tiles).items()):
        if count <= MAX_OF_A_KIND:
            continue
        holders = [i for i, t in enumerate(tiles) if t == kind]

        def probability(i: int, kind: str = kind) -> float:
            return next((c.prob for c in options[i] if c.tile == kind), 0.0)

        holders.sort(key=lambda i: (-evidence[i], probability(i)))
        for i in holders[:count - MAX_OF_A_KIND]:
            counts = _kind_counts(tiles)
            other = next((c for c in options[i] if c.tile != kind
                          and (c.tile not in INDEX or counts.get(c.tile, 0) < MAX_OF_A_KIND)), None)
            new_tile, new_prob = (other.tile, other.prob) if other is not None else (NONE, 1e-6)
            extra += math.log(max(probability(i), 1e-12)) - math.log(max(new_prob, 1e-12))
            tiles[i] = new_tile
            changed.append(i)
    return tuple(tiles), extra, changed


def choose_reading(tiles: Sequence[ObservedTile]) -> Grouping:
    """Rows, melds and the most probable reading that the rules accept (see the module docstring). Tiles lying on
    the table apart from the hand (`vision.hand_apart`) are set aside: read as the classifier's best, in no hand."""
    if not tiles:
        return Grouping(find_rows([]), None, (), 0, ("no tiles found in this photo",))
    layout, hand_layout, sideways, apart = _hand_layout(tiles)
    structures, lone_sideways = _structures(hand_layout, sideways)
    set_aside = set(apart.set_aside)
    evidence = duplicate_evidence(tiles)
    options: list[tuple[Candidate, ...]] = []
    for i, tile in enumerate(tiles):
        pruned = prune_candidates(_with_duplicate_evidence(tile.candidates, evidence[i]), SEARCH_MARGIN)
        if not pruned:
            raise ValueError(f"tile {i + 1} has no classifier candidates")
        # The rules say nothing of a table tile: it keeps the classifier's best reading and does not branch.
        options.append(pruned[:1] if i in set_aside else pruned)

    # The goal is a complete hand; failing that, a ready hand when the photo's most probable reading has 13 tiles
    # (dropping a tile to make a ready hand explains the photo worse than the plain reading). Failing both, the most
    # probable reading stands.
    found: list[Reading] = []  # every reading checked, in cost order (the best structure for each)
    complete: list[Reading] = []
    ready: Reading | None = None
    checked_at_first_complete = 0
    for cost, choice in best_first(options, SEARCH_MARGIN):
        reading_tiles = tuple(options[i][c].tile for i, c in enumerate(choice))
        reading = min(
            (_assemble(reading_tiles, cost, s, sideways) for s in structures),
            key=lambda r: _STATUS_RANK[r.status],
        )
        found.append(reading)
        if reading.status == COMPLETE:
            complete.append(reading)
            checked_at_first_complete = checked_at_first_complete or len(found)
        elif reading.status == READY and ready is None and _hand_size(reading) == _hand_size(found[0]):
            ready = reading
        if len(found) >= MAX_READINGS:
            break
        if complete and (len(complete) > MAX_ALTERNATIVES or cost - complete[0].cost > ALTERNATIVE_MARGIN
                         or len(found) - checked_at_first_complete >= ALTERNATIVE_SEARCH):
            break  # enough runner-ups: the rest are less probable still

    if complete:
        best, same_status = complete[0], complete[1:]
    elif ready is not None:
        best, same_status = ready, [r for r in found if r.status == READY and r is not ready]
    else:
        best, same_status = found[0], []
    # Five of a kind cannot be on the table: the most probable reading that can be is the classifier's reading here.
    # When the search reached none (six boxes of white dragon, each tile found twice), the surplus boxes are read as
    # something else or as `none` (`_within_four_of_a_kind`), and the proposal says which it changed.
    possible = next((r for r in found if r.status != INVALID), None)
    warnings: list[str] = []
    if max(_kind_counts(found[0].tiles).values(), default=0) > MAX_OF_A_KIND:
        fixed_tiles, extra, changed = _within_four_of_a_kind(found[0].tiles, options, evidence)
        fixed = min((_assemble(fixed_tiles, found[0].cost + extra, s, sideways) for s in structures),
                    key=lambda r: _STATUS_RANK[r.status])
        if possible is None or fixed.cost < possible.cost:
            possible = fixed
            warnings.append("more than four of a kind as read: " + ", ".join(
                f"a {found[0].tiles[i]} box read as {fixed_tiles[i]}" for i in changed))
    if possible is None:
        possible = found[0]  # over four of no kind, yet invalid: nothing the rules can mend
    if best.status == INVALID:
        best = possible
    suggestion = None
    if best.cost - possible.cost > RULES_MARGIN + 1e-9:  # (sums of the same costs in another order)
        # Too far from what the classifier saw to propose: the rules' reading becomes a suggestion, kept first
        # among the alternatives, and the classifier's reading stands.
        suggestion, best, same_status = best, possible, [best, *same_status]
    alternatives = same_status[:MAX_ALTERNATIVES]
    if found[0] is not best:
        alternatives.append(found[0])
    checked = len(found)
    return Grouping(layout, best, tuple(alternatives), checked, tuple(warnings), lone_sideways=tuple(lone_sideways),
                    set_aside=apart.set_aside, hand_ambiguous=apart.ambiguous, suggestion=suggestion)

