"""Every arrangement of a complete hand, fast completeness checks, and waits.

Works on count arrays: `counts[i]` is how many of tile index i (see `scoring.tiles`) the concealed part holds.
Declared melds are fixed sets and are not decomposed; `n_melds` says how many sets they already provide.

Forms (RULES.md / Green Book):
  standard          4 sets + pair (sets from melds and from the concealed part)
  knitted_straight  147/258/369 in three suits (counts as three sets), plus 1 set + pair
  seven_pairs       seven pairs (a four of a kind is two pairs), no melds
  thirteen_orphans  the 13 terminals and honours, one of them paired, no melds
  honors_knitted    14 single tiles from one knitted straight's 9 tiles and the 7 honours, no melds

Speed: single-suit partitions and whole-hand results are memoised on count tuples (`memo`: a plain dict,
oldest entries dropped when full - unlike functools.lru_cache it adds no garbage-collected node per entry,
and its keys and values are tuples the collector stops tracking, so a full collection stays cheap however many
hands were scored); the completeness test (`is_winning`) uses the linear rule that the chows starting at a tile number
`count % 3` once earlier chows are taken away, so it never backtracks.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice, permutations, product
from typing import NamedTuple, TypeVar

from .tiles import FIRST_HONOR, N_KINDS, TERMINALS_AND_HONORS

# Kinds of the groups of an arrangement (small ints: arrangements are built in the hot path).
CHOW, PUNG, KONG, PAIR, KNITTED = 0, 1, 2, 3, 4
KIND_NAMES = ("chow", "pung", "kong", "pair", "knitted")

STANDARD, KNITTED_STRAIGHT, SEVEN_PAIRS, THIRTEEN_ORPHANS, HONORS_KNITTED = (
    "standard", "knitted_straight", "seven_pairs", "thirteen_orphans", "honors_knitted")

# The six knitted straights: suit order for the 147, 258 and 369 runs, as tile index tuples.
KNITTED_SETS: tuple[tuple[int, ...], ...] = tuple(
    tuple(9 * suit + r for suit, start in zip(perm, (0, 1, 2), strict=True) for r in (start, start + 3, start + 6))
    for perm in permutations(range(3))
)
ORPHANS = tuple(sorted(TERMINALS_AND_HONORS))


F = TypeVar("F", bound=Callable)


def memo(limit: int) -> Callable[[F], F]:
    """Memoise a function of hashable positional arguments in a dict of at most `limit` entries. When full, the
    oldest sixteenth is dropped (first in, first out): freeing all entries at once would cost one unlucky call
    a millisecond or more (thousands of tuples deallocated), the worst case of the scoring benchmark.
    `fn.cache_clear()` empties it."""
    evict = max(1, limit // 16)

    def decorate(fn):
        cache: dict = {}

        def wrapper(*args):
            # The key is a flat tuple of ints, which the garbage collector stops tracking the first time it sees
            # it: the argument itself, or the first argument (a tuple of fixed length: 34 or 9 counts) with the
            # others appended - a nested key would stay tracked until a full collection walks it.
            key = args[0] if len(args) == 1 else (*args[0], *args[1:])
            try:
                return cache[key]
            except KeyError:
                pass
            value = fn(*args)
            if len(cache) >= limit:
                for old in list(islice(cache, evict)):  # dicts keep insertion order: the oldest first
                    del cache[old]
            cache[key] = value
            return value

        wrapper.cache_clear = cache.clear  # type: ignore[attr-defined]
        wrapper.cache = cache  # type: ignore[attr-defined]
        wrapper.__doc__ = fn.__doc__
        wrapper.__name__ = fn.__name__
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper

    return decorate  # type: ignore[return-value]


class Arrangement(NamedTuple):
    """One way to read the concealed part. `sets` are (kind, tile index) for the concealed sets only
    (chow: lowest tile); melds are not repeated here. `pair` is the pair's tile index (None for forms without
    a pair). `knitted` is the index into KNITTED_SETS for the knitted forms. `singles` lists the tiles of the
    honors-and-knitted form; `form` is one of the form names above."""

    form: str
    sets: tuple[tuple[int, int], ...] = ()
    pair: int | None = None
    knitted: int | None = None
    singles: tuple[int, ...] = ()
    # (a NamedTuple, not a dataclass: tuples of atoms are untracked by the garbage collector once cached)


@memo(1 << 13)
def _suit_partitions(counts: tuple[int, ...]) -> tuple[bytes, ...]:
    """All ways to split one suit's 9 counts into sets. A partition is bytes of codes `kind * 9 + rank index`
    (not a garbage-collected object: the memo then holds nothing the collector keeps tracking)."""
    first = next((i for i, c in enumerate(counts) if c), -1)
    if first < 0:
        return (b"",)
    out: list[tuple[int, ...]] = []
    c = list(counts)
    if c[first] >= 3:
        c[first] -= 3
        for rest in _suit_partitions(tuple(c)):
            out.append(bytes((PUNG * 9 + first,)) + rest)
        c[first] += 3
    if first <= 6 and c[first + 1] and c[first + 2]:
        c[first] -= 1
        c[first + 1] -= 1
        c[first + 2] -= 1
        for rest in _suit_partitions(tuple(c)):
            out.append(bytes((CHOW * 9 + first,)) + rest)
    return tuple(out)


@memo(1 << 14)
def _suit_ok(counts: tuple[int, ...]) -> bool:
    """Whether one suit's 9 counts split into sets (linear: chows starting at a tile = count mod 3)."""
    a = b = 0  # chows started one and two ranks below, still needing this rank
    for i, c in enumerate(counts):
        c -= a + b
        if c < 0:
            return False
        start = c % 3
        if start and i > 6:
            return False
        a, b = start, a
    return a == 0 and b == 0


