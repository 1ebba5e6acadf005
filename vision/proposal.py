"""`HandProposal`: what the photo pipeline thinks the hand is, for the user to confirm or correct.

Plain data, JSON both ways (`to_dict` / `from_dict`): the tiles with their quads, readings, confidence and the
classifier's other candidates; the proposed melds; the hand string in GB notation (no win context: the photo cannot
show it); runner-up readings of the whole hand; warnings in words; per-stage timings.

Tile numbers are 1-based and follow the order of `tiles` (rows top to bottom, left to right), as drawn by
`fanscan photo --annotate` and used by `fix N TILE`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from fanscan.scoring.errors import FanscanError
from fanscan.scoring.hand import KONG
from fanscan.scoring.notation import format_hand
from fanscan.scoring.tiles import INDEX
from fanscan.vision.group import (
    BACK,
    COMPLETE,
    INCOMPLETE,
    INVALID,
    LOW_CONFIDENCE,
    NONE,
    Grouping,
    ObservedTile,
    Reading,
    choose_reading,
)

# Roles of a tile in the proposed hand.
STANDING, WINNING, MELD, FLOWER, DROPPED, UNUSED = "standing", "winning", "meld", "flower", "dropped", "unused"
# A tile lying on the table apart from the hand (a discard): set aside, not in the hand (`vision.hand_apart`).
TABLE = "table"
# What `fix N table` / `fix N hand` do: put a tile out of the hand, or take a set-aside tile back into it.
FIX_TABLE, FIX_HAND = "table", "hand"
# Status of a proposal with no tiles (the others are vision.group's reading statuses).
EMPTY = "empty"
# Why a proposal is not a complete hand (`HandProposal.problem`; `problem_text` says it in words): for programs,
# which should not search the warnings' English.
NO_TILES = "no_tiles"
TOO_FEW_TILES = "too_few_tiles"
TOO_MANY_TILES = "too_many_tiles"
NOT_A_WINNING_HAND = "not_a_winning_hand"


@dataclass
class ProposedTile:
    """One tile of the photo. `tile` is the chosen reading (a tile id, `back` or `none`), `confidence` its
    classifier probability, `alternatives` the classifier's other candidates (id, probability), best first."""

    number: int
    quad: list[list[float]]
    box: list[float]
    orientation: str
    detection_score: float
    tile: str
    confidence: float
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    role: str = STANDING
    meld: int | None = None  # index into HandProposal.melds
    turn: int = 0  # degrees clockwise the tile's crop was turned to read its face (vision.turned_faces)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["alternatives"] = [[t, p] for t, p in self.alternatives]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProposedTile:
        values = dict(data)
        values["alternatives"] = [(str(t), float(p)) for t, p in values.get("alternatives", [])]
        values["quad"] = checked_corners(values.get("quad"), f"tile {values.get('number', '?')}")
        return cls(**values)


# A quad lies in a photo's pixels: no photo is a million pixels on a side (the loader refuses over 100 MP), so a
# coordinate past it is garbage (and NaN is nowhere).
MAX_COORDINATE = 1e6


def checked_corners(quad: Any, where: str) -> list[list[float]]:
    """A tile quad read from JSON: four (x, y) pairs of finite numbers within `MAX_COORDINATE`, else a one-line
    error naming `where` (NaN or a single point would otherwise reach the geometry and fail deep inside it)."""
    try:
        corners = [[float(x), float(y)] for x, y in quad]
    except (TypeError, ValueError):
        raise FanscanError(f"{where}: its quad is not four (x, y) corners") from None
    if len(corners) != 4:
        raise FanscanError(f"{where}: its quad has {len(corners)} corners, not 4")
    if not all(math.isfinite(v) and abs(v) <= MAX_COORDINATE for corner in corners for v in corner):
        raise FanscanError(f"{where}: its quad has a corner that is not a finite pixel position")
    return corners


@dataclass
class ProposedMeldInfo:
    """A meld the photo shows: kind (chow / pung / kong), its tile ids, which tile numbers show it, the GB claim
    index (None for a concealed kong) and whether it is concealed."""

    kind: str
    tiles: list[str]
    tile_numbers: list[int]
    claim: int | None
    concealed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProposedMeldInfo:
        return cls(**data)


@dataclass
class HandAlternative:
    """A runner-up reading of the whole hand: its hand string, its probability relative to the proposal's
    (exp of the difference in summed log-probabilities), its status and the tiles it reads differently."""

    hand: str
    relative_probability: float
    status: str
    changes: list[tuple[int, str, str]]  # (tile number, proposal's reading, this reading)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["changes"] = [list(c) for c in self.changes]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandAlternative:
        values = dict(data)
        values["changes"] = [(int(n), str(a), str(b)) for n, a, b in values.get("changes", [])]
        return cls(**values)


