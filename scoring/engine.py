"""The rule-set-agnostic scoring engine: rule-set registry, per-arrangement views, evaluation, best arrangement.

A rule set is a table of `Fan` rows (id, names, value, predicate, implied fans) plus a few settings
(`RuleSet`). For every arrangement of the hand (`scoring.decomposition.arrangements`) the engine builds a `View`,
calls each fan's predicate, drops the fans implied by a scored fan (non-repeat), and keeps the arrangement with
the highest total. See ENGINE.md for how to add a rule set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .decomposition import (
    CHOW,
    KNITTED,
    KNITTED_SETS,
    KONG,
    PAIR,
    PUNG,
    Arrangement,
    arrangements,
    formal_waits,
)
from .errors import FanscanError
from .hand import PUNG as MELD_PUNG
from .hand import Hand, WinContext, check_context, tile_counts, validate
from .tiles import FIRST_HONOR, INDEX, N_KINDS, TERMINALS_AND_HONORS

# Evidence: what a predicate returns. One item per time the fan scores; an item is a tuple of tile indices
# (the tiles forming it), or None for "the whole hand".
Evidence = tuple
Predicate = Callable[["View"], Evidence]


@dataclass(frozen=True)
class Fan:
    """One row of a rule set's table.

    `predicate(view)` returns one evidence item per time the fan scores (empty: not scored). `implies` lists the
    fans it makes redundant (non-repeat): they are dropped whenever this fan scores. `within` lists fans that are
    only excluded among this fan's own sets (documentation and explanation; the predicates enforce it).
    `counts_to_minimum` is False for flowers. `number` is the rule document's item number (for listings).
    `needs` lists hand tags (`HandInfo.tags`) without which the fan cannot score: the engine then skips its
    predicate (speed only - a predicate must still be correct on its own)."""

    id: str
    name: str
    name_zh: str
    value: int
    predicate: Predicate
    implies: tuple[str, ...] = ()
    within: tuple[str, ...] = ()
    counts_to_minimum: bool = True
    needs: tuple[str, ...] = ()
    number: str = ""
    code: str = ""
    description: str = ""


@dataclass(frozen=True)
class RuleSet:
    """A rule set: the fan table and how totals are judged.

    `fallback` is a fan id scored when nothing else (not counting flowers) scores, e.g. MCR Chicken Hand.
    `minimum` is the fan count a win needs (without flowers); `cap` limits the total (HK); `settle(total, ctx)`
    returns the settlement dict. `describe` is a one-line title."""

    name: str
    title: str
    fans: tuple[Fan, ...]
    minimum: int | None = None
    cap: int | None = None
    fallback: str | None = None
    settle: Callable[[int, WinContext], dict[str, Any]] | None = None
    prepare: Callable[[View], None] | None = None
    # A rule set whose winning shapes differ from MCR's (HK: no knitted forms, its own "not connected" form)
    # supplies its own reader of the concealed part; None = decomposition.arrangements. `shapes` names the
    # winning shapes in the "not a winning hand" message.
    arrangements: Callable[[tuple[int, ...], int], tuple[Arrangement, ...]] | None = None
    shapes: str = "4 sets and a pair (or seven pairs, thirteen orphans, knitted tiles)"
    # Wording for the fans a scored fan drops (`Fan.implies`): MCR non-repeat (a fan implies the fans it makes
    # redundant); HK replacement (the tighter item of a family replaces the looser one). Used by explanations
    # and listings, so that both rule sets read right.
    dropped_heading: str = "not counted (non-repeat)"
    dropped_by: str = "implied by"
    drops: str = "implies"
    # Named variants of one rule set (MCR: the seed's rulings or the Green Book / MIL values): `variant` names this
    # table's, `variants` lists the names (the first is the default), `with_variant(name or config)` gives the
    # table of another. None / () for a rule set without variants.
    variant: str | None = None
    variants: tuple[str, ...] = ()
    with_variant: Callable[[Any], RuleSet] | None = None

    def fan(self, fan_id: str) -> Fan:
        return self._by_id[fan_id]

    def active_fans(self, tags: frozenset[str]) -> tuple[Fan, ...]:
        """The fans whose `needs` the hand's tags satisfy (memoised per tag set)."""
        cache = self.__dict__.setdefault("_active_cache", {})
        found = cache.get(tags)
        if found is None:
            found = tuple(f for f in self.fans if all(n in tags for n in f.needs))
            cache[tags] = found
        return found

    @property
    def _by_id(self) -> dict[str, Fan]:
        cached = self.__dict__.get("_by_id_cache")
        if cached is None:
            cached = {f.id: f for f in self.fans}
            object.__setattr__(self, "_by_id_cache", cached)
        return cached