@memo(1 << 14)
def _suit_ok_pair(counts: tuple[int, ...]) -> bool:
    """Whether one suit's 9 counts split into sets plus one pair."""
    c = list(counts)
    for r in range(9):
        if c[r] >= 2:
            c[r] -= 2
            ok = _suit_ok(tuple(c))
            c[r] += 2
            if ok:
                return True
    return False


def _honors_state(c: list[int]) -> int:
    """0: honours split into pungs; 2: pungs plus one pair; -1: neither."""
    pairs = 0
    for i in range(FIRST_HONOR, N_KINDS):
        x = c[i]
        if x in (2, 5):  # 5: a fifth copy, only for formal waits (pung + pair)
            pairs += 1
        elif x not in (0, 3):
            return -1
    return 0 if pairs == 0 else 2 if pairs == 1 else -1


def _standard_waits(c: list[int]) -> set[int]:
    """Standard-form waits, suit by suit: adding a tile changes one suit only, so each candidate costs one or two
    memoised 9-count lookups (`_suit_ok`, `_suit_ok_pair`)."""
    zero = []
    two = []
    for s in range(3):
        seg = tuple(c[9 * s:9 * s + 9])
        zero.append(_suit_ok(seg))
        two.append(_suit_ok_pair(seg))
    h = _honors_state(c)
    zero.append(h == 0)
    two.append(h == 2)
    # For a tile added to component k: may k hold the pair (all others split into sets), and may it hold only
    # sets (exactly one other component holds the pair)?
    pair_here = []
    sets_here = []
    for k in range(4):
        others = [j for j in range(4) if j != k]
        pair_here.append(all(zero[j] for j in others))
        sets_here.append(any(two[j] and all(zero[m] for m in others if m != j) for j in others))
    candidates = set()
    for i in range(N_KINDS):
        if c[i]:
            candidates.add(i)
            if i < FIRST_HONOR:
                r = i % 9
                for d in (-2, -1, 1, 2):
                    if 0 <= r + d <= 8:
                        candidates.add(i + d)
    out = set()
    for t in candidates:
        k = 3 if t >= FIRST_HONOR else t // 9
        if not (pair_here[k] or sets_here[k]):
            continue
        c[t] += 1
        if k == 3:
            h2 = _honors_state(c)
            ok = (pair_here[k] and h2 == 2) or (sets_here[k] and h2 == 0)
        else:
            seg = tuple(c[9 * k:9 * k + 9])
            ok = (pair_here[k] and _suit_ok_pair(seg)) or (sets_here[k] and _suit_ok(seg))
        c[t] -= 1
        if ok:
            out.add(t)
    return out


