"""The GB-Mahjong hand-string notation, read and written.

    [345m,1][EEE,2][1111m]123p55s66sC|EE1000|ab

Melds in brackets (`,n`: claimed tile of a chow 1-3, provider of a pung/kong 1-3, 5-7 an added kong; a kong with
no index is concealed), then the standing tiles with the winning tile last, then `|` prevalent wind, seat wind and
four 0/1 flags (self-drawn, last of its kind, last tile of the wall, kong: robbing the kong on a discard or the
replacement tile on a self-draw), then `|` flowers as letters a-h or a count. Thirteen tiles (plus one per kong)
mean a waiting hand with no winning tile.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from .errors import FanscanError
from .hand import CHOW, KONG, PUNG, Hand, Meld, WinContext, check_context_fields, validate
from .tiles import DRAGONS, FLOWERS, INDEX, PLAYING_TILE_IDS, SUITS, WINDS

_HONOR_LETTERS = set(WINDS) | set(DRAGONS)
_DIGITS = frozenset("0123456789")  # str.isdigit() also accepts other scripts' digits, which are no tile numbers
_HINT = "tiles are 1-9 followed by m, p or s, honors E S W N C F P"


def _read_tiles(text: str, offset: int) -> list[tuple[str, int]]:
    """Tiles of a run of notation with their 1-based positions in the whole string."""
    out: list[tuple[str, int]] = []
    pending: list[tuple[str, int]] = []
    for k, ch in enumerate(text):
        pos = offset + k + 1
        if ch in _DIGITS:
            if ch == "0":
                raise FanscanError(f"character '0' at position {pos}: tile numbers are 1-9 ({_HINT})")
            pending.append((ch, pos))
        elif ch in SUITS:
            if not pending:
                raise FanscanError(f"suit letter '{ch}' at position {pos} has no numbers before it ({_HINT})")
            out.extend((d + ch, p) for d, p in pending)
            pending = []
        elif ch in _HONOR_LETTERS:
            if pending:
                raise FanscanError(
                    f"numbers '{''.join(d for d, _ in pending)}' before position {pos} have no suit letter ({_HINT})")
            out.append((ch, pos))
        elif ch.isspace():
            continue
        else:
            hint = ""
            if ch.upper() in _HONOR_LETTERS and ch.islower():
                hint = f"; honors are upper case: did you mean '{ch.upper()}'?"
            elif ch in "[]|,":
                hint = f"; '{ch}' is not expected here"
            elif ch == "z":
                hint = "; honors are letters here, not 1z-7z: E S W N for the winds, C F P for red, green, white"
            elif ch == "\ufffd" or "\udc80" <= ch <= "\udcff":  # how undecodable bytes arrive
                hint = "; the text is not UTF-8"
            elif ch.isdigit() or unicodedata.east_asian_width(ch) == "F":  # e.g. full-width '１', 'Ｅ'
                hint = "; write plain (half-width) ASCII digits and letters"
            raise FanscanError(f"unexpected character {ch!r} at position {pos} ({_HINT}){hint}")
    if pending:
        raise FanscanError(
            f"numbers '{''.join(d for d, _ in pending)}' at position {pending[0][1]} have no suit letter ({_HINT})")
    return out


_RUNS = re.compile(r"(?:[1-9]+[mps]|[ESWNCFP])*")
_RUN = re.compile(r"([1-9]+)([mps])|([ESWNCFP])")


def _tiles_fast(text: str, offset: int) -> list[str]:
    """Tiles of a well-formed run (the common case); anything else goes through `_read_tiles` for its message."""
    if _RUNS.fullmatch(text):
        out: list[str] = []
        for digits, suit, honor in _RUN.findall(text):
            if honor:
                out.append(honor)
            else:
                out.extend(d + suit for d in digits)
        return out
    return [t for t, _ in _read_tiles(text, offset)]


_MELD_CACHE: dict[str, Meld] = {}


def _read_meld(body: str, offset: int) -> Meld:
    meld = _MELD_CACHE.get(body)
    if meld is None:
        meld = _read_meld_text(body, offset)
        if len(_MELD_CACHE) < 4096:  # a few hundred distinct melds exist; Meld is immutable
            _MELD_CACHE[body] = meld
    return meld


def _read_meld_text(body: str, offset: int) -> Meld:
    where = f"meld [{body}] at position {offset}"
    claim: int | None = None
    if "," in body:
        body, _, idx = body.partition(",")
        if not idx.strip() or not set(idx.strip()) <= _DIGITS:
            raise FanscanError(f"{where}: claim index {idx!r} must be a number (1-3, or 5-7 for an added kong)")
        claim = int(idx)
    tiles = _tiles_fast(body, offset)
    if len(tiles) not in (3, 4):
        raise FanscanError(f"{where}: a meld has 3 tiles (chow, pung) or 4 (kong), not {len(tiles)}")
    idx_sorted = sorted(INDEX[t] for t in tiles)
    if len(set(idx_sorted)) == 1:
        kind = KONG if len(tiles) == 4 else PUNG
    elif len(tiles) == 3 and idx_sorted[0] < 27 and idx_sorted == list(range(idx_sorted[0], idx_sorted[0] + 3)) \
            and idx_sorted[0] // 9 == idx_sorted[2] // 9:
        kind = CHOW
    else:
        raise FanscanError(f"{where}: not a chow (three consecutive numbers of one suit), pung or kong")
    if claim == 0 and kind == KONG:
        claim = None  # some writers mark a concealed kong with ",0"
    concealed = kind == KONG and claim is None
    meld = Meld(kind, PLAYING_TILE_IDS[idx_sorted[0]], claim, concealed)
    if claim is not None:
        allowed = (1, 2, 3, 5, 6, 7) if kind == KONG else (1, 2, 3)
        if claim not in allowed:
            raise FanscanError(f"{where}: claim index {claim} must be one of {', '.join(map(str, allowed))}")
    return meld


def _read_context(text: str, offset: int) -> WinContext:
    where = f"win context '|{text}' at position {offset}"
    if len(text) != 6:
        raise FanscanError(f"{where}: write prevalent wind, seat wind and four 0/1 flags, e.g. |EE1000")
    prevalent, seat, flags = text[0], text[1], text[2:]
    for name, w in (("prevalent wind", prevalent), ("seat wind", seat)):
        if w not in WINDS:
            raise FanscanError(f"{where}: {name} {w!r} must be one of E, S, W, N")
    for k, f in enumerate(flags):
        if f not in "01":
            raise FanscanError(f"{where}: flag {f!r} at position {offset + 3 + k} must be 0 or 1")
    self_drawn, last_kind, last_tile, kong = (f == "1" for f in flags)
    return WinContext(
        prevalent_wind=prevalent, seat_wind=seat, self_drawn=self_drawn, last_of_kind=last_kind,
        last_tile=last_tile, kong_replacement=kong and self_drawn, robbing_kong=kong and not self_drawn,
    )


def read_flowers(text: str, where: str) -> tuple[tuple[str, ...], int | None]:
    """Flowers as letters a-h (each once; returned sorted) or a count 0-8, as (letters, count); `where` names
    the place for the error message (the notation's | part, or a command-line option)."""
    text = text.strip()
    if not text:
        return (), None
    if set(text) <= _DIGITS:
        n = int(text)
        if n > 8:
            raise FanscanError(f"{where}: there are 8 flowers, not {n}")
        return (), n
    for ch in text:
        if ch not in FLOWERS:
            raise FanscanError(
                f"{where}: flower {ch!r} unknown: not a flower letter a-h (plum, orchid, bamboo, chrysanthemum, "
                "spring, summer, autumn, winter), nor a count 0-8")
    if len(set(text)) != len(text):
        raise FanscanError(f"{where}: each flower exists once")
    return tuple(sorted(text)), None


_CONTEXT_CACHE: dict[str, WinContext] = {}


def _read_context_part(parts: list[str]) -> WinContext:
    offset = len(parts[0]) + 2
    context = _read_context(parts[1].strip(), offset) if parts[1].strip() else WinContext()
    if len(parts) == 3:
        flowers, count = read_flowers(parts[2], f"flowers '|{parts[2].strip()}' at position "
                                                f"{len(parts[0]) + len(parts[1]) + 2}")
        context = WinContext(**{**context.__dict__, "flowers": flowers, "flower_count": count})
    return context


def parse_hand(text: str, validate_hand: bool = True) -> Hand:
    """Read a GB-notation hand string. 14 tiles (+1 per kong): the last standing tile is the winning tile;
    13 (+1 per kong): a waiting hand (winning_tile None). Raises FanscanError naming the position of a typo."""
    if not isinstance(text, str):
        raise FanscanError("a hand string is text")
    raw = text.rstrip("\r\n")
    if not raw.strip():
        raise FanscanError("empty hand string")
    lines = raw.splitlines()
    if len(lines) > 1:  # refused up front: a message quoting the text must stay on one line
        raise FanscanError(f"a hand string is one line; it breaks after position {len(lines[0])}")
    parts = raw.split("|")
    if len(parts) > 3:
        raise FanscanError("too many '|': write tiles|EE1000|flowers")
    tiles_part = parts[0]
    melds: list[Meld] = []
    standing: list[str] = []
    k = 0
    while k < len(tiles_part):
        ch = tiles_part[k]
        if ch == "[":
            end = tiles_part.find("]", k)
            if end < 0:
                raise FanscanError(f"'[' at position {k + 1} is never closed with ']'")
            if standing:
                raise FanscanError(f"meld at position {k + 1} comes after standing tiles: write melds first")
            melds.append(_read_meld(tiles_part[k + 1:end], k + 1))
            k = end + 1
            continue
        if ch == "]":
            raise FanscanError(f"']' at position {k + 1} has no matching '['")
        end = tiles_part.find("[", k)
        end = len(tiles_part) if end < 0 else end
        standing.extend(_tiles_fast(tiles_part[k:end], k))
        k = end
    context = None
    if len(parts) >= 2:
        key = raw[len(parts[0]):]
        context = _CONTEXT_CACHE.get(key)
        if context is None:
            context = _read_context_part(parts)
            if len(_CONTEXT_CACHE) < 512:  # WinContext is immutable (few distinct contexts; kept small for the GC)
                _CONTEXT_CACHE[key] = context
    n = len(standing) + 3 * len(melds)
    winning = None
    if n == 14 and standing:
        winning = standing.pop()
    elif n != 13:
        kongs = sum(1 for m in melds if m.kind == KONG)
        total = len(standing) + sum(len(m.tiles) for m in melds)
        need = "14 to score (13 waiting)" + (f", plus one per kong = {14 + kongs}" if kongs else "")
        raise FanscanError(f"{total} tile{'' if total == 1 else 's'}: a hand has {need}")
    hand = Hand(tuple(melds), tuple(standing), winning, context)
    if validate_hand:
        validate(hand, need_win=winning is not None)
    elif context is not None:
        check_context_fields(context)
    return hand


def format_tiles(tiles: Iterable[str]) -> str:
    """Playing tiles (no flowers) written compactly in tile order, one suit letter per suit: "123m456pEE"."""
    out: list[str] = []
    suit_digits: dict[str, str] = {}
    for i in sorted(INDEX[t] for t in tiles):
        t = PLAYING_TILE_IDS[i]
        if len(t) == 2:
            suit_digits[t[1]] = suit_digits.get(t[1], "") + t[0]
        else:
            out.append(t)
    return "".join(suit_digits[s] + s for s in SUITS if s in suit_digits) + "".join(out)


def format_meld(meld: Meld) -> str:
    body = format_tiles(meld.tiles)
    return f"[{body},{meld.claim}]" if meld.claim is not None else f"[{body}]"


def format_context(ctx: WinContext) -> str:
    kong = ctx.kong_replacement or ctx.robbing_kong
    flags = "".join("1" if f else "0" for f in (ctx.self_drawn, ctx.last_of_kind, ctx.last_tile, kong))
    text = f"|{ctx.prevalent_wind}{ctx.seat_wind}{flags}"
    if ctx.flowers:
        text += "|" + "".join(ctx.flowers)
    elif ctx.flower_count:
        text += f"|{ctx.flower_count}"
    return text


def format_hand(hand: Hand) -> str:
    """Write a hand in GB notation: melds, standing tiles sorted, winning tile last, then the context if any.
    A melded chow or pung with no claim index is written with index 1, so that it reads back as melded."""
    melds = "".join(format_meld(m if m.claim is not None or m.concealed else Meld(m.kind, m.tile, 1))
                    for m in hand.melds)
    standing = format_tiles(hand.standing)
    win = hand.winning_tile or ""
    text = melds + standing + win
    if hand.winning_tile is None:
        text += " "
    if hand.context is not None:
        text += format_context(hand.context)
    return text
