"""`fanscan score`: score a hand string (or a file / stdin of them, one per line) with every fan explained."""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import stat
import sys
from dataclasses import replace
from typing import Any, TextIO

from fanscan import exit_status, scoring
from fanscan.columns import pad, width
from fanscan.scoring.errors import FanscanError
from fanscan.scoring.hand import Hand, WinContext, check_context_fields
from fanscan.scoring.notation import parse_hand, read_flowers
from fanscan.scoring.tiles import INDEX, WINDS, tiles_text
from fanscan.usage_errors import one_line_errors

EPILOG = """\
HAND is a GB-notation hand string, e.g. "[EEE,2][SSSS,1]WWWNN55pN|EE1000": melds in brackets (,n = claimed
tile / provider; a kong without ,n is concealed; 5-7 an added kong), standing tiles with the winning tile last,
then |prevalent wind, seat wind, four 0/1 flags (self-drawn, last of its kind, last tile, kong: robbing the kong
on a discard / replacement tile on a self-draw), then |flowers (letters a-h or a count).

HAND may also be "-" (standard input) or a file path: one hand string per line (blank lines and lines starting
with # are skipped); each line prints one JSON object (JSON Lines), {"ok": false, "error": ...} for a bad line,
and the rest is still scored.

Context flags add to the string's | part; a flag that contradicts it (e.g. --discard on a self-drawn string,
another seat wind) is an error, as is an impossible combination (robbing the kong on a self-draw, ...).

""" + exit_status.EPILOG


def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("win context (the photo cannot show it; these extend the string's | part)")
    how = g.add_mutually_exclusive_group()
    how.add_argument("--self-drawn", action="store_true", help="won on a self-drawn tile")
    how.add_argument("--discard", action="store_true", help="won on another player's discard (the default)")
    g.add_argument("--seat-wind", choices=WINDS, help="the player's seat wind (default E)")
    g.add_argument("--prevalent-wind", choices=WINDS, help="the prevalent (round) wind (default E)")
    g.add_argument("--last-tile", action="store_true",
                   help="the last tile of the wall: Last Tile Draw when self-drawn, Last Tile Claim on a discard")
    g.add_argument("--last-of-kind", action="store_true",
                   help="the other three copies of the winning tile were already visible")
    g.add_argument("--kong-replacement", action="store_true",
                   help="won on the replacement tile after declaring a kong (implies --self-drawn)")
    g.add_argument("--robbing-kong", action="store_true", help="won on a tile another player added to a kong")
    g.add_argument("--flower-replacement", action="store_true",
                   help="won on the replacement tile after declaring a flower (HK Win on Kong; implies --self-drawn)")
    g.add_argument("--kong-on-kong", action="store_true",
                   help="won on the replacement after two consecutive kongs (HK; implies --kong-replacement)")
    g.add_argument("--first-tile", action="store_true",
                   help="won on the first tile: East's dealt hand, self-drawn (HK Bless of Heaven), or the first "
                        "discard (HK Bless of Earth)")
    g.add_argument("--flowers", metavar="FLOWERS",
                   help="flower tiles: letters a-h (plum orchid bamboo chrysanthemum spring summer autumn winter) "
                        "or a count 0-8")


def add_variant_argument(parser: argparse.ArgumentParser) -> None:
    """--variant: the MCR rule variant (the seed's rulings, or the Green Book / MIL values)."""
    from fanscan.scoring.mcr import VARIANTS

    parser.add_argument("--variant", choices=tuple(VARIANTS), type=str.lower, default=None,
                        help="MCR rule variant: seed (default: the seed's rulings, seed-003 kong chart, Two Concealed "
                             "Kongs 8) or mil (Green Book / MIL values as the reference engines: Two Concealed Kongs "
                             "6, "
                             "melded + concealed kong 5, three or more kongs without kong fans)")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "score", help="score a hand string (or a file of them) with every fan explained",
        description="Score a finished mahjong hand given as a GB-notation string; every fan explained.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("hand", metavar="HAND", help='hand string, or "-" / a file path for one hand per line')
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the text breakdown")
    p.add_argument("--rules", default="mcr", choices=sorted(scoring.RULE_SETS) or ["mcr"], type=str.lower,
                   help="rule set (default mcr)")
    p.add_argument("--tiles", choices=("ascii", "unicode", "en", "zh"), default="ascii",
                   help="how tiles are shown in the text breakdown (default ascii; unicode needs a font with the "
                        "Mahjong Tiles block)")
    add_variant_argument(p)
    add_context_arguments(p)
    one_line_errors(p)
    p.set_defaults(run=run)