RULE_SETS: dict[str, RuleSet] = {}


def register_rule_set(rules: RuleSet) -> RuleSet:
    """Add a rule set to the registry that `score(..., rules=name)` dispatches on. Checks the table: unique ids,
    and every implied fan exists."""
    ids = [f.id for f in rules.fans]
    if len(set(ids)) != len(ids):
        raise ValueError(f"rule set {rules.name}: duplicate fan ids")
    position = {fid: k for k, fid in enumerate(ids)}
    for k, f in enumerate(rules.fans):
        for j in f.implies + f.within:
            if j not in position:
                raise ValueError(f"rule set {rules.name}: fan {f.id} implies unknown fan {j}")
        for j in f.implies:
            if position[j] < k:
                raise ValueError(f"rule set {rules.name}: fan {f.id} must come before {j}, which it implies")
    known = set(ids)
    if rules.fallback and rules.fallback not in known:
        raise ValueError(f"rule set {rules.name}: unknown fallback fan {rules.fallback}")
    RULE_SETS[rules.name] = rules
    return rules


def get_rule_set(name: str, variant: Any = None) -> RuleSet:
    """A registered rule set, in its default variant or the one named (or configured) by `variant`."""
    if name not in RULE_SETS:
        raise FanscanError(f"unknown rule set {name!r}; known: {', '.join(sorted(RULE_SETS))}")
    rules = RULE_SETS[name]
    if variant is None or variant == rules.variant:
        return rules
    if rules.with_variant is None:
        raise FanscanError(f"rule set {name} has no variants (asked for {getattr(variant, 'name', variant)!r})")
    return rules.with_variant(variant)


class HandInfo:
    """Facts of the hand that do not depend on the arrangement; computed once per `score` call."""

    __slots__ = (
        "_waits",
        "cache",
        "concealed_counts",
        "concealed_kongs",
        "counts",
        "ctx",
        "hand",
        "has_honor",
        "kong_tiles",
        "melded_kongs",
        "melds",
        "n_flowers",
        "n_kongs",
        "n_melds",
        "open",
        "standing_counts",
        "suits",
        "tags",
        "tiles",
        "win",
        "win_in_exposed",
        "win_in_standing",
    )

    def __init__(self, hand: Hand, ctx: WinContext):
        self.hand = hand
        self.ctx = ctx
        self.counts = tile_counts(hand.all_tiles())
        self.concealed_counts = tuple(tile_counts(hand.concealed_tiles()))
        self.standing_counts = tuple(tile_counts(hand.standing))
        self.win = INDEX[hand.winning_tile] if hand.winning_tile is not None else -1
        # melds as (kind, tile index, melded): kind in decompose's CHOW/PUNG/KONG codes; melded = claimed
        self.melds = tuple(
            (CHOW if m.kind == "chow" else PUNG if m.kind == MELD_PUNG else KONG, INDEX[m.tile], not m.concealed)
            for m in hand.melds)
        self.n_melds = len(self.melds)
        self.melded_kongs = sum(1 for k, _, open_ in self.melds if k == KONG and open_)
        self.concealed_kongs = sum(1 for k, _, open_ in self.melds if k == KONG and not open_)
        self.n_kongs = self.melded_kongs + self.concealed_kongs
        self.open = any(open_ for _, _, open_ in self.melds)
        self.suits = sum(1 << s for s in range(3) if any(self.counts[9 * s:9 * s + 9]))  # bit mask m=1 p=2 s=4
        self.has_honor = any(self.counts[FIRST_HONOR:])
        self.tiles = frozenset(i for i in range(N_KINDS) if self.counts[i])
        self.kong_tiles = frozenset(t for k, t, _ in self.melds if k == KONG)
        self.win_in_standing = hand.standing.count(hand.winning_tile) if hand.winning_tile else 0
        self.win_in_exposed = sum(
            m.tiles.count(hand.winning_tile) for m in hand.melds if not m.concealed) if hand.winning_tile else 0
        self.n_flowers = ctx.n_flowers
        self._waits: tuple[int, ...] | None = None
        self.cache: dict[str, Any] = {}  # per-hand scratch space for rule sets (facts shared by arrangements)
        self.tags = hand_tags(self)

    @property
    def waits(self) -> tuple[int, ...]:
        """Formal waits of the hand before the winning tile (tiles held four times included)."""
        if self._waits is None:
            c = list(self.concealed_counts)
            c[self.win] -= 1
            self._waits = formal_waits(tuple(c), self.n_melds)
        return self._waits