def _sets_of(counts: list[int]) -> list[tuple[tuple[int, int], ...]] | None:
    """All partitions of a whole 34-count array into sets (no pair), or None when there is none."""
    per_suit = []
    for s in range(3):
        part = _suit_partitions(tuple(counts[9 * s:9 * s + 9]))
        if not part:
            return None
        per_suit.append(tuple(tuple((code // 9, 9 * s + code % 9) for code in p) for p in part))
    honors: list[tuple[int, int]] = []
    for i in range(FIRST_HONOR, N_KINDS):
        if counts[i] == 3:
            honors.append((PUNG, i))
        elif counts[i]:
            return None
    return [a + b + c + tuple(honors) for a, b, c in product(*per_suit)]


def _standard(counts: list[int], n_sets: int) -> list[tuple[tuple[tuple[int, int], ...], int]]:
    """(sets, pair) for every standard reading of `counts` as n_sets sets + a pair."""
    out = []
    if sum(counts) != 3 * n_sets + 2:
        return out
    for p in range(N_KINDS):
        if counts[p] < 2:
            continue
        counts[p] -= 2
        ok = all(sum(counts[9 * s:9 * s + 9]) % 3 == 0 for s in range(3))
        if ok:
            sets = _sets_of(counts)
            if sets:
                out.extend((s, p) for s in sets)
        counts[p] += 2
    return out


_FORMS = (STANDARD, KNITTED_STRAIGHT, SEVEN_PAIRS, THIRTEEN_ORPHANS, HONORS_KNITTED)
_NONE = 255  # "no pair" / "no knitted straight" in the packed form


@memo(1 << 12)
def _arrangements(counts: tuple[int, ...], n_melds: int) -> bytes:
    """Every arrangement of a concealed part (34 counts) that completes a hand holding `n_melds` melds, packed
    into bytes (see `_pack`).

    Deterministic order for equal input: standard readings by pair tile, then knitted, then special forms."""
    c = list(counts)
    n_sets = 4 - n_melds
    out: list[Arrangement] = [Arrangement(STANDARD, tuple(sorted(s)), p) for s, p in _standard(c, n_sets)]
    if n_sets >= 3:
        for k, knit in enumerate(KNITTED_SETS):
            if all(c[i] for i in knit):
                for i in knit:
                    c[i] -= 1
                out.extend(Arrangement(KNITTED_STRAIGHT, tuple(sorted(s)), p, k) for s, p in _standard(c, n_sets - 3))
                for i in knit:
                    c[i] += 1
    if n_melds == 0 and sum(c) == 14:
        if all(x in (0, 2, 4) for x in c):
            out.append(Arrangement(SEVEN_PAIRS))
        if all(c[i] for i in ORPHANS) and sum(c[i] for i in ORPHANS) == 14:
            out.append(Arrangement(THIRTEEN_ORPHANS, pair=next(i for i in ORPHANS if c[i] == 2)))
        if max(c) == 1:
            for k, knit in enumerate(KNITTED_SETS):
                numbered = [i for i in range(FIRST_HONOR) if c[i]]
                if all(i in knit for i in numbered):
                    singles = tuple(i for i in range(N_KINDS) if c[i])
                    out.append(Arrangement(HONORS_KNITTED, knitted=k, singles=singles))
                    break
    return _pack(out)


def _pack(arrs: list[Arrangement]) -> bytes:
    """Arrangements as bytes: per arrangement form, pair, knitted, number of sets, number of singles, then the
    sets as (kind, tile) and the singles. Bytes are not garbage-collected objects: a memo full of them adds
    nothing to Python's collections (nested tuples stay tracked until a full collection walks them - the
    millisecond pauses of the scoring benchmark's worst hands)."""
    out = bytearray()
    for a in arrs:
        out += bytes((_FORMS.index(a.form), _NONE if a.pair is None else a.pair,
                      _NONE if a.knitted is None else a.knitted, len(a.sets), len(a.singles)))
        for kind, tile in a.sets:
            out += bytes((kind, tile))
        out += bytes(a.singles)
    return bytes(out)


def arrangements(counts: tuple[int, ...], n_melds: int) -> tuple[Arrangement, ...]:
    """Every arrangement of a concealed part (34 counts) that completes a hand holding `n_melds` melds.

    Deterministic order for equal input: standard readings by pair tile, then knitted, then special forms.
    (The memo keeps them packed in bytes, which the garbage collector never walks; they are unpacked here.)"""
    data = _arrangements(counts, n_melds)
    out = []
    i, end = 0, len(data)
    while i < end:
        form, pair, knitted, n_sets, n_singles = data[i:i + 5]
        i += 5
        sets = tuple(zip(data[i:i + 2 * n_sets:2], data[i + 1:i + 2 * n_sets:2], strict=True))
        i += 2 * n_sets
        singles = tuple(data[i:i + n_singles])
        i += n_singles
        out.append(Arrangement(_FORMS[form], sets, None if pair == _NONE else pair,
                               None if knitted == _NONE else knitted, singles))
    return tuple(out)


def _standard_ok(c: list[int], n_sets: int) -> bool:
    if sum(c) != 3 * n_sets + 2:
        return False
    pair_suit = -1
    for s in range(3):
        r = sum(c[9 * s:9 * s + 9]) % 3
        if r == 1:
            return False
        if r == 2:
            if pair_suit >= 0:
                return False
            pair_suit = s
    honor_pair = False
    for i in range(FIRST_HONOR, N_KINDS):
        x = c[i]
        if x in (2, 5):
            if honor_pair or pair_suit >= 0:
                return False
            honor_pair = True
        elif x not in (0, 3):
            return False
    for s in range(3):
        seg = c[9 * s:9 * s + 9]
        if s != pair_suit:
            if not _suit_ok(tuple(seg)):
                return False
            continue
        found = False
        for r in range(9):
            if seg[r] >= 2:
                seg[r] -= 2
                if _suit_ok(tuple(seg)):
                    found = True
                seg[r] += 2
                if found:
                    break
        if not found:
            return False
    return pair_suit >= 0 or honor_pair


@memo(1 << 13)
def is_winning(counts: tuple[int, ...], n_melds: int = 0) -> bool:
    """Whether a concealed part (34 counts, tile indices of `scoring.tiles`) plus `n_melds` declared sets
    is a complete hand in any form. Fast (no enumeration); counts above 4 are allowed (used for formal waits)."""
    c = list(counts)
    n_sets = 4 - n_melds
    if _standard_ok(c, n_sets):
        return True
    if n_sets >= 3:
        for knit in KNITTED_SETS:
            if all(c[i] for i in knit):
                for i in knit:
                    c[i] -= 1
                ok = _standard_ok(c, n_sets - 3)
                for i in knit:
                    c[i] += 1
                if ok:
                    return True
    if n_melds == 0 and sum(c) == 14:
        if all(x in (0, 2, 4) for x in c):
            return True
        if all(c[i] for i in ORPHANS) and sum(c[i] for i in ORPHANS) == 14:
            return True
        if max(c) == 1:
            numbered = [i for i in range(FIRST_HONOR) if c[i]]
            if any(all(i in knit for i in numbered) for knit in KNITTED_SETS):
                return True
    return False


def formal_waits(counts: tuple[int, ...], n_melds: int) -> tuple[int, ...]:
    """Tiles that complete a waiting concealed part in any form, including tiles the hand already holds all
    four of (the Green Book's wait fans look at the shape, RULES.md: 'could be completed by that one tile alone')."""
    c = list(counts)
    found = _standard_waits(c)
    if n_melds <= 1:
        # Special forms (and the knitted straight) can be completed by tiles that touch nothing: test them with
        # is_winning, only when the shape is close to that form.
        candidates: set[int] = set()
        if n_melds == 0:
            odd = [i for i in range(N_KINDS) if c[i] % 2]
            if len(odd) == 1:
                candidates.add(odd[0])  # seven pairs
            if all(c[i] == 0 for i in range(N_KINDS) if i not in TERMINALS_AND_HONORS):
                candidates.update(ORPHANS)
        singles = n_melds == 0 and max(c) <= 1
        for knit in KNITTED_SETS:
            if sum(1 for i in knit if c[i]) >= 8:  # knitted straight + a set and a pair
                candidates.update(range(FIRST_HONOR))
                candidates.update(range(FIRST_HONOR, N_KINDS))
            if singles and all(c[i] == 0 for i in range(FIRST_HONOR) if i not in knit):  # honours and knitted
                candidates.update(knit)
                candidates.update(range(FIRST_HONOR, N_KINDS))
        for t in candidates - found:
            c[t] += 1
            if is_winning(tuple(c), n_melds):
                found.add(t)
            c[t] -= 1
    return tuple(sorted(found))


def _could_help(c: list[int], t: int) -> bool:
    """A standard-form completion needs the new tile to touch a tile already held (same, or within 2 in a suit)."""
    if c[t]:
        return True
    if t >= FIRST_HONOR:
        return False
    r = t % 9
    return any(0 <= r + d <= 8 and c[t + d] for d in (-2, -1, 1, 2))
