"""`fanscan photo IMG`: read a finished hand from a photo, let the user confirm or correct it, and score it.

    fanscan photo hand.jpg                  # shows the proposal, asks to accept / fix, asks the win context
    fanscan photo hand.jpg --yes --self-drawn --seat S
    fanscan photo hand.jpg --json           # one JSON object: proposal, hand, score (no questions)
    fanscan photo hand.jpg --annotate out.png

The photo cannot show the win context (self-drawn or not, the winds, flowers kept aside, last tile, ...): the
questions ask for it, with the flags as defaults; with `--yes` / `--json` the flags are the answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from fanscan.commands import score as score_command
from fanscan.confirm import LOW_CONFIDENCE, Prompter, ask_context, confirm_hand, describe_proposal
from fanscan.scoring import Hand, WinContext, parse_hand, score
from fanscan.scoring.errors import FanscanError
from fanscan.vision.proposal import EMPTY, HandProposal

if TYPE_CHECKING:  # the loader imports OpenCV: only commands that read photos pay for it
    from fanscan.vision.load import LoadedImage

# How often an impossible context may be re-asked before giving up (a script feeding bad answers must end).
MAX_CONTEXT_TRIES = 3


def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    """The win-context flags of `fanscan score`, plus the winning tile (a photo may not show which it was)."""
    score_command.add_context_arguments(parser)
    parser.add_argument("--winning-tile", metavar="TILE",
                        help="the tile that completed the hand (default: the one set apart in the photo, else the "
                             "last one)")


def context_from_args(args: argparse.Namespace, photo_flowers: list[str] | tuple[str, ...] = ()) -> WinContext:
    """The context the flags say (as `fanscan score` reads them); flowers default to those seen in the photo."""
    context = score_command.context_from_args(args, Hand()) or WinContext()
    if args.flowers is None and photo_flowers:
        context = replace(context, flowers=tuple(sorted(photo_flowers)))
    return context


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "photo", help="score a finished hand from a photo (propose, confirm, score)",
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("image", help="photo of the hand: JPEG, PNG or WebP")
    parser.add_argument("-y", "--yes", action="store_true", help="accept the proposal; context from flags")
    parser.add_argument("--json", action="store_true", help="print proposal and score as one JSON object")
    parser.add_argument("--annotate", metavar="OUT.png", help="write the photo with numbered, labelled tiles")
    parser.add_argument("--rules", choices=("mcr", "hk"), default="mcr", help="rule set (default mcr)")
    parser.add_argument("--tiles", choices=("ascii", "unicode", "en", "zh"), default="ascii",
                        help="how tiles are shown in the score breakdown (default ascii)")
    add_context_arguments(parser)
    parser.set_defaults(run=run)


def read_photo(image: str | LoadedImage, annotate: str | None = None) -> HandProposal:
    """The proposal for a photo file or an already decoded one (and the annotated copy when asked); a photo without
    tiles is an error."""
    from fanscan.vision.load import load_image
    from fanscan.vision.pipeline import default_pipeline

    loaded = load_image(image) if isinstance(image, str) else image
    proposal = default_pipeline().propose(loaded)
    if annotate:
        from fanscan.vision.annotate import write_annotated

        write_annotated(annotate, loaded.image, proposal, loaded.scale)
    if proposal.status == EMPTY:
        raise FanscanError(f"{loaded.path}: no tiles found in this photo")
    return proposal


def accepted_hand(proposal: HandProposal, args: argparse.Namespace) -> Hand:
    """The proposal's hand as it stands (for --yes / --json); an incomplete reading is an error."""
    if proposal.status != "complete":
        warning = next((w for w in reversed(proposal.warnings) if "tiles found" in w or "winning hand" in w), "")
        raise FanscanError(f"{proposal.image}: the photo does not read as a complete hand ({proposal.hand.strip()}"
                           f"{'; ' + warning if warning else ''}); run without --yes to correct it")
    hand = parse_hand(proposal.hand)
    if args.winning_tile:
        from fanscan.confirm import with_winning_tile

        hand = with_winning_tile(hand, args.winning_tile)
    return hand


def run(args: argparse.Namespace) -> int:
    if args.json:
        return _run_json(args)
    proposal = read_photo(args.image, args.annotate)
    defaults = context_from_args(args, proposal.flowers)
    if args.yes:
        for line in describe_proposal(proposal, LOW_CONFIDENCE):
            print(line)
        result = score(accepted_hand(proposal, args), defaults, rules=args.rules)
        print(score_command.render(result, args.tiles))
        return 0
    prompter = Prompter()
    hand, proposal = confirm_hand(proposal, prompter)
    if hand.context is not None:  # the typed hand string said it all
        result = score(hand, None, rules=args.rules)
    else:
        defaults = context_from_args(args, proposal.flowers)
        for attempt in range(1, MAX_CONTEXT_TRIES + 1):
            hand, context = ask_context(hand, defaults, prompter, ask_winning_tile=attempt == 1,
                                        rules=args.rules)
            try:
                result = score(hand, context, rules=args.rules)
                break
            except FanscanError as error:
                if attempt == MAX_CONTEXT_TRIES:
                    raise
                prompter.say(f"  {error}: please answer again")
                defaults = context
    prompter.say()
    print(score_command.render(result, args.tiles))
    return 0


def _run_json(args: argparse.Namespace) -> int:
    """--json: no questions; one object with `ok`, `proposal`, `hand`, `score` (or `error`)."""
    proposal = read_photo(args.image, args.annotate)
    out: dict = {"ok": False, "image": args.image, "proposal": proposal.to_dict()}
    try:
        result = score(accepted_hand(proposal, args), context_from_args(args, proposal.flowers), rules=args.rules)
    except FanscanError as error:
        out["error"] = str(error)
        print(json.dumps(out, ensure_ascii=False))
        print(f"fanscan: error: {error}", file=sys.stderr)
        return 2
    out.update(ok=True, hand=result.hand, score=result.to_dict())
    print(json.dumps(out, ensure_ascii=False))
    return 0

