"""`score`, `waits`, `decompose`: the public entry points, and the JSON-able `Score` with its explanation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .decomposition import CHOW, KIND_NAMES, KNITTED_SETS, arrangements, formal_waits, is_winning
from .engine import Evaluation, HandInfo, View, evaluate_all, get_rule_set
from .errors import FanscanError
from .hand import Hand, WinContext, canonical_hand, tile_counts, validate
from .notation import format_hand, parse_hand
from .tiles import INDEX, PLAYING_TILE_IDS


@dataclass
class FanLine:
    id: str
    name: str
    name_zh: str
    value: int
    count: int
    tiles: list[list[str]]

    @property
    def points(self) -> int:
        return self.value * self.count

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "name_zh": self.name_zh, "value": self.value, "count": self.count,
                "points": self.points, "tiles": self.tiles}


@dataclass
class ExcludedLine:
    id: str
    name: str
    name_zh: str
    value: int
    count: int
    implied_by: str
    implied_by_name: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class GroupLine:
    kind: str  # chow, pung, kong, pair, knitted, single
    tiles: list[str]
    melded: bool = False
    concealed: bool = True

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ArrangementLine:
    form: str
    groups: list[GroupLine]

    def to_dict(self) -> dict[str, Any]:
        return {"form": self.form, "groups": [g.to_dict() for g in self.groups]}

    def text(self) -> str:
        """Compact notation of the groups, melded ones in parentheses: "(EEE) 123m 55p"."""
        from .notation import format_tiles

        def one(g: GroupLine) -> str:
            body = format_tiles(g.tiles)
            return f"({body})" if g.melded else body

        return " ".join(one(g) for g in self.groups)


@dataclass
class Alternative:
    arrangement: ArrangementLine
    fans: list[FanLine]

    def to_dict(self) -> dict[str, Any]:
        return {"arrangement": self.arrangement.to_dict(), "fans": [f.to_dict() for f in self.fans]}


@dataclass
class Score:
    """The scored hand. `to_dict()` is the JSON of `fanscan score --json`."""

    rules: str
    hand: str
    context: WinContext
    total: int
    total_without_flowers: int
    meets_minimum: bool
    minimum: int | None
    fans: list[FanLine]
    excluded: list[ExcludedLine]
    arrangement: ArrangementLine
    alternatives: list[Alternative] = field(default_factory=list)
    settlement: dict[str, Any] | None = None
    cap: int | None = None
    total_uncapped: int = 0
    variant: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": True,
            "rules": self.rules,
            "variant": self.variant,
            "hand": self.hand,
            "context": self.context.to_dict(),
            "total": self.total,
            "total_without_flowers": self.total_without_flowers,
            "total_uncapped": self.total_uncapped,
            "cap": self.cap,
            "minimum": self.minimum,
            "meets_minimum": self.meets_minimum,
            "fans": [f.to_dict() for f in self.fans],
            "excluded": [e.to_dict() for e in self.excluded],
            "arrangement": self.arrangement.to_dict(),
            "alternatives": [a.to_dict() for a in self.alternatives],
            "settlement": self.settlement,
        }


def _as_hand(hand: Hand | str, validate_hand: bool = True) -> Hand:
    return parse_hand(hand, validate_hand) if isinstance(hand, str) else hand


def _arrangement_line(view: View) -> ArrangementLine:
    groups: list[GroupLine] = []
    n = view.info.n_melds  # melds first (canonical order), then the concealed sets in tile order
    for kind, tile, melded, concealed in (*view.groups[:n], *sorted(view.groups[n:], key=lambda g: (g[1], g[0]))):
        groups.append(GroupLine(KIND_NAMES[kind], [PLAYING_TILE_IDS[i] for i in view.group_tiles(kind, tile)],
                                melded, concealed if kind != CHOW else not melded))
    arr = view.arrangement
    if arr.knitted is not None and arr.form != "honors_knitted":
        groups.append(GroupLine("knitted", [PLAYING_TILE_IDS[i] for i in KNITTED_SETS[arr.knitted]]))
    if view.pair is not None and arr.form != "thirteen_orphans":
        groups.append(GroupLine("pair", [PLAYING_TILE_IDS[view.pair]] * 2))
    if arr.form == "seven_pairs":
        c = view.info.concealed_counts
        for i, n in enumerate(c):
            groups.extend(GroupLine("pair", [PLAYING_TILE_IDS[i]] * 2) for _ in range(n // 2))
    elif arr.form == "thirteen_orphans":
        c = view.info.concealed_counts
        groups.append(GroupLine("single", [PLAYING_TILE_IDS[i] for i, n in enumerate(c) for _ in range(n)]))
    elif arr.singles:  # honors_knitted, or a rule set's own form of single tiles (HK not connected)
        groups.append(GroupLine("single", [PLAYING_TILE_IDS[i] for i in arr.singles]))
    return ArrangementLine(arr.form, groups)


def _fan_lines(ev: Evaluation, hand: Hand) -> list[FanLine]:
    all_tiles = hand.all_tiles()
    flowers = list(ev.view.info.ctx.flowers)
    lines = []
    for sf in ev.fans:
        tiles = []
        for item in sf.evidence:
            if item is None:
                tiles.append(all_tiles)
            elif sf.fan.counts_to_minimum:
                tiles.append([PLAYING_TILE_IDS[i] for i in item])
            else:
                tiles.append([flowers.pop(0)] if flowers else [])
        f = sf.fan
        lines.append(FanLine(f.id, f.name, f.name_zh, f.value, sf.count, tiles))
    return lines


def _fan_key(ev: Evaluation) -> tuple:
    return tuple(sorted((sf.fan.id, sf.count) for sf in ev.fans))


def score(hand: Hand | str, context: WinContext | None = None, rules: str = "mcr", variant: Any = None) -> Score:
    """Score a complete hand (a `Hand` or a GB-notation string) under a registered rule set.

    `context` replaces the hand's own context (the `|EE1000` part) when given. `variant` picks a named variant of
    the rule set (MCR: "seed", the default, or "mil"; or an `mcr.MCRVariant`). Raises FanscanError for an
    invalid hand, an impossible context, or a hand that is not complete."""
    from . import mcr  # noqa: F401  (registers the MCR rule set)

    rule_set = get_rule_set(rules, variant)
    # evaluate_all validates; the canonical writing makes the whole Score independent of how the hand was written
    h = canonical_hand(_as_hand(hand, validate_hand=False))
    info, evals = evaluate_all(h, context, rule_set)
    best = evals[0]
    fans = _fan_lines(best, h)
    excluded = [ExcludedLine(f.id, f.name, f.name_zh, f.value, len(ev), by, rule_set.fan(by).name)
                for f, ev, by in best.excluded]
    alternatives = []
    seen = {_fan_key(best)}
    for ev in evals[1:]:
        if ev.total != best.total:
            break
        key = _fan_key(ev)
        if key in seen:
            continue
        seen.add(key)
        alternatives.append(Alternative(_arrangement_line(ev.view), _fan_lines(ev, h)))
    uncapped = best.total
    total = min(uncapped, rule_set.cap) if rule_set.cap is not None else uncapped
    meets = rule_set.minimum is None or best.total_without_flowers >= rule_set.minimum
    settlement = rule_set.settle(total, info.ctx) if rule_set.settle and meets else None
    return Score(
        rules=rule_set.name, hand=format_hand(Hand(h.melds, h.standing, h.winning_tile, info.ctx)), context=info.ctx,
        total=total,
        total_without_flowers=best.total_without_flowers, meets_minimum=meets, minimum=rule_set.minimum,
        fans=fans, excluded=excluded, arrangement=_arrangement_line(best.view), alternatives=alternatives,
        settlement=settlement, cap=rule_set.cap, total_uncapped=uncapped, variant=rule_set.variant,
    )


def _waiting_counts(h: Hand) -> tuple[int, ...]:
    if h.winning_tile is not None:
        raise FanscanError("waits needs a 13-tile hand (plus one per kong) without a winning tile")
    validate(h, need_win=False)
    return tuple(tile_counts(h.standing))


def waits(hand: Hand | str, formal: bool = False) -> list[str]:
    """The tiles that complete a waiting hand (13 tiles plus one per kong), in notation order.

    By default a tile the hand already holds all four of is not listed (it cannot be drawn); `formal=True`
    lists it too - that is the set the wait fans look at."""
    h = _as_hand(hand)
    counts = _waiting_counts(h)
    found = formal_waits(counts, len(h.melds))
    if formal:
        return [PLAYING_TILE_IDS[i] for i in found]
    held = tile_counts(h.all_tiles())
    return [PLAYING_TILE_IDS[i] for i in found if held[i] < 4]


def decompose(hand: Hand | str) -> list[ArrangementLine]:
    """Every arrangement of a complete hand (melds fixed, the concealed part read every way), as readable
    groups. Empty when the hand is not complete. For a fast yes/no use `is_complete`."""
    h = canonical_hand(_as_hand(hand))
    if h.winning_tile is None:
        raise FanscanError("decompose needs a complete hand (14 tiles plus one per kong)")
    validate(h, need_win=True)
    info = HandInfo(h, h.context or WinContext())
    return [_arrangement_line(View(info, arr)) for arr in arrangements(info.concealed_counts, info.n_melds)]


def is_complete(concealed: list[str] | tuple[str, ...] | dict[str, int], n_melds: int = 0) -> bool:
    """Fast check (no enumeration, memoised): do these concealed tiles (ids, or {id: count}) plus `n_melds`
    declared sets form a complete hand in any form? Meant for the vision grouping step."""
    counts = [0] * 34
    items = concealed.items() if isinstance(concealed, dict) else ((t, 1) for t in concealed)
    for t, n in items:
        i = INDEX.get(t, 99)
        if i >= 34:
            raise FanscanError(f"{t!r} is not a tile that forms sets")
        counts[i] += n
    return is_winning(tuple(counts), n_melds)