def context_from_args(args: argparse.Namespace, hand: Hand) -> WinContext | None:
    """The win context: the hand string's own, extended by the flags; None when neither says anything."""
    base = hand.context
    flags_given = any((args.self_drawn, args.discard, args.seat_wind, args.prevalent_wind, args.last_tile,
                       args.last_of_kind, args.kong_replacement, args.robbing_kong, args.flowers is not None,
                       args.flower_replacement, args.kong_on_kong, args.first_tile))
    if not flags_given:
        return base
    ctx = base or WinContext()
    said = base is not None

    def conflict(what: str) -> FanscanError:
        return FanscanError(f"{what} contradicts the hand string's context {hand_context_text(base)}")

    self_drawn = ctx.self_drawn
    if args.discard:
        if said and ctx.self_drawn:
            raise conflict("--discard")
        self_drawn = False
    kong_replacement = args.kong_replacement or args.kong_on_kong
    if args.self_drawn or ((kong_replacement or args.flower_replacement) and not args.discard):
        self_drawn = True
    for name in ("seat_wind", "prevalent_wind"):
        value = getattr(args, name)
        if value and said and getattr(ctx, name) != value:
            raise conflict(f"--{name.replace('_', '-')} {value}")
    flowers, count = ctx.flowers, ctx.flower_count
    if args.flowers is not None:
        new_flowers, new_count = read_flowers(args.flowers, f"--flowers {args.flowers}")
        if said and (ctx.flowers or ctx.flower_count) and (new_flowers, new_count) != (ctx.flowers, ctx.flower_count):
            raise conflict(f"--flowers {args.flowers}")
        flowers, count = new_flowers, new_count
    if said and ctx.robbing_kong and self_drawn:
        raise conflict("--self-drawn")
    ctx = replace(
        ctx, self_drawn=self_drawn,
        seat_wind=args.seat_wind or ctx.seat_wind, prevalent_wind=args.prevalent_wind or ctx.prevalent_wind,
        last_tile=ctx.last_tile or args.last_tile, last_of_kind=ctx.last_of_kind or args.last_of_kind,
        kong_replacement=ctx.kong_replacement or kong_replacement,
        robbing_kong=ctx.robbing_kong or args.robbing_kong, flowers=flowers, flower_count=count,
        flower_replacement=ctx.flower_replacement or args.flower_replacement,
        kong_on_kong=ctx.kong_on_kong or args.kong_on_kong, first_tile=ctx.first_tile or args.first_tile)
    check_context_fields(ctx)
    return ctx


def hand_context_text(ctx: WinContext | None) -> str:
    from fanscan.scoring.notation import format_context

    return format_context(ctx) if ctx else "(none)"


def score_text(text: str, args: argparse.Namespace) -> scoring.Score:
    hand = parse_hand(text)
    return scoring.score(hand, context_from_args(args, hand), rules=args.rules, variant=args.variant)


def _tiles(tiles: list[str], style: str) -> str:
    if style == "ascii":
        from fanscan.scoring.notation import format_tiles

        return format_tiles(tiles) if all(INDEX[t] < 34 for t in tiles) else "".join(tiles)
    return tiles_text(tiles, style)


def _win_text(result: scoring.Score, hand: Hand) -> str:
    """The winning tile and the win context in words (the hand string's |EE1000 part is terse)."""
    ctx = result.context
    how = ["self-drawn" if ctx.self_drawn else "on a discard"]
    kong = "replacement tile after two consecutive kongs" if ctx.kong_on_kong else "replacement tile after a kong"
    for flag, words in (("last_tile", "last tile of the wall"), ("last_of_kind", "last of its kind"),
                        ("kong_replacement", kong), ("flower_replacement", "replacement tile after a flower"),
                        ("robbing_kong", "robbing a kong"), ("first_tile", "first tile of the game")):
        if getattr(ctx, flag):
            how.append(words)
    text = (f"Win    {hand.winning_tile} {', '.join(how)}; prevalent wind {ctx.prevalent_wind}, "
            f"seat wind {ctx.seat_wind}")
    if ctx.flowers:
        text += f"; flowers {' '.join(ctx.flowers)}"
    elif ctx.flower_count:
        text += f"; {ctx.flower_count} flower{'s' if ctx.flower_count > 1 else ''}"
    return text


