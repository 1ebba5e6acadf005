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
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from fanscan import exit_status
from fanscan.commands import score as score_command
from fanscan.confirm import (
    LOW_CONFIDENCE,
    Prompter,
    ask_context,
    confirm_hand,
    describe_proposal,
    hand_one_tile_short,
)
from fanscan.labels.save import save_confirmed_photo
from fanscan.scoring import Hand, WinContext, parse_hand, score, waits
from fanscan.scoring.errors import FanscanError
from fanscan.vision.proposal import EMPTY, HandProposal

if TYPE_CHECKING:  # the loader imports OpenCV: only commands that read photos pay for it
    from fanscan.vision.load import LoadedImage

def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    """The win-context flags of `fanscan score`, plus the winning tile (a photo may not show which it was)."""
    score_command.add_variant_argument(parser)
    score_command.add_context_arguments(parser)
    parser.add_argument("--winning-tile", metavar="TILE",
                        help="the tile that completed the hand (default: the one set apart in the photo, else the "
                             "last one)")


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    """Whether a hand that only a rule override makes complete may be scored without a person looking at it."""
    parser.add_argument("--accept-overrides", action="store_true",
                        help="when the classifier's reading is not a complete hand but the rules suggest one that "
                             "is (at most 1000:1 less probable), score the suggestion (default: such a photo needs "
                             "review)")


def context_from_args(args: argparse.Namespace, photo_flowers: list[str] | tuple[str, ...] = ()) -> WinContext:
    """The context the flags say (as `fanscan score` reads them); flowers default to those seen in the photo."""
    context = score_command.context_from_args(args, Hand()) or WinContext()
    if args.flowers is None and photo_flowers:
        context = replace(context, flowers=tuple(sorted(photo_flowers)))
    return context


def add_profile_argument(parser: argparse.ArgumentParser, learn: bool = False) -> None:
    parser.add_argument("--profile", metavar="PROFILE.npz",
                        help="set profile of your own tiles, made by fanscan calibrate")
    if learn:
        parser.add_argument("--learn", metavar="PROFILE.npz",
                            help="learn as you play: read with this profile (created if new) and add each confirmed "
                                 "photo's tiles, with your fixes, to it, then refit it (fanscan calibrate --history "
                                 "PROFILE lists what it learned, --remove N PROFILE undoes one)")


def profile_in_use(args: argparse.Namespace) -> str | None:
    """The profile file photos are read with: --profile, or --learn's once it exists; both at once must agree."""
    learn = getattr(args, "learn", None)
    if learn:
        from fanscan.calibration.learn import check_profile_path

        check_profile_path(learn)
        if args.profile and Path(args.profile).resolve() != Path(learn).resolve():
            raise FanscanError(f"--profile {args.profile} and --learn {learn}: give one profile (--learn reads with "
                               "the profile it learns)")
        return learn if Path(learn).exists() else None
    return args.profile


def profile_note(profile) -> dict | None:
    """Which set profile reads the photos, for the JSON (`profile`) and the one line that says so."""
    if profile is None:
        return None
    return {"name": profile.name, "path": str(profile.path) if profile.path else None,
            "created": profile.created, "tiles": profile.details.get("tiles")}


def profile_line(note: dict | None) -> str:
    if note is None:
        return "fanscan: read with the shipped model (no set profile)"
    return f"fanscan: read with the set profile {note['name']!r} ({note['path']})"


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "photo", help="score a finished hand from a photo (propose, confirm, score)",
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=exit_status.EPILOG,
    )
    parser.add_argument("image", help="photo of the hand: JPEG, PNG or WebP")
    parser.add_argument("-y", "--yes", action="store_true", help="accept the proposal; context from flags")
    parser.add_argument("--json", action="store_true", help="print proposal and score as one JSON object")
    parser.add_argument("--annotate", metavar="OUT.png", help="write the photo with numbered, labelled tiles")
    parser.add_argument("--save-labels", metavar="DATASET",
                        help="once the hand is confirmed, add the photo and its corrected labels to this YOLO "
                             "dataset folder (created if new)")
    parser.add_argument("--rules", choices=("mcr", "hk"), default="mcr", help="rule set (default mcr)")
    parser.add_argument("--tiles", choices=("ascii", "unicode", "en", "zh"), default="ascii",
                        help="how tiles are shown in the score breakdown (default ascii)")
    add_profile_argument(parser, learn=True)
    add_context_arguments(parser)
    add_review_arguments(parser)
    parser.set_defaults(run=run)