TAGS = ("honors", "winds", "dragons", "kongs", "flowers", "self_drawn", "discard", "last_tile", "robbing_kong",
        "kong_replacement", "no_melds", "concealed")


def hand_tags(info: HandInfo) -> frozenset[str]:
    """Cheap hand-level facts that let the engine skip fans that cannot score (see `Fan.needs`)."""
    ctx = info.ctx
    c = info.counts
    tags = []
    if info.has_honor:
        tags.append("honors")
        if any(c[FIRST_HONOR:FIRST_HONOR + 4]):
            tags.append("winds")
        if any(c[FIRST_HONOR + 4:N_KINDS]):
            tags.append("dragons")
    if info.n_kongs:
        tags.append("kongs")
    if info.n_flowers:
        tags.append("flowers")
    tags.append("self_drawn" if ctx.self_drawn else "discard")
    for name in ("last_tile", "robbing_kong", "kong_replacement"):
        if getattr(ctx, name):
            tags.append(name)
    if not info.n_melds:
        tags.append("no_melds")
    if not info.open:
        tags.append("concealed")
    return frozenset(tags)


class View:
    """What a predicate sees: one arrangement of the hand, with groups and counts precomputed.

    groups: every set of the arrangement as (kind, tile, melded, concealed) - melds first, then the concealed
      part's sets; kind is decomposition.CHOW/PUNG/KONG; tile is the lowest tile index; melded = claimed from another
      player; concealed = counts as a concealed pung/kong (RULES.md: a pung completed by a discard is not).
    chows, pungs: tile indices of the chows and of the pungs+kongs (sorted). pair: tile index or None.
    form: decomposition form name. knitted: the 9 knitted tile indices (knitted forms) or ().
    info: the HandInfo (counts, context, melds, waits ...). cache: per-view scratch space for rule sets."""

    __slots__ = (
        "arrangement",
        "cache",
        "chows",
        "concealed_pungs",
        "concealed_sets",
        "form",
        "groups",
        "info",
        "knitted",
        "pair",
        "pungs",
    )

    def __init__(self, info: HandInfo, arrangement: Arrangement):
        self.info = info
        self.arrangement = arrangement
        self.form = arrangement.form
        self.pair = arrangement.pair
        self.knitted = KNITTED_SETS[arrangement.knitted] if arrangement.knitted is not None else ()
        self.cache: dict[str, Any] = {}
        self.concealed_sets = arrangement.sets
        groups = [(k, t, open_, not open_ and k == KONG) for k, t, open_ in info.melds]
        win = info.win
        exposed_by_discard = False
        # The winning tile on a discard completes a pung of the concealed part only when it cannot be read
        # as part of a concealed chow (RULES.md; the Green Book reading of "concealed pung").
        if not info.ctx.self_drawn and any(k == PUNG and t == win for k, t in arrangement.sets) and not any(
                k == CHOW and t <= win <= t + 2 for k, t in arrangement.sets):
            exposed_by_discard = True
        for k, t in arrangement.sets:
            if k == PUNG:
                concealed = not (exposed_by_discard and t == win)
                groups.append((PUNG, t, False, concealed))
            else:
                groups.append((k, t, False, False))
        self.groups = groups
        self.chows = sorted(t for k, t, _, _ in groups if k == CHOW)
        self.pungs = sorted(t for k, t, _, _ in groups if k != CHOW)
        self.concealed_pungs = sum(1 for k, _, _, c in groups if c)

    def group_tiles(self, kind: int, tile: int) -> tuple[int, ...]:
        if kind == CHOW:
            return (tile, tile + 1, tile + 2)
        if kind == PAIR:
            return (tile, tile)
        return (tile,) * (4 if kind == KONG else 3)


class ScoredFan:
    """A fan scored on one arrangement, with its evidence (one item per time it counts)."""

    __slots__ = ("evidence", "fan")

    def __init__(self, fan: Fan, evidence: Evidence):
        self.fan = fan
        self.evidence = evidence

    @property
    def count(self) -> int:
        return len(self.evidence)

    @property
    def points(self) -> int:
        return self.fan.value * len(self.evidence)

    def __repr__(self) -> str:
        return f"ScoredFan({self.fan.id}, {self.evidence!r})"