def render(result: scoring.Score, style: str = "ascii") -> str:
    """The readable breakdown of a Score."""
    rules = scoring.get_rule_set(result.rules, result.variant)
    hand = parse_hand(result.hand, validate_hand=False)
    whole = sorted(hand.all_tiles(), key=INDEX.__getitem__)
    variant = f", variant: {result.variant}" if result.variant else ""
    lines = [f"Hand   {result.hand}    (rules: {result.rules}{variant})", _win_text(result, hand)]
    groups = []
    for g in result.arrangement.groups:
        t = _tiles(g.tiles, style)
        groups.append(f"({t})" if g.melded else t)
    form = result.arrangement.form.replace("_", " ")
    lines.append(f"Sets   {'  '.join(groups)}    [{form}; (..) = melded]")
    lines.append("")

    def named(name: str, count: int) -> str:
        return name + (f" x{count}" if count > 1 else "")

    name_w = max([len(named(f.name, f.count)) for f in result.fans] + [10]) + 2
    zh_w = max(width(f.name_zh) for f in result.fans) + 2
    # biggest first in both rule sets (the JSON keeps table order: MCR's is by value, HK's is the seed's numbering)
    for f in sorted(result.fans, key=lambda f: -f.points):
        # "whole hand" only for evidence that is the whole hand (four kongs are 16 tiles, not the hand)
        shown = "; ".join("whole hand" if sorted(t, key=INDEX.__getitem__) == whole else _tiles(t, style)
                          for t in f.tiles if t)
        lines.append(f"  {f.points:>3}  {named(f.name, f.count).ljust(name_w)} {pad(f.name_zh, zh_w)}{shown}".rstrip())
    if result.excluded:
        lines.append("")
        lines.append(f"  {rules.dropped_heading}:")
        for e in result.excluded:
            lines.append(f"       {named(e.name, e.count)} ({e.value * e.count})  - {rules.dropped_by} "
                         f"{e.implied_by_name}")
    lines.append("")
    flowers = result.total_uncapped - result.total_without_flowers  # a cap (HK) applies after flowers
    total = f"Total  {result.total} fan"
    if flowers:
        total += f" ({result.total_without_flowers} + {flowers} for flowers)"
    if result.cap is not None and result.total_uncapped != result.total:
        total += f", capped at {result.cap} (uncapped {result.total_uncapped})"
    if result.minimum is not None:
        total += (f" - meets the {result.minimum}-fan minimum" if result.meets_minimum
                  else f" - BELOW the {result.minimum}-fan minimum (flowers do not count): not a valid win")
    lines.append(total)
    s = result.settlement
    if s:
        p = s["payments"]
        if s["self_drawn"]:
            lines.append(f"Settle self-drawn: each opponent pays 8 + {result.total} = {p['each_opponent']}; "
                         f"winner receives {s['winner_receives']}")
        else:
            lines.append(f"Settle discarder pays 8 + {result.total} = {p['discarder']}, the other two pay 8 each; "
                         f"winner receives {s['winner_receives']}")
    for alt in result.alternatives:
        fans = ", ".join(named(f.name, f.count) for f in alt.fans)
        lines.append(f"Also   {alt.arrangement.text()} scores the same: {fans}")
    return "\n".join(lines)


def _batch(stream: TextIO, args: argparse.Namespace, out: TextIO) -> int:
    # Thousands of hands in one process: keep Python's full garbage collections short by moving everything
    # that exists now (modules, functions, tables) out of their way - they then walk only what scoring adds.
    gc.collect()
    gc.freeze()
    failed = 0
    for n, line in enumerate(stream, 1):
        text = line.strip().lstrip("\ufeff").strip() if n == 1 else line.strip()  # a byte-order mark (Windows)
        if not text or text.startswith("#"):
            continue
        record: dict[str, Any]
        try:
            record = score_text(text, args).to_dict()
        except FanscanError as error:
            failed += 1
            record = {"ok": False, "error": str(error)}
        record = {"line": n, "input": text, **record}
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return exit_status.SOME_FAILED if failed else exit_status.SCORED


# A file of hand strings is text: a NUL byte in its first block means a binary file (a photo, an archive...).
_SNIFF_BYTES = 8192


def _open_hand_file(path: str) -> TextIO:
    """A file of hand strings, opened as text; a device, socket or binary file is refused with what it is (a
    pipe is read: `<(...)` and /dev/stdin are files of hand strings too)."""
    mode = os.stat(path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        kind = "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"
        raise FanscanError(f"{path} is {kind}, not a file of hand strings (one per line)")
    try:
        f = open(path, encoding="utf-8-sig", errors="replace")  # noqa: SIM115 (the caller's `with` closes it)
    except OSError as error:
        raise FanscanError(f"cannot read {path}: {error.strerror or error}") from None
    if stat.S_ISREG(mode):
        with open(path, "rb") as raw:
            head = raw.read(_SNIFF_BYTES)
        if b"\0" in head:
            f.close()
            raise FanscanError(f"{path} is a binary file, not hand strings (one per line)")
    return f


def run(args: argparse.Namespace) -> int:
    # Batch input: bytes that are not UTF-8 spoil their own line only (an error object, U+FFFD in "input"), never
    # the run; a Windows byte-order mark and line endings are ignored.
    if args.hand == "-":
        stdin = sys.stdin
        if hasattr(stdin, "buffer"):
            stdin = io.TextIOWrapper(stdin.buffer, encoding="utf-8", errors="replace")
        return _batch(stdin, args, sys.stdout)
    path = args.hand
    if os.path.isdir(path):
        raise FanscanError(f"{path} is a folder: give a file with one hand string per line, or a hand string")
    if os.path.exists(path):
        with _open_hand_file(path) as f:
            return _batch(f, args, sys.stdout)
    if any(c in path for c in "./\\"):  # never part of a hand string: a path that is not there
        raise FanscanError(f"no such file: {path}")
    result = score_text(args.hand, args)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(render(result, args.tiles))
    return status_of(result)


def status_of(result: scoring.Score) -> int:
    """The exit status of one scored hand: 0, or 3 when it is below the rule set's minimum (no valid win)."""
    return exit_status.SCORED if result.meets_minimum else exit_status.BELOW_MINIMUM