def read_photo(image: str | LoadedImage, annotate: str | None = None, profile: str | None = None) -> HandProposal:
    """The proposal for a photo file or an already decoded one (and the annotated copy when asked); a photo without
    tiles is an error.

    Its timings are the ones the user waits for: `load` is the decoding of the file (done here, before the
    pipeline, which then finds the photo decoded; 0 for a photo decoded by the caller, who timed it), `models` the
    loading of the models (the first photo of a process), and `total` everything from opening the file to the
    proposal."""
    from fanscan.vision.load import load_image
    from fanscan.vision.pipeline import default_pipeline

    if annotate is not None and not annotate.strip():
        raise FanscanError("--annotate needs a file name (OUT.png, .jpg or .webp)")
    started = time.perf_counter()
    # Coarse first (`vision.load`): a big photo is decoded at the working size only when its tiles need it (or for
    # the annotated copy, below).
    loaded = load_image(image, coarse_first=True) if isinstance(image, str) else image
    decoded = time.perf_counter()
    pipeline = default_pipeline(profile)
    ready = time.perf_counter()
    proposal = pipeline.propose(loaded)
    done = time.perf_counter()
    proposal.timings_ms.update(load=round((decoded - started) * 1000, 2), models=round((ready - decoded) * 1000, 2),
                               total=round((done - started) * 1000, 2))
    if annotate:
        from fanscan.vision.annotate import write_annotated

        drawn_on = loaded.finer() if loaded.finer else loaded  # the annotated copy at the working size
        write_annotated(annotate, drawn_on.image, proposal, drawn_on.scale)
    if proposal.status == EMPTY:
        raise FanscanError(f"{loaded.path}: no tiles found in this photo")
    return proposal


def settled(proposal: HandProposal, args: argparse.Namespace) -> HandProposal:
    """The proposal to score without a person (--yes / --json / batch): with --accept-overrides, the rules'
    suggestion taken when the classifier's reading is not a complete hand."""
    return proposal.take_rules_suggestion() if args.accept_overrides else proposal


def review_reason(proposal: HandProposal) -> str:
    """Why a proposal that `needs_review` is not scored without a person, in words: what the hand is as read, what
    the rules make of it, and what --accept-overrides would score (the rules' reading, not the classifier's)."""
    suggestion = proposal.rules_suggestion
    if suggestion is None:  # the proposal itself reads some tile otherwise than the classifier's best
        return (f"the hand ({proposal.hand.strip()}) is complete only as the rules read it: "
                f"{proposal.override_summary()}; check those tiles in the photo, or pass --accept-overrides to "
                "score it as read")
    why = f": {proposal.problem_text}" if proposal.problem_text else ""
    odds = f"1/{1 / max(suggestion.relative_probability, 1e-6):.0f}"
    return (f"as read, the hand ({proposal.hand.strip()}) is not complete{why}; {proposal.override_summary()}: "
            f"the rules' suggestion ({odds} as probable as the reading) makes {suggestion.hand.strip()}, which "
            "may not be the hand on the table; check the photo, or pass --accept-overrides to score the suggestion")


def accepted_hand(proposal: HandProposal, args: argparse.Namespace, can_correct: bool = False) -> Hand:
    """The hand of a `settled` proposal as it stands (for --yes / --json / batch); an incomplete reading is an
    error, which suggests the interactive run only where one is possible (`can_correct`: the text output of --yes)."""
    if proposal.needs_review and not args.accept_overrides:
        raise FanscanError(f"{proposal.image}: needs review: {review_reason(proposal)}")
    if proposal.status != "complete":
        why = f"; {proposal.problem_text}" if proposal.problem_text else ""
        short = hand_one_tile_short(proposal)
        if short is not None:
            found = waits(short)
            why += f"; as read it waits on {' '.join(found)}" if found else "; as read no tile completes it"
        hint = "; run without --yes to correct it" if can_correct else ""
        raise FanscanError(f"{proposal.image}: the photo does not read as a complete hand "
                           f"({proposal.hand.strip()}{why}){hint}")
    hand = parse_hand(proposal.hand)
    if args.winning_tile:
        from fanscan.confirm import with_winning_tile

        hand = with_winning_tile(hand, args.winning_tile)
    return hand