@dataclass
class HandProposal:
    """The pipeline's proposal for one photo.

    `hand`: GB notation of the proposed hand without context ("" when no tile was read); `status`: complete
    (a winning hand), ready (13 tiles that wait on something), incomplete, invalid, or empty (no tiles);
    `winning_tile_set_apart`: the photo shows the winning tile apart (else the last standing tile was assumed);
    `problem`: None for a complete hand, else why not (NO_TILES, TOO_FEW_TILES, TOO_MANY_TILES,
    NOT_A_WINNING_HAND), with `problem_text` saying it in words (also among the warnings);
    `rule_overrides`: the numbers of the tiles read otherwise than the classifier's own best so that the hand is
    valid (the rules overruled it, within `vision.group.RULES_MARGIN`); `rules_suggestion`: when the classifier's
    reading is not a complete (or ready) hand but one at most 1000:1 less probable is, that reading, not proposed.
    Either way the hand is complete only once a person accepts it (`needs_review`; `take_rules_suggestion`)."""

    image: str | None
    image_size: tuple[int, int]
    tiles: list[ProposedTile]
    melds: list[ProposedMeldInfo]
    hand: str
    flowers: list[str]
    status: str
    winning_tile_set_apart: bool = False
    alternatives: list[HandAlternative] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    problem: str | None = None
    problem_text: str = ""
    rule_overrides: list[int] = field(default_factory=list)
    rules_suggestion: HandAlternative | None = None

    @property
    def needs_review(self) -> bool:
        """The hand reads as complete only if the rules overrule the classifier on some tile (done in the proposal,
        or suggested)."""
        return (bool(self.rule_overrides) or self.rules_suggestion is not None) and self.status != EMPTY

    def override_summary(self) -> str:
        """The tiles the rules overrule, in words, each as the proposal shows it: first those the proposal reads
        otherwise than the classifier's best ('tile 5 read as 7p (the classifier preferred 6p 0.71)'), then those
        the rules' suggestion would change, which the proposal still reads as the classifier does ('tile 1 read as
        1m 0.96 (the rules suggest 2m)'); joined by '; '."""
        parts = []
        for tile in self.tiles:
            if tile.number in self.rule_overrides:
                preferred, p = max(tile.alternatives, key=lambda a: a[1], default=(tile.tile, tile.confidence))
                parts.append(f"tile {tile.number} read as {tile.tile} (the classifier preferred {preferred} "
                             f"{_prob(p)})")
        if self.rules_suggestion is not None:
            by_number = {tile.number: tile for tile in self.tiles}
            parts.extend(f"tile {number} read as {ours} {_prob(by_number[number].confidence)} (the rules suggest "
                         f"{theirs})" for number, ours, theirs in self.rules_suggestion.changes)
        return "; ".join(parts)

    @property
    def rules_suggestion_fixes(self) -> dict[int, str]:
        """The fixes (tile number -> reading) that take the rules' suggestion; empty when there is none."""
        return suggestion_fixes(self.tiles, self.rule_overrides, self.rules_suggestion)

    def take_rules_suggestion(self) -> HandProposal:
        """The proposal with the rules' suggestion taken (its tiles fixed as the suggestion reads them), or itself
        when there is none."""
        if self.rules_suggestion is None:
            return self
        taken = revise(self, self.rules_suggestion_fixes)
        overruled = sorted({*taken.rule_overrides, *(number for number, _, _ in self.rules_suggestion.changes)})
        return replace(taken, rule_overrides=overruled)

    # ---- JSON ----
    def to_dict(self) -> dict[str, Any]:
        return {
            "image": self.image,
            "image_size": list(self.image_size),
            "hand": self.hand,
            "status": self.status,
            "problem": self.problem,
            "problem_text": self.problem_text,
            "flowers": list(self.flowers),
            "winning_tile_set_apart": self.winning_tile_set_apart,
            "tiles": [t.to_dict() for t in self.tiles],
            "melds": [m.to_dict() for m in self.melds],
            "alternatives": [a.to_dict() for a in self.alternatives],
            "warnings": list(self.warnings),
            "timings_ms": dict(self.timings_ms),
            "rule_overrides": list(self.rule_overrides),
            "rules_suggestion": None if self.rules_suggestion is None else self.rules_suggestion.to_dict(),
            "rules_suggestion_fixes": {str(n): t for n, t in self.rules_suggestion_fixes.items()},
            "needs_review": self.needs_review,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandProposal:
        if not isinstance(data, dict):
            raise FanscanError("a hand proposal must be a JSON object")
        try:
            return cls(
                image=data.get("image"),
                image_size=(int(data["image_size"][0]), int(data["image_size"][1])),
                tiles=[ProposedTile.from_dict(t) for t in data.get("tiles", [])],
                melds=[ProposedMeldInfo.from_dict(m) for m in data.get("melds", [])],
                hand=str(data.get("hand", "")),
                flowers=[str(f) for f in data.get("flowers", [])],
                status=str(data["status"]),
                winning_tile_set_apart=bool(data.get("winning_tile_set_apart", False)),
                alternatives=[HandAlternative.from_dict(a) for a in data.get("alternatives", [])],
                warnings=[str(w) for w in data.get("warnings", [])],
                timings_ms={str(k): float(v) for k, v in data.get("timings_ms", {}).items()},
                problem=None if data.get("problem") is None else str(data["problem"]),
                problem_text=str(data.get("problem_text", "")),
                rule_overrides=[int(n) for n in data.get("rule_overrides", [])],
                rules_suggestion=(None if data.get("rules_suggestion") is None
                                  else HandAlternative.from_dict(data["rules_suggestion"])),
            )
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise FanscanError(f"not a hand proposal: {error.__class__.__name__}: {error}") from None

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> HandProposal:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise FanscanError(f"hand proposal is not valid JSON: {error}") from None
        return cls.from_dict(data)

    # ---- views ----
    def hand_tiles(self) -> list[str]:
        """The tile ids the proposal reads in the photo (faces, flowers included; no backs, no `none`), sorted."""
        return sorted((t.tile for t in self.tiles if t.tile in INDEX), key=INDEX.__getitem__)

    def uncertain_tiles(self, below: float) -> list[ProposedTile]:
        return [t for t in self.tiles if t.role not in (DROPPED, TABLE) and t.confidence < below]


# --------------------------------------------------------------------------------------------------------------------
# Building a proposal from the grouping stage.


def suggestion_fixes(tiles: Sequence[ProposedTile], rule_overrides: Sequence[int],
                     suggestion: HandAlternative | None) -> dict[int, str]:
    """The fixes that take a rules' suggestion: its changed tiles as it reads them, and the tiles the proposal
    already overruled (five of a kind) as they are read, since a re-read would read those as the classifier does."""
    if suggestion is None:
        return {}
    fixes = {tile.number: tile.tile for tile in tiles if tile.number in rule_overrides}
    fixes.update((number, theirs) for number, _, theirs in suggestion.changes)
    return fixes


def _prob(p: float) -> str:
    """0.55 -> '0.55'; small ones keep a significant digit (0.0046 -> '0.005') rather than reading '0.00'."""
    return f"{p:.2f}" if p >= 0.01 else f"{p:.1g}"


def _count_warning(reading: Reading) -> tuple[str, str] | None:
    """(TOO_FEW_TILES or TOO_MANY_TILES, the warning in words) when the reading shows another number of tiles than
    a finished hand; None when the count is right."""
    kongs = sum(1 for m in reading.melds if m.meld.kind == KONG)
    shown = len(reading.standing) + (reading.winning is not None) + sum(len(m.meld.tiles) for m in reading.melds)
    expected = 14 + kongs
    if shown < expected:
        missing = expected - shown
        what = "one" if missing == 1 else f"{missing}"
        return TOO_FEW_TILES, (f"{shown} tiles found, a finished hand shows {expected}: {what} may be hidden by "
                               "glare or out of the photo, or the hand is not finished")
    if shown > expected:
        return TOO_MANY_TILES, (f"{shown} tiles found, a hand shows {expected}: the photo may hold more than one "
                                "hand, or some are not part of it (discards, the wall)")
    return None


def _number_list(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 5, 7, 8] -> '1-3, 5, 7-8'."""
    parts: list[str] = []
    for n in numbers:
        if parts and parts[-1][1] == n - 1:
            parts[-1] = (parts[-1][0], n)
        else:
            parts.append((n, n))
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


def build_proposal(
    tiles: Sequence[ObservedTile],
    grouping: Grouping,
    image: str | None,
    image_size: tuple[int, int],
    boxes: Sequence[Sequence[float]] | None = None,
    timings_ms: dict[str, float] | None = None,
    low_confidence: float = LOW_CONFIDENCE,
    turns: Sequence[int] | None = None,
) -> HandProposal:
    """The proposal for the chosen reading of `grouping`; `boxes` default to the quads' bounding boxes; `turns`,
    the turn each tile's face was read at (degrees clockwise), default to 0."""
    best = grouping.best
    timings = dict(timings_ms or {})
    if best is None:
        return HandProposal(image, image_size, [], [], "", [], EMPTY, warnings=list(grouping.warnings),
                            timings_ms=timings, problem=NO_TILES, problem_text="no tiles found in this photo")
    order = [i for row in grouping.layout.rows for i in row.tiles]
    number_of = {index: n for n, index in enumerate(order, start=1)}
    melds = [
        ProposedMeldInfo(m.meld.kind, list(m.meld.tiles), [number_of[i] for i in m.indices], m.meld.claim,
                         m.meld.concealed)
        for m in best.melds
    ]
    role_of: dict[int, tuple[str, int | None]] = {i: (STANDING, None) for i in best.standing}
    role_of.update({i: (MELD, k) for k, m in enumerate(best.melds) for i in m.indices})
    role_of.update({i: (FLOWER, None) for i in best.flowers})
    role_of.update({i: (DROPPED, None) for i in best.dropped})
    role_of.update({i: (TABLE, None) for i in grouping.set_aside})
    if best.winning is not None:
        role_of[best.winning] = (WINNING, None)

    proposed: list[ProposedTile] = []
    overrides: list[int] = []
    warnings: list[str] = list(grouping.warnings)
    for index in order:
        observed = tiles[index]
        reading = best.tiles[index]
        probs = dict(observed.candidates)
        confidence = float(probs.get(reading, 0.0))
        others = [(t, round(float(p), 4)) for t, p in sorted(observed.candidates, key=lambda c: -c[1]) if t != reading]
        quad = [[round(float(x), 2), round(float(y), 2)] for x, y in observed.quad]
        box = list(boxes[index]) if boxes is not None else [
            min(p[0] for p in quad), min(p[1] for p in quad), max(p[0] for p in quad), max(p[1] for p in quad)]
        role, meld = role_of.get(index, (UNUSED, None))
        number = number_of[index]
        proposed.append(ProposedTile(number, quad, [round(float(v), 2) for v in box], observed.orientation,
                                     round(float(observed.score), 4), reading, round(confidence, 4), others, role,
                                     meld, int(turns[index]) if turns is not None else 0))
        top_tile, top_prob = max(observed.candidates, key=lambda c: c[1])
        if top_tile != reading:
            overrides.append(number)
            warnings.append(f"tile {number} read as {reading} ({_prob(confidence)}) to make a valid hand; "
                            f"the classifier preferred {top_tile} ({_prob(top_prob)})")
        elif confidence < low_confidence and role not in (DROPPED, TABLE):
            runner = f" / {others[0][0]} {_prob(others[0][1])}" if others else ""
            warnings.append(f"tile {number} uncertain: {reading} {_prob(confidence)}{runner}")

    for index in grouping.lone_sideways:
        warnings.append(f"tile {number_of[index]} lies sideways but is not part of a 3- or 4-tile meld: "
                        "read as a standing tile")
    for part in best.loose_claims:
        numbers = ",".join(str(number_of[i]) for i in part)
        warnings.append(f"tiles {numbers} lie like a claimed meld but read {' '.join(best.tiles[i] for i in part)}: "
                        "counted as standing tiles")
    if grouping.set_aside:
        warnings.append(f"tile{'s' if len(grouping.set_aside) > 1 else ''} "
                        f"{_number_list(sorted(number_of[i] for i in grouping.set_aside))} set aside: on the table "
                        "apart from the hand (discards), not counted; 'fix N hand' takes one back")
        if grouping.hand_ambiguous:
            warnings.append("which tiles are the hand is unclear: check the tiles set aside as table tiles")
    elif grouping.hand_ambiguous:
        warnings.append("which tiles are the hand is unclear: some may lie on the table apart from it (discards); "
                        "'fix N table' sets one aside")
    if best.face_down:
        numbers = ", ".join(str(number_of[i]) for i in best.face_down)
        warnings.append(f"tile {numbers} face down and not in a concealed kong (two backs beside two equal faces): "
                        "left out")
    hand = format_hand(best.hand())
    status = best.status
    problem, problem_text = None, ""
    if not best.hand().all_tiles() and not best.flowers:
        # Nothing face up was read as a tile (only face-down tiles, or detections that are not tiles).
        status, hand = EMPTY, ""
        problem, problem_text = NO_TILES, "no tiles found in this photo"
        warnings.append(problem_text)
    else:
        count_problem = _count_warning(best)
        if count_problem:
            warnings.append(count_problem[1])
        shape_problem = None
        if best.status in (INCOMPLETE, INVALID):
            shape_problem = (f"the tiles do not form a winning hand: {best.problem}" if best.problem
                             else "the tiles do not form a winning hand")
            warnings.append(shape_problem)
        if status != COMPLETE:  # the count, when wrong, says best why the hand is not complete
            problem, problem_text = count_problem or (NOT_A_WINNING_HAND, shape_problem or "not a complete hand")

    # Runner-up readings of the whole hand; several readings may make the same hand (either of two equal tiles
    # read otherwise): each hand once, the most probable reading of it.
    alternatives: list[HandAlternative] = []
    suggestion: HandAlternative | None = None
    seen = {hand}
    for alt in grouping.alternatives:
        alt_hand = format_hand(alt.hand())
        if alt_hand in seen:
            continue
        seen.add(alt_hand)
        alternatives.append(HandAlternative(
            hand=alt_hand,
            relative_probability=round(math.exp(best.cost - alt.cost), 6),
            status=alt.status,
            changes=[(number_of[i], best.tiles[i], alt.tiles[i]) for i in order if alt.tiles[i] != best.tiles[i]],
        ))
        if alt is grouping.suggestion:
            suggestion = alternatives[-1]
            fixes = " ".join(f"{n} {tile}" for n, tile in suggestion_fixes(proposed, overrides, suggestion).items())
            warnings.append(f"as read, the tiles are not a {alt.status} hand; the rules suggest "
                            f"{', '.join(f'tile {n} as {theirs}' for n, _, theirs in suggestion.changes)} "
                            f"(1/{1 / max(suggestion.relative_probability, 1e-6):.0f} as probable), which makes "
                            f"one: check it ('fix {fixes}')")
    return HandProposal(
        image=image,
        image_size=image_size,
        tiles=proposed,
        melds=melds,
        hand=hand,
        flowers=list(best.flower_tiles()),
        status=status,
        winning_tile_set_apart=best.winning_set_apart,
        alternatives=alternatives,
        warnings=warnings,
        timings_ms=timings,
        problem=problem,
        problem_text=problem_text,
        rule_overrides=overrides,
        rules_suggestion=suggestion,
    )


def observed_from_proposal(proposal: HandProposal) -> list[ObservedTile]:
    """The grouping stage's input, rebuilt from a proposal (its tiles in proposal order): the chosen reading and the
    classifier's other candidates, so a proposal (or a JSON file of one) can be re-read after a correction."""
    tiles = []
    for tile in proposal.tiles:
        candidates = ((tile.tile, tile.confidence), *tile.alternatives)
        quad = tuple((float(x), float(y)) for x, y in tile.quad)
        # The split from the table stays as the proposal shows it (the user has seen it) until a fix moves a tile.
        tiles.append(ObservedTile(quad, tile.orientation, candidates, tile.detection_score,
                                  set_aside=tile.role == TABLE))
    return tiles


def revise(proposal: HandProposal, fixes: dict[int, str]) -> HandProposal:
    """The proposal re-read with some tiles fixed by the user: `fixes` maps a tile number to what it is
    (a tile id, `back`, `none` for "not a tile", `table` to set it aside as a table tile, `hand` to take a tile set
    aside back into the hand). A tile fixed to a reading is in the hand. Melds, the winning tile and the other
    uncertain tiles are chosen again around the fixed ones."""
    tiles = observed_from_proposal(proposal)
    for number, tile_id in fixes.items():
        if not 1 <= number <= len(tiles):
            raise FanscanError(f"there is no tile {number}: tiles are numbered 1-{len(tiles)}")
        if tile_id in (FIX_TABLE, FIX_HAND):
            tiles[number - 1] = replace(tiles[number - 1], set_aside=tile_id == FIX_TABLE)
            continue
        if tile_id not in INDEX and tile_id not in (BACK, NONE):
            raise FanscanError(f"{tile_id!r} is not a tile id (1m..9m, 1p..9p, 1s..9s, E S W N, C F P, a-h, "
                               "back, none, table, hand)")
        tiles[number - 1] = replace(tiles[number - 1], candidates=((tile_id, 1.0),), set_aside=False)
    boxes = [t.box for t in proposal.tiles]
    return build_proposal(tiles, choose_reading(tiles), proposal.image, proposal.image_size, boxes=boxes,
                          timings_ms=proposal.timings_ms)
