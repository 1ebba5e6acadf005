"""`fanscan waits`: the tiles that complete a 13-tile hand."""

from __future__ import annotations

import argparse
import json

from fanscan import scoring
from fanscan.scoring.errors import FanscanError
from fanscan.scoring.tiles import CHINESE_NAMES, ENGLISH_NAMES, tile_text
from fanscan.usage_errors import one_line_errors


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "waits", help="list the tiles that complete a 13-tile hand",
        description="List the winning tiles of a waiting hand: 13 tiles (plus one per kong) in GB notation, e.g. "
                    '"[111s,1]2345678999s". A tile the hand already holds all four of cannot be won and is not '
                    "listed (use --formal to list it too).")
    p.add_argument("hand", metavar="HAND13", help="a 13-tile hand string (no winning tile)")
    p.add_argument("--json", action="store_true", help='print {"ok": true, "waits": [...]}')
    p.add_argument("--formal", action="store_true", help="also list tiles the hand already holds four of")
    p.add_argument("--tiles", choices=("ascii", "unicode"), default="ascii", help="tile display (default ascii)")
    p.add_argument("--rules", choices=("mcr", "hk"), default="mcr", type=str.lower,
                   help="rule set (default mcr; waits are computed for MCR only, whose winning shapes differ from "
                        "Hong Kong's)")
    one_line_errors(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.rules != "mcr":
        raise FanscanError("waits are computed for MCR only: the Hong Kong rules here score a finished hand "
                           "(fanscan score HAND --rules hk), they do not list waits")
    hand = scoring.parse_hand(args.hand)
    if hand.winning_tile is not None:
        raise FanscanError("waits needs a 13-tile hand (plus one per kong); this one already has 14 - "
                           "drop the winning tile, or use `fanscan score`")
    found = scoring.waits(hand, formal=args.formal)
    if args.json:
        shown = scoring.format_hand(scoring.canonical_hand(hand)).strip()
        print(json.dumps({"ok": True, "hand": shown, "waits": found}))
        return 0
    if not found:
        print("No waits: no single tile completes this hand.")
        return 0
    print(f"Waits on {len(found)} tile{'s' if len(found) > 1 else ''}:")
    for t in found:
        shown = tile_text(t, args.tiles)
        print(f"  {shown:<5} {ENGLISH_NAMES[t]:<16} {CHINESE_NAMES[t]}")
    return 0