def learn_from(args: argparse.Namespace, proposal: HandProposal, hand: Hand | None = None) -> None:
    """--learn: the confirmed photo's tiles join the profile, which is refitted before the command exits (a second
    or two for a hand; the line says so). As --save-labels, a typed hand whose tiles differ from the photo's teaches
    nothing."""
    if not getattr(args, "learn", None):
        return
    from fanscan.calibration.fit import read_without_profile
    from fanscan.calibration.learn import classifier_to_learn_with, learn_photo, refit

    if hand is not None:
        from fanscan.scoring import parse_hand

        proposed = sorted(parse_hand(proposal.hand).all_tiles()) if proposal.hand.strip() else []
        if sorted(hand.all_tiles()) != proposed:
            print("fanscan: not learned: the typed hand's tiles differ from the photo's tiles (correct tiles with "
                  "'fix N TILE' to teach them)", file=sys.stderr)
            return
    started = time.perf_counter()
    classifier = classifier_to_learn_with(args.learn, profile_in_use(args))
    entry = learn_photo(args.learn, args.image, proposal, classifier)
    fitted = refit(args.learn, classifier)
    loo = fitted.details.get("leave_one_out") or {}
    held_out = (f"; held-out crops read {loo['accuracy']:.3f} with it, {read_without_profile(loo):.3f} "
                "without" if loo.get("accuracy") is not None else "")
    print(f"fanscan: learned from this photo (history entry {entry.number}: {len(entry.tiles)} tiles, "
          f"{len(entry.hard)} the model had read wrong); profile {fitted.name!r} refitted before exiting in "
          f"{time.perf_counter() - started:.1f} s{held_out}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if args.learn and args.json:
        raise FanscanError("--learn learns from a confirmed hand: run without --json (interactively, or with --yes)")
    if args.json:
        return _run_json(args)
    proposal = read_photo(args.image, args.annotate, profile_in_use(args))
    note = profile_note(used_profile(profile_in_use(args)))
    if note is not None or args.learn:  # the shipped model alone is the default: said only when learning starts
        print(profile_line(note), file=sys.stderr)
    if args.yes:
        proposal = settled(proposal, args)
        defaults = context_from_args(args, proposal.flowers)
        for line in describe_proposal(proposal, LOW_CONFIDENCE):
            print(line)
        result = score(accepted_hand(proposal, args, can_correct=True), defaults, rules=args.rules,
                       variant=args.variant)
        save_confirmed_photo(args.save_labels, args.image, proposal)
        print(score_command.render(result, args.tiles))
        learn_from(args, proposal)
        return score_command.status_of(result)
    prompter = Prompter()
    confirmed = confirm_hand(proposal, prompter)
    hand, proposal = confirmed.hand, confirmed.proposal
    # A typed hand's tiles may not be the photo's; a hand the user accepted (or added the unseen tile to) is.
    save_confirmed_photo(args.save_labels, args.image, proposal, hand if confirmed.typed else None)
    learn_from(args, proposal, hand)
    if hand.context is not None:  # the typed hand string said it all
        result = score(hand, None, rules=args.rules, variant=args.variant)
    else:
        def scores(hand: Hand, context: WinContext) -> None:  # the rule set's own checks, as the score runs them
            score(hand, context, rules=args.rules, variant=args.variant)

        hand, context = ask_context(hand, context_from_args(args, proposal.flowers), prompter, rules=args.rules,
                                    check=scores)
        result = score(hand, context, rules=args.rules, variant=args.variant)
    prompter.say()
    print(score_command.render(result, args.tiles))
    return score_command.status_of(result)


def photo_json(image: str, args: argparse.Namespace, name: str | None = None) -> dict:
    """The object `fanscan photo --json` prints: `ok`, `image`, `proposal`, and `hand` + `score` or `error`. A file
    that is not a usable photo gives `proposal: null` and the error. `name` stands for the file's path in it (an
    upload's own file name)."""
    out: dict = {"ok": False, "image": name or image, "proposal": None}
    try:
        out["profile"] = profile_note(used_profile(profile_in_use(args)))
        proposal = settled(read_photo(image, args.annotate, profile_in_use(args)), args)
        if name is not None:
            proposal.image = name
        out["proposal"] = proposal.to_dict()
        result = score(accepted_hand(proposal, args), context_from_args(args, proposal.flowers), rules=args.rules,
                       variant=args.variant)
    except FanscanError as error:
        out["error"] = str(error)
        return out
    out.update(ok=True, hand=result.hand, score=result.to_dict())
    save_confirmed_photo(args.save_labels, image, proposal)
    return out


def used_profile(profile: str | None):
    """The loaded profile the pipeline reads with (None: the shipped model alone)."""
    if not profile:
        return None
    from fanscan.vision.pipeline import default_pipeline

    return default_pipeline(profile).classifier.profile


def _run_json(args: argparse.Namespace) -> int:
    """--json: no questions; one object with `ok`, `proposal`, `hand`, `score` (or `error`)."""
    out = photo_json(args.image, args)
    print(json.dumps(out, ensure_ascii=False))
    if not out["ok"]:
        print(f"fanscan: error: {out['error']}", file=sys.stderr)
        return exit_status.ERROR
    return exit_status.SCORED if out["score"]["meets_minimum"] else exit_status.BELOW_MINIMUM