@dataclass
class Evaluation:
    """The result of one arrangement under one rule set."""

    view: View
    fans: list[ScoredFan]
    excluded: list[tuple[Fan, Evidence, str]]
    total: int
    total_without_flowers: int
    key: tuple = field(default=())


def evaluate(rules: RuleSet, view: View) -> Evaluation:
    """Apply the table to one arrangement: predicates, then non-repeat, then the fallback fan."""
    if rules.prepare is not None:
        rules.prepare(view)
    # Non-repeat, in table order (a fan always comes before the fans it implies, checked at registration):
    # a fan implied by a scored fan is dropped, and then implies nothing itself.
    implied: dict[str, str] = {}
    fans: list[ScoredFan] = []
    excluded: list[tuple[Fan, Evidence, str]] = []
    without = extra = 0
    for fan in rules.active_fans(view.info.tags):
        ev = fan.predicate(view)
        if not ev:
            continue
        by = implied.get(fan.id)
        if by is not None:
            excluded.append((fan, ev, by))
            continue
        fans.append(ScoredFan(fan, ev))
        if fan.counts_to_minimum:
            without += fan.value * len(ev)
        else:
            extra += fan.value * len(ev)
        for j in fan.implies:
            if j not in implied:
                implied[j] = fan.id
    # Exclusions among a fan's own sets (non-separation), recorded by the rule set's predicates as (fan id, tiles,
    # excluding fan id, or a tuple of candidates of which the first that scored excludes): shown when it scored.
    within = view.cache.get("excluded_within")
    if within:
        scored = {sf.fan.id for sf in fans}
        merged: dict[tuple[str, str], list] = {}
        for fid, tiles, by in within:
            if not isinstance(by, str):
                by = next((b for b in by if b in scored), None)
            if by in scored:
                merged.setdefault((fid, by), []).append(tiles)
        excluded.extend((rules.fan(fid), tuple(ev), by) for (fid, by), ev in merged.items())
    if without == 0 and rules.fallback:
        fb = rules.fan(rules.fallback)
        fans.insert(0, ScoredFan(fb, (None,)))
        without = fb.value
    total = without + extra
    return Evaluation(view, fans, excluded, total, without)


def resolve_context(hand: Hand, context: WinContext | None) -> WinContext:
    ctx = context if context is not None else (hand.context or WinContext())
    check_context(hand, ctx)
    if len(ctx.flowers) > 1 and list(ctx.flowers) != sorted(ctx.flowers):  # one order, however they were given
        ctx = replace(ctx, flowers=tuple(sorted(ctx.flowers)))
    return ctx


def evaluate_all(hand: Hand, context: WinContext | None, rules: RuleSet) -> tuple[HandInfo, list[Evaluation]]:
    """Validate, then evaluate every arrangement; best first (highest total, then the earliest arrangement in the
    deterministic enumeration order, which depends only on tile counts, never on how the hand was written)."""
    if hand.winning_tile is None:
        n = len(hand.standing) + 3 * len(hand.melds) + hand.n_kongs
        raise FanscanError(
            f"{n} tiles: this is a waiting hand with no winning tile; a hand to score has 14 (plus one per kong)")
    validate(hand, need_win=True, context=False)
    ctx = resolve_context(hand, context)
    info = HandInfo(hand, ctx)
    arrs = (rules.arrangements or arrangements)(info.concealed_counts, info.n_melds)
    if not arrs:
        raise FanscanError(f"not a winning hand: {describe_tiles(hand)} does not form {rules.shapes}")
    evals = []
    for n, arr in enumerate(arrs):
        ev = evaluate(rules, View(info, arr))
        ev.key = (-ev.total, -ev.total_without_flowers, n)
        evals.append(ev)
    evals.sort(key=lambda e: e.key)
    return info, evals


def describe_tiles(hand: Hand) -> str:
    from .notation import format_hand  # local: notation imports hand only, avoid a cycle at import time

    return format_hand(hand.with_context(None)).strip()


__all__ = [
    "KNITTED", "PAIR", "RULE_SETS", "TERMINALS_AND_HONORS", "Evaluation", "Fan", "HandInfo", "RuleSet", "ScoredFan",
    "View", "evaluate", "evaluate_all", "get_rule_set", "register_rule_set",
]
