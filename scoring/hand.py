"""The hand model: melds, standing tiles, winning tile and win context, as plain dataclasses with JSON forms.

This is the structured form the photo pipeline fills in (`Hand.from_dict` / `to_dict`), and what the notation
parser produces. It knows nothing of any rule set. `validate` checks what every rule set needs: tile ids, meld
shapes, at most four of a kind, 14 tiles plus one per kong, and win-context flags that can hold together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from .errors import FanscanError
from .tiles import FLOWERS, INDEX, N_KINDS, PLAYING_TILE_IDS, WINDS, rank_of, suit_of

CHOW, PUNG, KONG = "chow", "pung", "kong"
MELD_KINDS = (CHOW, PUNG, KONG)


@dataclass(frozen=True)
class Meld:
    """A declared set. `tile` is its lowest tile. `claim` is the GB-notation index as written: for a chow which
    tile (1-3) was claimed, for a pung or kong who gave it (1 left, 2 opposite, 3 right), 5-7 for a kong added to a
    melded pung, None when not written. Only a kong can be concealed (declared from four drawn tiles)."""

    kind: str
    tile: str
    claim: int | None = None
    concealed: bool = False

    @cached_property
    def tiles(self) -> tuple[str, ...]:
        if self.kind == CHOW:
            i = INDEX[self.tile]
            return tuple(PLAYING_TILE_IDS[i + k] for k in range(3))
        return (self.tile,) * (4 if self.kind == KONG else 3)

    @property
    def added(self) -> bool:
        """A kong made by adding a drawn tile to a melded pung (still a melded kong)."""
        return self.kind == KONG and self.claim is not None and self.claim >= 5

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "tiles": list(self.tiles), "claim": self.claim, "concealed": self.concealed}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Meld:
        kind = data.get("kind")
        tiles = data.get("tiles") or ([data["tile"]] if "tile" in data else [])
        if kind not in MELD_KINDS:
            raise FanscanError(f"meld kind {kind!r} is not one of chow, pung, kong")
        if not tiles:
            raise FanscanError(f"{kind} meld has no tiles")
        for t in tiles:
            if t not in INDEX or INDEX[t] >= N_KINDS:
                raise FanscanError(f"{kind} meld: {t!r} is not a tile id")
        meld = cls(kind, min(tiles, key=INDEX.__getitem__), data.get("claim"), bool(data.get("concealed", False)))
        if len(tiles) > 1 and sorted(tiles, key=INDEX.__getitem__) != list(meld.tiles):
            raise FanscanError(f"{kind} meld {''.join(tiles)}: tiles do not form a {kind}")
        check_meld(meld)
        return meld


def check_meld(meld: Meld) -> None:
    """Shape and claim index of one meld; raises FanscanError naming the meld."""
    where = f"meld [{''.join(meld.tiles) if meld.tile in INDEX else meld.tile}]"
    if meld.kind not in MELD_KINDS:
        raise FanscanError(f"{where}: kind {meld.kind!r} is not one of chow, pung, kong")
    if meld.tile not in INDEX or INDEX[meld.tile] >= N_KINDS:
        raise FanscanError(f"{where}: {meld.tile!r} is not a tile that forms sets")
    i = INDEX[meld.tile]
    if meld.kind == CHOW and (suit_of(i) > 2 or rank_of(i) > 7):
        raise FanscanError(f"{where}: a chow is three consecutive numbers of one suit")
    if meld.concealed and meld.kind != KONG:
        raise FanscanError(f"{where}: only a kong can be declared concealed")
    if meld.concealed and meld.claim is not None:
        raise FanscanError(f"{where}: a concealed kong has no claim index")
    allowed = {1, 2, 3} | ({5, 6, 7} if meld.kind == KONG else set())
    if meld.claim is not None and meld.claim not in allowed:
        raise FanscanError(f"{where}: claim index {meld.claim} must be one of {sorted(allowed)}")


@dataclass(frozen=True)
class WinContext:
    """How the hand was won: the photo cannot show this, the user says it.

    `last_tile` is the last tile of the wall: drawn (Last Tile Draw) or the last discard (Last Tile Claim).
    `flowers` names flower tiles (a..h); `flower_count` is used when only a number is known.
    Fields a rule set without such items ignores (HK, seed 000): `flower_replacement` - won on the tile drawn after
    declaring a flower; `kong_on_kong` - won on the replacement after two consecutive kongs (the second kong
    declared from the first kong's replacement tile; implies `kong_replacement`); `first_tile` - won on the first
    tile of the game: East's dealt hand (self-drawn) or the first discard."""

    prevalent_wind: str = "E"
    seat_wind: str = "E"
    self_drawn: bool = False
    last_of_kind: bool = False
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    flowers: tuple[str, ...] = ()
    flower_count: int | None = None
    flower_replacement: bool = False
    kong_on_kong: bool = False
    first_tile: bool = False

    @property
    def n_flowers(self) -> int:
        return self.flower_count if self.flower_count is not None else len(self.flowers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "prevalent_wind": self.prevalent_wind, "seat_wind": self.seat_wind, "self_drawn": self.self_drawn,
            "last_of_kind": self.last_of_kind, "last_tile": self.last_tile,
            "kong_replacement": self.kong_replacement, "robbing_kong": self.robbing_kong,
            "flowers": list(self.flowers), "flower_count": self.flower_count,
            "flower_replacement": self.flower_replacement, "kong_on_kong": self.kong_on_kong,
            "first_tile": self.first_tile,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WinContext:
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise FanscanError(f"win context: unknown field(s) {', '.join(sorted(unknown))}")
        values = dict(data)
        if "flowers" in values:
            values["flowers"] = tuple(values["flowers"] or ())
        ctx = cls(**values)
        check_context_fields(ctx)
        return ctx


_FLAGS = ("self_drawn", "last_of_kind", "last_tile", "kong_replacement", "robbing_kong", "flower_replacement",
          "kong_on_kong", "first_tile")


def check_context_fields(ctx: WinContext) -> None:
    """Context errors that do not depend on the tiles."""
    if ctx.prevalent_wind not in WINDS:
        raise FanscanError(f"prevalent wind {ctx.prevalent_wind!r} must be one of E, S, W, N")
    if ctx.seat_wind not in WINDS:
        raise FanscanError(f"seat wind {ctx.seat_wind!r} must be one of E, S, W, N")
    flags = (ctx.self_drawn, ctx.last_of_kind, ctx.last_tile, ctx.kong_replacement, ctx.robbing_kong,
             ctx.flower_replacement, ctx.kong_on_kong, ctx.first_tile)
    if not all(f is True or f is False for f in flags):  # a JSON "yes" or 1 must not pass as true
        bad = next(n for n, f in zip(_FLAGS, flags, strict=True) if f is not True and f is not False)
        raise FanscanError(f"win context {bad} must be true or false")
    if ctx.flowers:
        for f in ctx.flowers:
            if f not in FLOWERS:
                raise FanscanError(
                    f"flower {f!r} is not one of a-h (plum, orchid, bamboo, chrysanthemum, spring, ...)")
        if len(set(ctx.flowers)) != len(ctx.flowers):
            raise FanscanError("a flower is listed twice; there is one of each")
    if ctx.flower_count is not None and not (isinstance(ctx.flower_count, int) and 0 <= ctx.flower_count <= 8):
        raise FanscanError(f"flower count {ctx.flower_count!r} must be 0-8")
    if ctx.robbing_kong and ctx.self_drawn:
        raise FanscanError("robbing the kong is a win on another player's tile, it cannot be self-drawn")
    if ctx.kong_replacement and not ctx.self_drawn:
        raise FanscanError("out with replacement tile is a self-draw (the tile drawn after a kong): set self-drawn")
    if ctx.robbing_kong and ctx.last_tile:
        raise FanscanError("robbing the kong cannot be on the last tile: no kong may be declared after the wall ends")
    check_extra_context_fields(ctx)


def check_extra_context_fields(ctx: WinContext) -> None:
    """The flower-replacement, kong-on-kong and first-tile flags (HK items) against the other flags."""
    if ctx.flower_replacement and not ctx.self_drawn:
        raise FanscanError("a win on a flower's replacement tile is a self-draw: set self-drawn")
    if ctx.flower_replacement and ctx.n_flowers == 0:
        raise FanscanError("a win on a flower's replacement tile needs a flower: give the flowers or their count")
    if ctx.flower_replacement and ctx.kong_replacement:
        raise FanscanError("the winning tile replaces either a kong or a flower, not both")
    if ctx.kong_on_kong and not ctx.kong_replacement:
        raise FanscanError("kong on kong is a win on a kong's replacement tile: set the kong replacement flag too")
    if ctx.first_tile:
        for name, what in (("kong_replacement", "a kong's replacement tile"), ("robbing_kong", "a robbed kong"),
                           ("last_tile", "the last tile of the wall")):
            if getattr(ctx, name):
                raise FanscanError(f"a win on the first tile cannot also be a win on {what}")
        if not ctx.self_drawn and ctx.seat_wind == "E":
            raise FanscanError("East makes the first discard and cannot win on it: a first-tile win by East is "
                               "self-drawn (Bless of Heaven)")


@dataclass(frozen=True)
class Hand:
    """A hand: declared melds, standing (concealed) tiles, and the winning tile (None for a 13-tile hand).

    `context` is the win context written in the hand string (`|EE1000|...`), if any."""

    melds: tuple[Meld, ...] = ()
    standing: tuple[str, ...] = ()
    winning_tile: str | None = None
    context: WinContext | None = None

    @property
    def n_kongs(self) -> int:
        return sum(1 for m in self.melds if m.kind == KONG)

    def all_tiles(self) -> list[str]:
        """Every tile of the hand, melds first, winning tile last."""
        tiles = [t for m in self.melds for t in m.tiles] + list(self.standing)
        if self.winning_tile is not None:
            tiles.append(self.winning_tile)
        return tiles

    def concealed_tiles(self) -> list[str]:
        """Standing tiles plus the winning tile: the part the engine decomposes."""
        return list(self.standing) + ([self.winning_tile] if self.winning_tile is not None else [])

    def with_context(self, context: WinContext | None) -> Hand:
        return replace(self, context=context)

    def to_dict(self) -> dict[str, Any]:
        return {
            "melds": [m.to_dict() for m in self.melds],
            "standing": list(self.standing),
            "winning_tile": self.winning_tile,
            "context": self.context.to_dict() if self.context else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Hand:
        """The hand from its JSON form: `to_dict()`'s object (melds, standing, winning_tile, context), or the JSON
        of a score (`Score.to_dict()`, `fanscan score --json`): its `hand` string with its `context` object, which
        also holds what the notation cannot write (the HK-only flags)."""
        if not isinstance(data, dict):
            raise FanscanError("a hand must be a JSON object with melds, standing, winning_tile")
        if isinstance(data.get("hand"), str):
            from .notation import parse_hand  # local: notation imports this module

            hand = parse_hand(data["hand"])
            ctx = data.get("context")
            return hand.with_context(WinContext.from_dict(ctx)) if ctx else hand
        melds = tuple(Meld.from_dict(m) for m in data.get("melds") or ())
        standing = tuple(data.get("standing") or ())
        for t in standing:
            if t not in INDEX or INDEX[t] >= N_KINDS:
                raise FanscanError(f"standing tile {t!r} is not a tile id")
        win = data.get("winning_tile")
        if win is not None and (win not in INDEX or INDEX[win] >= N_KINDS):
            raise FanscanError(f"winning tile {win!r} is not a tile id")
        ctx = data.get("context")
        hand = cls(melds, standing, win, WinContext.from_dict(ctx) if ctx else None)
        validate(hand, need_win=win is not None)
        return hand


_KIND_ORDER = {CHOW: 0, PUNG: 1, KONG: 2}


def canonical_hand(hand: Hand) -> Hand:
    """The same hand written one way: melds in tile order (then chow, pung, kong; then claim index), standing
    tiles in tile order, flowers in letter order; the winning tile stays the winning tile. Scores and
    explanations are built from it, so that nothing in them depends on the order the hand was written in.
    A hand with an unknown tile id is returned as it is (validation names the tile)."""
    try:
        standing = tuple(sorted(hand.standing, key=INDEX.__getitem__))
        melds = hand.melds
        if len(melds) > 1:
            melds = tuple(sorted(melds, key=lambda m: (INDEX[m.tile], _KIND_ORDER[m.kind], m.concealed,
                                                        m.claim or 0)))
    except (KeyError, TypeError):
        return hand
    ctx = hand.context
    if ctx is not None and len(ctx.flowers) > 1 and list(ctx.flowers) != sorted(ctx.flowers):
        ctx = replace(ctx, flowers=tuple(sorted(ctx.flowers)))
    if melds == hand.melds and standing == hand.standing and ctx is hand.context:
        return hand
    return Hand(melds, standing, hand.winning_tile, ctx)


def tile_counts(tiles) -> list[int]:
    counts = [0] * N_KINDS
    for t in tiles:
        counts[INDEX[t]] += 1
    return counts


def validate(hand: Hand, need_win: bool = True, context: bool = True) -> None:
    """Check tile counts, meld shapes and (unless `context=False`) the hand's own context; raise FanscanError
    saying what is wrong."""
    for meld in hand.melds:
        check_meld(meld)
    if len(hand.melds) > 4:
        raise FanscanError(f"{len(hand.melds)} melds: a hand has at most four sets")
    counts = tile_counts(hand.all_tiles())
    for i, c in enumerate(counts):
        if c > 4:
            raise FanscanError(f"{c} copies of {PLAYING_TILE_IDS[i]}: there are only four of each tile")
    n_tiles = len(hand.standing) + 3 * len(hand.melds) + (1 if hand.winning_tile is not None else 0)
    expected = 14 if need_win else 13
    kongs = hand.n_kongs
    if n_tiles != expected:
        what = f"{n_tiles + kongs} tiles" + (f" ({kongs} kong{'s' if kongs > 1 else ''})" if kongs else "")
        need = f"{expected}" + (f" plus one per kong = {expected + kongs}" if kongs else "")
        extra = " (a hand to score needs its winning tile)" if need_win and n_tiles == 13 else ""
        raise FanscanError(f"{what}: a {'winning' if need_win else 'waiting'} hand has {need}{extra}")
    if context and hand.context is not None:
        check_context(hand, hand.context)


def check_context(hand: Hand, ctx: WinContext) -> None:
    """Context flags against the tiles: refused when they cannot hold (RULES.md, win context)."""
    check_context_fields(ctx)
    win = hand.winning_tile
    if ctx.kong_on_kong and hand.n_kongs < 2:  # first: kong on kong implies the replacement flag
        raise FanscanError(f"kong on kong needs two kongs in the hand, this one has {hand.n_kongs}")
    if ctx.kong_replacement and hand.n_kongs == 0:
        raise FanscanError("out with replacement tile needs a kong in the hand")
    if ctx.first_tile and hand.melds:
        raise FanscanError("a win on the first tile has no melds: nothing can be claimed or declared before it")
    if win is None:
        return
    in_standing = hand.standing.count(win)
    if ctx.robbing_kong:
        others = in_standing + sum(m.tiles.count(win) for m in hand.melds)
        if others:
            raise FanscanError(
                f"robbing the kong on {win}: the robbed kong holds the other three {win}, but this hand holds "
                f"{others} more")
    if ctx.last_of_kind and in_standing:
        raise FanscanError(
            f"last of its kind on {win}: the hand's own standing tiles hold another {win}, so three cannot be "
            "visible")
